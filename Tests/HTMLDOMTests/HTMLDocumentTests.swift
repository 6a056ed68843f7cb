import Testing
import HTMLDOM

@Suite struct HTMLDocumentTests {
    @Test func parsesBrokenHTMLAndWalksIt() {
        let doc = HTMLDocument(utf8: Array("<p class=x>Hello <b>wörld<script>evil()</script><table><td>cell".utf8))
        #expect(doc.textContent == "Hello wörldcell")
        var elements: [String] = []
        var classes: [String] = []
        doc.walk { node in
            if node.kind == .element {
                elements.append(node.name)
                classes += node.attributes.filter { $0.name == "class" }.map(\.value)
            }
            return true
        }
        #expect(elements.contains("table"))
        #expect(elements.contains("td"))
        #expect(classes == ["x"])
    }

    @Test func ignoresAContradictingMetaCharset() {
        let doc = HTMLDocument(utf8: Array("<meta charset=iso-8859-1><p>日本</p>".utf8))
        #expect(doc.textContent == "日本")
    }

    @Test func nulBytesAreReadAsReplacementCharacters() {
        // libxml2 alone stops at a NUL, and takes leading NULs for UTF-32
        let doc = HTMLDocument(utf8: [0, 0, 0] + Array("<p>hello</p><p>a".utf8) + [0] + Array("b</p>".utf8))
        #expect(doc.textContent == "\u{FFFD}\u{FFFD}\u{FFFD}helloa\u{FFFD}b")
    }

    @Test func streamReportsElementsAndTextButNoInventedParagraph() {
        final class Recorder: HTMLStreamHandler {
            var events: [String] = []
            override func startElement(_ name: UnsafeBufferPointer<UInt8>, _ attributes: HTMLAttributes) {
                let attrs = attributes.map { String(decoding: $0.name, as: UTF8.self) + "=" + ($0.value.map { String(decoding: $0, as: UTF8.self) } ?? "") }
                events.append("<" + String(decoding: name, as: UTF8.self) + (attrs.isEmpty ? "" : " " + attrs.joined(separator: " ")) + ">")
            }
            override func endElement(_ name: UnsafeBufferPointer<UInt8>) { events.append("</" + String(decoding: name, as: UTF8.self) + ">") }
            override func text(_ bytes: UnsafeBufferPointer<UInt8>) { events.append(String(decoding: bytes, as: UTF8.self)) }
        }
        let r = Recorder()
        HTMLStream.parse(Array("hi <b class=x nowrap>there</b><p>para</p>".utf8), handler: r)
        #expect(r.events == ["<html>", "<body>", "hi ", "<b class=x nowrap=>", "there", "</b>", "<p>", "para", "</p>", "</body>", "</html>"])
    }
}
