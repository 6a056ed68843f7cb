internal import CLibXML2
#if canImport(Glibc)
import Glibc
#endif

/// What an `HTMLStream` reports, in document order: subclass and override. Names are
/// lowercase UTF-8; text has its entities decoded. Buffers are valid only during the call.
/// (A class, not a protocol: the parser's callbacks reach it without retaining anything.)
open class HTMLStreamHandler {
    public init() {}
    open func startElement(_ name: UnsafeBufferPointer<UInt8>, _ attributes: HTMLAttributes) {}
    open func endElement(_ name: UnsafeBufferPointer<UInt8>) {}
    open func text(_ bytes: UnsafeBufferPointer<UInt8>) {}

    fileprivate var depth = 0
    fileprivate var impliedParagraphs: [Int] = []  // depths of the paragraphs libxml2 made up
    var restorer: PlaceholderRestorer?  // when parsing with runs swapped out

    fileprivate static func with(_ ctx: UnsafeMutableRawPointer, _ body: (HTMLStreamHandler) -> Void) {
        Unmanaged<HTMLStreamHandler>.fromOpaque(mp_html_sax_user(ctx)!)._withUnsafeGuaranteedRef(body)
    }
}

/// HTML parsed by libxml2's HTML parser as a stream of events, without building a tree: the
/// same recovery (implied html/body, auto-closed elements, every start matched by an end) as
/// `HTMLDocument`, at a fraction of the cost. Comments, doctypes and processing instructions
/// are not reported, nor the `<p>` libxml2 invents around text outside any element.
public enum HTMLStream {
    /// Parses bytes `HTMLInput` has prepared (a contradicting `<meta charset>` is ignored).
    static func parse(_ bytes: UnsafeBufferPointer<UInt8>, handler: HTMLStreamHandler) {
        guard let base = bytes.baseAddress, bytes.count > 0 else { return }
        HTMLLibrary.initializeOnce()
        handler.depth = 0
        handler.impliedParagraphs.removeAll()
        // The callbacks reach the handler through an unretained pointer: it lives until
        // parsing ends (withExtendedLifetime), so no callback needs to retain it.
        withExtendedLifetime(handler) {
            base.withMemoryRebound(to: CChar.self, capacity: bytes.count) { chars in
                _ = mp_html_sax_parse(chars, Int32(clamping: bytes.count), Unmanaged.passUnretained(handler).toOpaque(), { ctx, name, attributes in
                    guard let ctx, let name else { return }
                    HTMLStreamHandler.with(ctx) { h in
                        h.depth += 1
                        if attributes == nil, name[0] == UInt8(ascii: "p"), name[1] == 0, mp_html_sax_at_p_tag(ctx) == 0 {
                            h.impliedParagraphs.append(h.depth)
                            return
                        }
                        let name = UnsafeBufferPointer(start: name, count: strlen(name))
                        if let restorer = h.restorer, let attributes {
                            restorer.restoringValues(UnsafePointer(attributes)) { h.startElement(name, $0) }
                        } else if let restorer = h.restorer, restorer.hasList(at: mp_html_sax_offset(ctx), name: name) {
                            restorer.restoringList { h.startElement(name, $0) }
                        } else {
                            h.startElement(name, HTMLAttributes(raw: attributes.map { UnsafePointer($0) }))
                        }
                    }
                }, { ctx, name in
                    guard let ctx, let name else { return }
                    HTMLStreamHandler.with(ctx) { h in
                        defer { h.depth -= 1 }
                        if h.impliedParagraphs.last == h.depth {
                            h.impliedParagraphs.removeLast()
                            return
                        }
                        h.endElement(UnsafeBufferPointer(start: name, count: strlen(name)))
                    }
                }, { ctx, chars, length in
                    guard let ctx, let chars, length > 0 else { return }
                    HTMLStreamHandler.with(ctx) { h in
                        let text = UnsafeBufferPointer(start: chars, count: Int(length))
                        if let restorer = h.restorer, memchr(chars, Int32(Placeholders.textMark), Int(length)) != nil {
                            restorer.restoringText(text, raw: false, inventedParagraph: h.impliedParagraphs.last == h.depth) { h.text($0) }
                        } else {
                            h.text(text)
                        }
                    }
                }, { ctx, chars, length in  // script and style: raw text, where nothing is decoded
                    guard let ctx, let chars, length > 0 else { return }
                    HTMLStreamHandler.with(ctx) { h in
                        let text = UnsafeBufferPointer(start: chars, count: Int(length))
                        if let restorer = h.restorer, memchr(chars, Int32(Placeholders.textMark), Int(length)) != nil {
                            restorer.restoringText(text, raw: true, inventedParagraph: false) { restored in
                                // in the pieces libxml2 cuts: at the first character's end from 1,000 bytes on
                                var start = 0
                                while start < restored.count {
                                    var end = min(start + 1000, restored.count)
                                    while end < restored.count, restored[end] & 0xC0 == 0x80 { end += 1 }
                                    References.unescaped(Array(restored[start..<end])).withUnsafeBufferPointer { h.text($0) }
                                    start = end
                                }
                            }
                        } else {
                            References.unescaped(Array(text)).withUnsafeBufferPointer { h.text($0) }
                        }
                    }
                }, { ctx, comment in  // reported to no handler: a swapped comment's mark is only counted
                    guard let ctx, let comment else { return }
                    HTMLStreamHandler.with(ctx) { h in
                        guard let restorer = h.restorer else { return }
                        restorer.countingComment(UnsafeBufferPointer(start: comment, count: strlen(comment)))
                    }
                })
            }
        }
    }

    /// Parses UTF-8 `bytes`, prepared as `HTMLInput` says.
    public static func parse(_ bytes: [UInt8], handler: HTMLStreamHandler) {
        HTMLInput.prepared(bytes) { parse($0, handler: handler) }
    }

    /// Parses UTF-8 `bytes` as `parse(_:handler:)` does, reporting the same events, with the
    /// runs of text and attribute values libxml2 would copy a character at a time swapped out
    /// while it parses (`Placeholders`): several times faster on text-heavy mail. When libxml2
    /// did not read a swapped document as it reads the document (a mark went missing), the
    /// document is parsed again as it is, for a handler `makeHandler` makes anew; returns the
    /// handler that saw the whole document.
    public static func parse<Handler: HTMLStreamHandler>(_ bytes: [UInt8], makeHandler: () -> Handler) -> Handler {
        HTMLInput.prepared(bytes) { prepared in
            if swapsRuns, let placeholders = Placeholders(prepared) {
                let handler = makeHandler()
                let restorer = PlaceholderRestorer(prepared, placeholders)
                handler.restorer = restorer
                placeholders.swapped.withUnsafeBufferPointer { parse($0, handler: handler) }
                handler.restorer = nil
                if restorer.restoredAll { return handler }
            }
            let handler = makeHandler()
            parse(prepared, handler: handler)
            return handler
        }
    }

    /// Whether `parse(_:makeHandler:)` swaps runs out; tests and the fuzzer compare both ways.
    nonisolated(unsafe) public static var swapsRuns = true
}

/// Puts swapped runs back into what libxml2 reports, in document order, and counts them.
final class PlaceholderRestorer {
    private let original: UnsafeBufferPointer<UInt8>
    private let placeholders: Placeholders
    private var nextText = 0, nextValue = 0, nextList = 0
    private var extraMark = false  // more marks came than were swapped in
    private var text: [UInt8] = []
    private var values: [UInt8] = []  // values restored from pieces
    private var attributes: [HTMLAttributes.Span] = []

    init(_ original: UnsafeBufferPointer<UInt8>, _ placeholders: Placeholders) {
        self.original = original
        self.placeholders = placeholders
    }

    /// Every mark came back, each where libxml2 reports text or values.
    var restoredAll: Bool {
        !extraMark && nextText == placeholders.textRuns.count && nextValue == placeholders.valueRuns.count
            && nextList == placeholders.attributeLists.count
    }

    /// Text (`raw`: the raw text of a style or script) with its marks' runs put back; a mark
    /// reported as the other kind than it was swapped for counts as missing, and so does a
    /// mark for blanks in a paragraph libxml2 invented (`inventedParagraph`): libxml2 invents
    /// one for text where html or head is open, and would not have for the blanks.
    func restoringText(_ bytes: UnsafeBufferPointer<UInt8>, raw: Bool, inventedParagraph: Bool, _ body: (UnsafeBufferPointer<UInt8>) -> Void) {
        if bytes.count == 1, nextText < placeholders.textRuns.count, !placeholders.textRuns[nextText].isDecoded {
            // text that is one mark (blanks between tags, mostly): its run as it is, not copied
            let run = placeholders.textRuns[nextText]
            check(run.kind, raw: raw, inventedParagraph: inventedParagraph)
            nextText += 1
            return body(UnsafeBufferPointer(rebasing: original[run.bytes]))
        }
        text.removeAll(keepingCapacity: true)
        var start = 0
        while let at = bytes.firstIndex(of: Placeholders.textMark, from: start) {
            text.append(contentsOf: bytes[start..<at])
            if nextText < placeholders.textRuns.count {
                let run = placeholders.textRuns[nextText]
                check(run.kind, raw: raw, inventedParagraph: inventedParagraph)
                if run.isDecoded {
                    text.append(contentsOf: placeholders.decoded[run.bytes])
                } else {
                    text.append(contentsOf: original[run.bytes])
                }
                nextText += 1
            } else {
                extraMark = true
            }
            start = at + 1
        }
        text.append(contentsOf: bytes[start...])
        text.withUnsafeBufferPointer(body)
    }

    /// Whether a run of `kind` may be where libxml2 reported its mark.
    private func check(_ kind: Placeholders.TextRun.Kind, raw: Bool, inventedParagraph: Bool) {
        switch kind {
        case .text: if raw { extraMark = true }
        case .blanks: if raw || inventedParagraph { extraMark = true }
        case .raw: if !raw { extraMark = true }
        case .comment: extraMark = true
        }
    }

    /// A comment's marks: each must stand for a comment's text.
    func countingComment(_ bytes: UnsafeBufferPointer<UInt8>) {
        var start = 0
        while let at = bytes.firstIndex(of: Placeholders.textMark, from: start) {
            if nextText < placeholders.textRuns.count, placeholders.textRuns[nextText].kind == .comment {
                nextText += 1
            } else {
                extraMark = true
            }
            start = at + 1
        }
    }

    /// The attributes (libxml2's: name, value… then nil) with the values that hold a mark
    /// restored: a value that is one mark is its run in the document, not copied.
    func restoringValues(_ raw: UnsafePointer<UnsafePointer<UInt8>?>, _ body: (HTMLAttributes) -> Void) {
        var k = 0
        while raw[k] != nil, !Self.isMarked(raw[k + 1]) { k += 2 }
        guard raw[k] != nil else { return body(HTMLAttributes(raw: raw)) }
        values.removeAll(keepingCapacity: true)
        attributes.removeAll(keepingCapacity: true)
        var piecesRestored = false
        k = 0
        while let name = raw[k] {
            var span = HTMLAttributes.Span(name: name, nameCount: strlen(name), value: raw[k + 1], valueCount: 0, restoredAt: -1)
            if let value = raw[k + 1] {
                let count = strlen(value)
                span.valueCount = count
                if count == 1, value[0] == Placeholders.valueMark {
                    if nextValue < placeholders.valueRuns.count {
                        let run = placeholders.valueRuns[nextValue]
                        span.value = original.baseAddress! + run.lowerBound
                        span.valueCount = run.count
                        nextValue += 1
                    } else {
                        extraMark = true
                        span.valueCount = 0
                    }
                } else if memchr(value, Int32(Placeholders.valueMark), count) != nil {
                    span.restoredAt = values.count
                    restoreValue(UnsafeBufferPointer(start: value, count: count))
                    span.valueCount = values.count - span.restoredAt
                    piecesRestored = true
                }
            }
            attributes.append(span)
            k += 2
        }
        if piecesRestored {
            values.withUnsafeBufferPointer { restored in
                for i in attributes.indices where attributes[i].restoredAt >= 0 {
                    attributes[i].value = restored.baseAddress.map { $0 + attributes[i].restoredAt } ?? UnsafePointer(raw[2 * i + 1]!)
                }
                attributes.withUnsafeBufferPointer { body(HTMLAttributes(spans: $0)) }
            }
        } else {
            attributes.withUnsafeBufferPointer { body(HTMLAttributes(spans: $0)) }
        }
    }

    /// Whether the element libxml2 reports (without attributes) at `offset` of the swapped
    /// document is the next whose attributes were taken out, by where its tag ends and its name.
    func hasList(at offset: Int, name: UnsafeBufferPointer<UInt8>) -> Bool {
        guard nextList < placeholders.attributeLists.count else { return false }
        let list = placeholders.attributeLists[nextList]
        guard list.tagEnd == offset, list.name.count == name.count else { return false }
        for k in 0..<name.count where original[list.name.lowerBound + k] | 0x20 != name[k] | 0x20 { return false }
        return true
    }

    /// The attributes of the list `hasList` found, as the document holds them.
    func restoringList(_ body: (HTMLAttributes) -> Void) {
        let list = placeholders.attributeLists[nextList]
        nextList += 1
        attributes.removeAll(keepingCapacity: true)
        let base = original.baseAddress!
        placeholders.listDecoded.withUnsafeBufferPointer { decoded in
            for k in list.attributes {
                let a = placeholders.listAttributes[k]
                let valueBase = a.isDecoded ? decoded.baseAddress! : base
                attributes.append(HTMLAttributes.Span(name: base + a.name.lowerBound, nameCount: a.name.count,
                                                      value: a.value.map { valueBase + $0.lowerBound }, valueCount: a.value?.count ?? 0,
                                                      restoredAt: -1))
            }
            attributes.withUnsafeBufferPointer { body(HTMLAttributes(spans: $0)) }
        }
    }

    private static func isMarked(_ value: UnsafePointer<UInt8>?) -> Bool {
        guard let value else { return false }
        return strchr(UnsafeRawPointer(value).assumingMemoryBound(to: CChar.self), Int32(Placeholders.valueMark)) != nil
    }

    private func restoreValue(_ bytes: UnsafeBufferPointer<UInt8>) {
        var start = 0
        while let at = bytes.firstIndex(of: Placeholders.valueMark, from: start) {
            values.append(contentsOf: bytes[start..<at])
            if nextValue < placeholders.valueRuns.count {
                values.append(contentsOf: original[placeholders.valueRuns[nextValue]])
                nextValue += 1
            } else {
                extraMark = true
            }
            start = at + 1
        }
        values.append(contentsOf: bytes[start...])
    }
}

/// An element's attributes as the parser gave them: names lowercase, values with entities
/// decoded (nil for a bare attribute such as `nowrap`). Valid only during `startElement`.
public struct HTMLAttributes: Sequence {
    fileprivate let raw: UnsafePointer<UnsafePointer<UInt8>?>?  // libxml2's: name, value… then nil
    fileprivate let spans: UnsafeBufferPointer<Span>?  // or each with its length, values restored

    /// An attribute whose value was restored (`PlaceholderRestorer`).
    struct Span {
        var name: UnsafePointer<UInt8>
        var nameCount: Int
        var value: UnsafePointer<UInt8>?
        var valueCount: Int
        var restoredAt: Int  // where the value starts in the restorer's buffer, or -1
    }

    init(raw: UnsafePointer<UnsafePointer<UInt8>?>?) {
        self.raw = raw
        spans = nil
    }

    init(spans: UnsafeBufferPointer<Span>) {
        raw = nil
        self.spans = spans
    }

    public struct Iterator: IteratorProtocol {
        fileprivate var cursor: UnsafePointer<UnsafePointer<UInt8>?>?
        fileprivate var spans: UnsafeBufferPointer<Span>?
        fileprivate var index = 0
        public mutating func next() -> (name: UnsafeBufferPointer<UInt8>, value: UnsafeBufferPointer<UInt8>?)? {
            if let spans {
                guard index < spans.count else { return nil }
                let span = spans[index]
                index += 1
                return (UnsafeBufferPointer(start: span.name, count: span.nameCount),
                        span.value.map { UnsafeBufferPointer(start: $0, count: span.valueCount) })
            }
            guard let p = cursor, let name = p[0] else { return nil }
            let value = p[1]
            cursor = p + 2
            return (UnsafeBufferPointer(start: name, count: strlen(name)),
                    value.map { UnsafeBufferPointer(start: $0, count: strlen($0)) })
        }
    }

    public func makeIterator() -> Iterator { Iterator(cursor: raw, spans: spans) }
}
