internal import CLibXML2

/// An HTML document parsed by libxml2's HTML parser (recover mode, no network), owned by this
/// object. Input must be UTF-8: the parser is told so and ignores any `<meta charset>`; it is
/// prepared as `HTMLInput` says.
public final class HTMLDocument {
    private let doc: OpaquePointer?  // htmlDocPtr, kept opaque so no C type leaks into a signature

    public init(utf8 bytes: [UInt8]) {
        HTMLLibrary.initializeOnce()
        doc = HTMLInput.prepared(bytes) { buf -> OpaquePointer? in
            guard let base = buf.baseAddress, buf.count > 0 else { return nil }
            let p = base.withMemoryRebound(to: CChar.self, capacity: buf.count) {
                htmlReadMemory($0, Int32(clamping: buf.count), nil, "UTF-8", mp_html_parse_options())
            }
            return p.map { OpaquePointer($0) }
        }
    }

    deinit {
        if let doc { xmlFreeDoc(UnsafeMutablePointer<xmlDoc>(doc)) }
    }

    /// Visits every node in document order; return false from `visit` to skip a node's children.
    public func walk(_ visit: (HTMLNode) -> Bool) {
        guard let doc, let root = xmlDocGetRootElement(UnsafeMutablePointer<xmlDoc>(doc)) else { return }
        visitTree(root, visit)
    }

    /// Visits every node in document order, with `leave` called after an element's children
    /// (for closing blocks); return false from `enter` to skip the children (then no `leave`).
    public func walk(enter: (HTMLNode) -> Bool, leave: (HTMLNode) -> Void) {
        guard let doc, let root = xmlDocGetRootElement(UnsafeMutablePointer<xmlDoc>(doc)) else { return }
        visitTree(root, enter, leave)
    }

    private func visitTree(_ node: UnsafeMutablePointer<xmlNode>, _ enter: (HTMLNode) -> Bool, _ leave: (HTMLNode) -> Void) {
        let n = HTMLNode(raw: OpaquePointer(node))
        guard enter(n) else { return }
        var child = node.pointee.children
        while let c = child {
            visitTree(c, enter, leave)
            child = c.pointee.next
        }
        leave(n)
    }

    private func visitTree(_ node: UnsafeMutablePointer<xmlNode>, _ visit: (HTMLNode) -> Bool) {
        guard visit(HTMLNode(raw: OpaquePointer(node))) else { return }
        var child = node.pointee.children
        while let c = child {
            visitTree(c, visit)
            child = c.pointee.next
        }
    }

    /// The text of all text nodes outside script and style, in document order.
    public var textContent: String {
        var out = ""
        walk { node in
            switch node.kind {
            case .text: out += node.text
            case .element: return node.name != "script" && node.name != "style"
            default: break
            }
            return true
        }
        return out
    }
}

/// A view of one node of an `HTMLDocument`; valid while the document lives.
public struct HTMLNode {
    public enum Kind: Sendable { case element, text, comment, other }
    fileprivate let raw: OpaquePointer

    private var node: UnsafeMutablePointer<xmlNode> { UnsafeMutablePointer<xmlNode>(raw) }

    public var kind: Kind {
        switch node.pointee.type {
        case XML_ELEMENT_NODE: .element
        case XML_TEXT_NODE, XML_CDATA_SECTION_NODE: .text
        case XML_COMMENT_NODE: .comment
        default: .other
        }
    }

    /// Lowercase element name ("" for other nodes).
    public var name: String {
        guard kind == .element, let n = node.pointee.name else { return "" }
        return String(cString: n).lowercased()
    }

    public var text: String {
        guard let content = node.pointee.content else { return "" }
        return String(cString: content)
    }

    /// The value of one attribute (name in lowercase), nil when absent.
    public func attribute(_ name: String) -> String? {
        guard kind == .element else { return nil }
        guard let v = xmlGetProp(node, name) else { return nil }
        defer { mp_xmlFree(v) }
        return String(cString: v)
    }

    public var attributes: [(name: String, value: String)] {
        var result: [(String, String)] = []
        var attr = node.pointee.properties
        while let a = attr {
            let name = a.pointee.name.map { String(cString: $0).lowercased() } ?? ""
            var value = ""
            if let v = xmlNodeListGetString(node.pointee.doc, a.pointee.children, 1) {
                value = String(cString: v)
                mp_xmlFree(v)
            }
            result.append((name, value))
            attr = a.pointee.next
        }
        return result
    }
}

/// libxml2 must be initialized once, on the main thread, before any parse.
enum HTMLLibrary {
    nonisolated(unsafe) private static var initialized = false
    static func initializeOnce() {
        if !initialized {
            xmlInitParser()
            initialized = true
        }
    }
}
