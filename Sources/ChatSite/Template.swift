/// chat-render's templates: HTML with a few mustache-style tags, filled by field.
///
///     {{name}}               the field's text, escaped for HTML
///     {{{name}}}             the field as it is (markup chat-render made and escaped itself)
///     {{#name}}…{{/name}}    the part when the field is not empty
///     {{^name}}…{{/name}}    the part when it is empty
///     {{@key}}               a word of the site's (SiteWord) in the page's language
///
/// A template names only fields its kind has (`Field`'s cases); an unknown one is an error when
/// the template is read, not an empty hole in every page.
public struct Template<Field: CaseIterable & RawRepresentable<String> & Equatable>: Sendable where Field.AllCases == [Field] {
    enum Node: Sendable {
        case text([UInt8])
        case field(Int, raw: Bool)
        case section(Int, inverted: Bool, [Node])
        case word(SiteWord)
    }

    public struct SyntaxError: Error, CustomStringConvertible {
        public var description: String
    }

    private(set) var nodes: [Node]

    public init(name: String, text: [UInt8]) throws(SyntaxError) {
        var index: [String: Int] = [:]
        // by raw value: naming a case by interpolation would cost a start of chat-render
        // dynamic casts (a scan of every conformance in the program)
        for (k, f) in Field.allCases.enumerated() { index[f.rawValue] = k }
        var stack: [(name: String, field: Int, inverted: Bool, nodes: [Node])] = [("", 0, false, [])]
        var i = 0, textStart = 0
        func line(_ at: Int) -> Int { text[..<at].reduce(1) { $0 + ($1 == 0x0A ? 1 : 0) } }
        func fail(_ what: String, at: Int) -> SyntaxError { SyntaxError(description: "\(name):\(line(at)): \(what)") }
        func flushText(upTo end: Int) {
            if end > textStart { stack[stack.count - 1].nodes.append(.text(Array(text[textStart..<end]))) }
        }
        while i + 1 < text.count {
            guard text[i] == UInt8(ascii: "{"), text[i + 1] == UInt8(ascii: "{") else { i += 1; continue }
            let raw = i + 2 < text.count && text[i + 2] == UInt8(ascii: "{")
            let open = raw ? 3 : 2, close: [UInt8] = raw ? Array("}}}".utf8) : Array("}}".utf8)
            guard let end = Self.find(close, in: text, from: i + open) else { throw fail("'{{' without '}}'", at: i) }
            let tag = Substring(String(decoding: text[(i + open)..<end], as: UTF8.self)).trimmingSpaces
            flushText(upTo: i)
            if !raw, tag.first == "@" {
                guard let word = SiteWord(rawValue: String(tag.dropFirst())) else { throw fail("unknown word '\(tag.dropFirst())' (the words are words/en.json's keys)", at: i) }
                stack[stack.count - 1].nodes.append(.word(word))
                i = end + close.count
                textStart = i
                continue
            }
            let sigil = raw ? nil : tag.first.flatMap { "#^/".contains($0) ? $0 : nil }
            let fieldName = sigil == nil ? tag : String(tag.dropFirst())
            guard let field = index[fieldName] else {
                throw fail("unknown field '\(fieldName)' (this template has \(Field.allCases.map(\.rawValue).joined(separator: ", ")))", at: i)
            }
            switch sigil {
            case "#", "^": stack.append((fieldName, field, sigil == "^", []))
            case "/":
                guard stack.count > 1, stack[stack.count - 1].name == fieldName else { throw fail("'{{/\(fieldName)}}' closes no section", at: i) }
                let section = stack.removeLast()
                stack[stack.count - 1].nodes.append(.section(section.field, inverted: section.inverted, section.nodes))
            default: stack[stack.count - 1].nodes.append(.field(field, raw: raw))
            }
            i = end + close.count
            textStart = i
        }
        flushText(upTo: text.count)
        guard stack.count == 1 else { throw fail("section '\(stack[stack.count - 1].name)' is not closed", at: text.count) }
        nodes = stack[0].nodes
    }

    private static func find(_ needle: [UInt8], in text: [UInt8], from: Int) -> Int? {
        var i = from
        while i + needle.count <= text.count {
            if text[i] == needle[0], text[i..<(i + needle.count)].elementsEqual(needle) { return i }
            i += 1
        }
        return nil
    }

    /// The template with its words in `words`' language (unlocalized, it shows them in English).
    public func localized(_ words: SiteWords) -> Template {
        var copy = self
        copy.nodes = Self.localized(nodes, words)
        return copy
    }

    private static func localized(_ nodes: [Node], _ words: SiteWords) -> [Node] {
        nodes.map { node in
            switch node {
            case .word(let w): .text(HTMLEscape.text(words.text(w)))
            case .section(let f, let inverted, let inner): .section(f, inverted: inverted, localized(inner, words))
            default: node
            }
        }
    }

    /// Fields by their place in `Field.allCases`; a missing one is empty.
    public func render(_ fields: [[UInt8]], into out: inout [UInt8]) {
        Self.render(nodes, fields, into: &out)
    }

    private static func render(_ nodes: [Node], _ fields: [[UInt8]], into out: inout [UInt8]) {
        for node in nodes {
            switch node {
            case .text(let t): out += t
            case .field(let f, let raw):
                guard f < fields.count else { continue }
                if raw { out += fields[f] } else { HTMLEscape.text(fields[f], into: &out) }
            case .section(let f, let inverted, let inner):
                if (f < fields.count && !fields[f].isEmpty) != inverted { render(inner, fields, into: &out) }
            case .word(let w): HTMLEscape.text(SiteWords.english.text(w).utf8, into: &out)
            }
        }
    }
}

/// The values of one template's fields, set by name.
public struct Fields<Field: CaseIterable & RawRepresentable<String> & Equatable> where Field.AllCases == [Field] {
    public private(set) var values: [[UInt8]] = Array(repeating: [], count: Field.allCases.count)
    public init() {}
    @inline(__always) private static func place(_ f: Field) -> Int { Field.allCases.firstIndex(of: f)! }
    public subscript(_ f: Field) -> [UInt8] {
        get { values[Self.place(f)] }
        set { values[Self.place(f)] = newValue }
    }
    public mutating func set(_ f: Field, _ text: String?) { values[Self.place(f)] = Array((text ?? "").utf8) }
}
