internal import CLibXML2

/// What an `HTMLStream` reports, in document order. Names are lowercase UTF-8; text has its
/// entities decoded. Buffers are valid only during the call.
public protocol HTMLStreamHandler: AnyObject {
    func startElement(_ name: UnsafeBufferPointer<UInt8>, _ attributes: HTMLAttributes)
    func endElement(_ name: UnsafeBufferPointer<UInt8>)
    func text(_ bytes: UnsafeBufferPointer<UInt8>)
}

/// HTML parsed by libxml2's HTML parser as a stream of events, without building a tree: the
/// same recovery (implied html/body, auto-closed elements, every start matched by an end) as
/// `HTMLDocument`, at a fraction of the cost. Comments, doctypes and processing instructions
/// are not reported, nor the `<p>` libxml2 invents around text outside any element.
public enum HTMLStream {
    /// Parses UTF-8 `bytes` (a contradicting `<meta charset>` is ignored); they must hold no NUL.
    static func parse(_ bytes: UnsafeBufferPointer<UInt8>, handler: any HTMLStreamHandler) {
        guard let base = bytes.baseAddress, bytes.count > 0 else { return }
        HTMLLibrary.initializeOnce()
        let box = Unmanaged.passRetained(HandlerBox(handler))
        defer { box.release() }
        base.withMemoryRebound(to: CChar.self, capacity: bytes.count) { chars in
            _ = mp_html_sax_parse(chars, Int32(clamping: bytes.count), box.toOpaque(), { ctx, name, attributes in
                guard let ctx, let name else { return }
                let box = HandlerBox.from(ctx)
                box.depth += 1
                if attributes == nil, name[0] == UInt8(ascii: "p"), name[1] == 0, mp_html_sax_at_p_tag(ctx) == 0 {
                    box.impliedParagraphs.append(box.depth)
                    return
                }
                box.handler.startElement(UnsafeBufferPointer(start: name, count: strlen(name)),
                                         HTMLAttributes(raw: attributes.map { UnsafePointer($0) }))
            }, { ctx, name in
                guard let ctx, let name else { return }
                let box = HandlerBox.from(ctx)
                defer { box.depth -= 1 }
                if box.impliedParagraphs.last == box.depth {
                    box.impliedParagraphs.removeLast()
                    return
                }
                box.handler.endElement(UnsafeBufferPointer(start: name, count: strlen(name)))
            }, { ctx, chars, length in
                guard let ctx, let chars, length > 0 else { return }
                HandlerBox.from(ctx).handler.text(UnsafeBufferPointer(start: chars, count: Int(length)))
            })
        }
    }

    /// Parses UTF-8 `bytes`. NUL bytes become U+FFFD first, as a browser reads them: libxml2
    /// stops at a NUL in text and takes leading ones for a sign of UTF-32.
    public static func parse(_ bytes: [UInt8], handler: any HTMLStreamHandler) {
        guard bytes.contains(0) else { return bytes.withUnsafeBufferPointer { parse($0, handler: handler) } }
        var clean: [UInt8] = []
        clean.reserveCapacity(bytes.count + 16)
        for b in bytes {
            if b == 0 { clean += [0xEF, 0xBF, 0xBD] } else { clean.append(b) }
        }
        clean.withUnsafeBufferPointer { parse($0, handler: handler) }
    }
}

private final class HandlerBox {
    let handler: any HTMLStreamHandler
    var depth = 0
    var impliedParagraphs: [Int] = []  // depths of the paragraphs libxml2 made up
    init(_ handler: any HTMLStreamHandler) { self.handler = handler }
    static func from(_ ctx: UnsafeMutableRawPointer) -> HandlerBox {
        Unmanaged<HandlerBox>.fromOpaque(mp_html_sax_user(ctx)!).takeUnretainedValue()
    }
}

/// An element's attributes as the parser gave them: names lowercase, values with entities
/// decoded (nil for a bare attribute such as `nowrap`). Valid only during `startElement`.
public struct HTMLAttributes: Sequence {
    fileprivate let raw: UnsafePointer<UnsafePointer<UInt8>?>?

    public struct Iterator: IteratorProtocol {
        fileprivate var cursor: UnsafePointer<UnsafePointer<UInt8>?>?
        public mutating func next() -> (name: UnsafeBufferPointer<UInt8>, value: UnsafeBufferPointer<UInt8>?)? {
            guard let p = cursor, let name = p[0] else { return nil }
            let value = p[1]
            cursor = p + 2
            return (UnsafeBufferPointer(start: name, count: strlen(name)),
                    value.map { UnsafeBufferPointer(start: $0, count: strlen($0)) })
        }
    }

    public func makeIterator() -> Iterator { Iterator(cursor: raw) }
}
