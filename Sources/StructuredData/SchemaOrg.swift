import HTMLDOM
import JSONLines
import UTF8Text

/// The schema.org markup of an HTML message, as senders write it for mail clients: JSON-LD
/// scripts and microdata, both read into JSON-LD items (objects with an `@type`). Real senders'
/// markup is often broken: JSON with trailing commas, objects written one after another,
/// HTML entities or raw line breaks inside it. What can be repaired is read; what cannot is a
/// named defect.
public enum SchemaOrg {
    public struct Markup: Equatable, Sendable {
        public var items: [JSONValue] = []
        public var defects: [String] = []

        public init(items: [JSONValue] = [], defects: [String] = []) {
            self.items = items
            self.defects = defects
        }
    }

    /// Whether HTML (decoded, or as a JSON string as written) may hold markup: a byte search,
    /// so that mail without any (nearly all of it) is never parsed.
    public static func mayHaveMarkup(_ html: ArraySlice<UInt8>) -> Bool {
        html.withUnsafeBytes { raw in
            let b = raw.bindMemory(to: UInt8.self)
            return ByteSearch.containsEither(b, jsonLDNeedle, microdataNeedle)
        }
    }

    private static let jsonLDNeedle = Array("ld+json".utf8)
    private static let microdataNeedle = Array("itemscope".utf8)
    private static let scriptOpen = Array("<script".utf8), scriptClose = Array("</script".utf8)

    /// The markup of a message record: the items an earlier event-extract read from the
    /// sender's HTML (`schema_org`; html-sanitize removes scripts and microdata from `html`
    /// after it), else those of `html` itself.
    public static func markup(of record: JSONRecord) -> Markup {
        if let items = record.value("schema_org")?.arrayValue { return Markup(items: items) }
        guard let raw = record.rawValue("html"), mayHaveMarkup(raw), let html = record.string("html") else { return Markup() }
        return read(html: Array(html.utf8))
    }

    /// Every item of the JSON-LD scripts, in document order, then every top-level microdata item.
    public static func read(html: [UInt8]) -> Markup {
        var markup = Markup()
        for script in jsonLDScripts(html) {
            if let items = jsonLD(script) {
                markup.items += items
            } else if !script.allSatisfy({ $0 <= 0x20 }) {
                markup.defects.append("unreadable_json_ld")
            }
        }
        if html.withUnsafeBufferPointer({ ByteSearch.contains($0, microdataNeedle) }) {
            let document = HTMLDocument(utf8: html)
            var microdata = MicrodataReader()
            document.walk(enter: { node in
                if node.kind == .element, node.name == "script" || node.name == "style" { return false }
                microdata.enter(node)
                return true
            }, leave: { microdata.leave($0) })
            markup.items += microdata.items
        }
        var seen = Set<String>()
        markup.defects = markup.defects.filter { seen.insert($0).inserted }
        return markup
    }

    /// The text of each `<script type="application/ld+json">`, as written: found in the bytes,
    /// since an HTML parser's tree no longer holds a script's text as the sender wrote it.
    static func jsonLDScripts(_ html: [UInt8]) -> [[UInt8]] {
        var scripts: [[UInt8]] = []
        var i = 0
        while let open = ByteSearch.firstIndex(of: scriptOpen, in: html, from: i, ignoringASCIICase: true) {
            guard let tagEnd = html[open...].firstIndex(of: UInt8(ascii: ">")) else { break }
            let tag = ASCII.lowercased(html[open..<tagEnd])
            let end = ByteSearch.firstIndex(of: scriptClose, in: html, from: tagEnd + 1, ignoringASCIICase: true) ?? html.count
            if ByteSearch.contains(tag, jsonLDNeedle) { scripts.append(Array(html[(tagEnd + 1)..<end])) }
            i = end
        }
        return scripts
    }

    /// The items of one JSON-LD script, repaired when it is not valid JSON; nil when unreadable.
    static func jsonLD(_ bytes: [UInt8]) -> [JSONValue]? {
        if let value = try? JSONValue.parse(bytes) { return items(value) }
        // repaired inside a list, so that objects written one after another (`{…}{…}`) read too;
        // then with HTML's references decoded, for a script written `{&quot;@type&quot;: …}`
        func repaired(_ b: [UInt8]) -> JSONValue? {
            try? JSONValue.parse(LenientJSON.repaired([UInt8(ascii: "[")] + b + [UInt8(ascii: "]")]))
        }
        guard let value = repaired(bytes) ?? (bytes.contains(UInt8(ascii: "&")) ? repaired(HTMLEntities.decoded(bytes)) : nil) else { return nil }
        return items(value)
    }

    /// A JSON-LD value as its list of items: a list at the top is flattened, and an `@graph`'s
    /// members are items of their own.
    static func items(_ value: JSONValue) -> [JSONValue] {
        switch value {
        case .array(let list): return list.flatMap(items)
        case .object(let members):
            if let graph = value["@graph"] {
                let context = value["@context"]
                return items(graph).map { item in
                    guard let context, item["@context"] == nil, case .object(let m) = item else { return item }
                    return .object([("@context", context)] + m)
                }
            }
            return members.isEmpty ? [] : [value]
        default: return []
        }
    }

    /// The schema.org type names of an item: `@type` without its `http://schema.org/` prefix,
    /// one or several.
    public static func types(_ item: JSONValue) -> [String] {
        let written: [JSONValue] = item["@type"].map { $0.arrayValue ?? [$0] } ?? []
        return written.compactMap(\.stringValue).map { name in
            if let slash = name.lastIndex(where: { $0 == "/" || $0 == ":" }) { return String(name[name.index(after: slash)...]) }
            return name
        }
    }

    /// A property's text: a string, a number as written, or a list's first text.
    public static func text(_ value: JSONValue?) -> String? {
        switch value {
        case .string(let s)?:
            let t = s.trimmingWhitespace
            return t.isEmpty ? nil : t
        case .number(let n)?: return n
        case .array(let list)?: return list.lazy.compactMap { text($0) }.first
        default: return nil
        }
    }
}

