import HTMLDOM
import JSONLines

/// Reads HTML microdata (WHATWG HTML, "Microdata") into JSON-LD items as a document is walked:
/// an element with `itemscope` is an item, `itemtype` its type, each `itemprop` under it (up
/// to the next item) a property; an item with `itemprop` is the value of its parent's property,
/// any other is an item of its own. An item with no property is left out. A property found
/// outside any item belongs to the item before it: an HTML parser closes a `<p itemscope>`
/// at the first `<div itemprop>` in it, which senders (Google's own examples) write.
struct MicrodataReader {
    private(set) var items: [JSONValue] = []

    private struct Item {
        var context: String?
        var type: String?
        var properties: [(String, JSONValue)] = []

        var json: JSONValue {
            var members: [(String, JSONValue)] = []
            if let context { members.append(("@context", .string(context))) }
            if let type { members.append(("@type", .string(type))) }
            return .object(members + properties)
        }
    }

    private enum Frame { case plain, item(names: [String]), text }
    private var frames: [Frame] = []
    private var open: [Item] = []
    private var texts: [(names: [String], text: String)] = []

    mutating func enter(_ node: HTMLNode) {
        if node.kind == .text {
            for k in texts.indices { texts[k].text += node.text }
            return
        }
        guard node.kind == .element else { return }
        let names = node.attribute("itemprop").map(words) ?? []
        if node.attribute("itemscope") != nil {
            frames.append(.item(names: open.isEmpty && items.isEmpty ? [] : names))
            var item = Item()
            if let type = node.attribute("itemtype").flatMap({ words($0).first }) {
                if let slash = type.lastIndex(of: "/") {
                    item.context = String(type[..<slash])
                    item.type = String(type[type.index(after: slash)...])
                } else {
                    item.type = type
                }
            }
            open.append(item)
        } else if !names.isEmpty, !open.isEmpty || !items.isEmpty {
            if let value = Self.attributeValue(node) {
                add(names, .string(value))
                frames.append(.plain)
            } else {
                texts.append((names, ""))
                frames.append(.text)
            }
        } else {
            frames.append(.plain)
        }
    }

    mutating func leave(_ node: HTMLNode) {
        guard node.kind == .element, let frame = frames.popLast() else { return }
        switch frame {
        case .plain: break
        case .text:
            let collected = texts.removeLast()
            add(collected.names, .string(Self.collapsed(collected.text)))
        case .item(let names):
            let item = open.removeLast()
            if !names.isEmpty {
                add(names, item.json)
            } else if !item.properties.isEmpty {
                items.append(item.json)
            }
        }
    }

    private mutating func add(_ names: [String], _ value: JSONValue) {
        if open.isEmpty {  // a property left outside by the parser: the last item's
            guard case .object(let members)? = items.last else { return }
            items[items.count - 1] = .object(Self.adding(names, value, to: members))
        } else {
            open[open.count - 1].properties = Self.adding(names, value, to: open[open.count - 1].properties)
        }
    }

    /// A second value of a property makes it a list.
    private static func adding(_ names: [String], _ value: JSONValue, to members: [(String, JSONValue)]) -> [(String, JSONValue)] {
        var members = members
        for name in names {
            if let k = members.firstIndex(where: { $0.0 == name }) {
                let old = members[k].1
                members[k].1 = .array((old.arrayValue ?? [old]) + [value])
            } else {
                members.append((name, value))
            }
        }
        return members
    }

    /// The value an element's attribute gives its property (HTML's rules per element, and
    /// `content` where the attribute is missing, as Lufthansa writes `<link content>`), nil
    /// when the value is the element's text.
    private static func attributeValue(_ node: HTMLNode) -> String? {
        func value(_ name: String) -> String { node.attribute(name) ?? node.attribute("content") ?? "" }
        switch node.name {
        case "meta": return value("content")
        case "audio", "embed", "iframe", "img", "source", "track", "video": return value("src")
        case "a", "area", "link": return value("href")
        case "object": return value("data")
        case "data", "meter": return value("value")
        case "time": return node.attribute("datetime")
        default: return nil
        }
    }

    private func words(_ s: String) -> [String] { s.split(whereSeparator: \.isWhitespace).map(String.init) }

    /// Text as it reads: each line's runs of white space (no-break spaces too) made one space,
    /// and the lines that are left joined by line breaks.
    private static func collapsed(_ s: String) -> String {
        s.split(whereSeparator: \.isNewline)
            .map { $0.split(whereSeparator: \.isWhitespace).joined(separator: " ") }
            .filter { !$0.isEmpty }
            .joined(separator: "\n")
    }
}
