import HTMLDOM

/// The events of an HTMLStream as strings: `<name attr=value>`, `</name>`, and text, with the
/// pieces of one text the parser reports apart joined.
final class StreamRecorder: HTMLStreamHandler {
    var events: [String] = []
    private var inText = false

    override func startElement(_ name: UnsafeBufferPointer<UInt8>, _ attributes: HTMLAttributes) {
        let attrs = attributes.map { String(decoding: $0.name, as: UTF8.self) + "=" + ($0.value.map { String(decoding: $0, as: UTF8.self) } ?? "") }
        append("<" + String(decoding: name, as: UTF8.self) + (attrs.isEmpty ? "" : " " + attrs.joined(separator: " ")) + ">")
    }

    override func endElement(_ name: UnsafeBufferPointer<UInt8>) { append("</" + String(decoding: name, as: UTF8.self) + ">") }

    override func text(_ bytes: UnsafeBufferPointer<UInt8>) {
        let text = String(decoding: bytes, as: UTF8.self)
        if inText { events[events.count - 1] += text } else { events.append(text) }
        inText = true
    }

    private func append(_ event: String) {
        events.append(event)
        inText = false
    }
}
