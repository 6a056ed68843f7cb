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
                        h.startElement(UnsafeBufferPointer(start: name, count: strlen(name)),
                                       HTMLAttributes(raw: attributes.map { UnsafePointer($0) }))
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
                    HTMLStreamHandler.with(ctx) { $0.text(UnsafeBufferPointer(start: chars, count: Int(length))) }
                }, { ctx, chars, length in  // script and style: raw text, where nothing is decoded
                    guard let ctx, let chars, length > 0 else { return }
                    let raw = References.unescaped(Array(UnsafeBufferPointer(start: chars, count: Int(length))))
                    HTMLStreamHandler.with(ctx) { h in raw.withUnsafeBufferPointer { h.text($0) } }
                })
            }
        }
    }

    /// Parses UTF-8 `bytes`, prepared as `HTMLInput` says.
    public static func parse(_ bytes: [UInt8], handler: HTMLStreamHandler) {
        HTMLInput.prepared(bytes) { parse($0, handler: handler) }
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
