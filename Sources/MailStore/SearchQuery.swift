import CivilTime
import SQLite

/// A search in the language notmuch and Gmail users type, as SQL over the store's messages:
/// words, "phrases", prefix*, `*` (everything), from: to: subject: body:, date:A..B, is:, label:, kind:,
/// has:attachment, id:, conversation:, AND OR NOT (any case), -word, and parentheses. Words next
/// to each other must all match. At most `maximumTerms` terms and `maximumDepth` nested
/// parentheses and NOTs; an error says where in the query it is. See mailstore(1).
public struct SearchQuery {
    /// The condition on `m`, the messages table, and its parameters in order.
    public private(set) var sql: String
    public private(set) var parameters: [SQLValue]
    /// Whether it asks only which messages are in sets of row ids (words, labels, kinds) and
    /// never a message's own columns (id:, conversation:, date:, `*`): the messages it finds are
    /// then best looked up in a small index by row id than in the table, whose rows are the
    /// records themselves.
    public let asksSetsOnly: Bool

    /// `messages m` for a query that reads no more of each message it finds than its row id,
    /// id, date and conversation.
    public var messagesForIDs: String { asksSetsOnly ? "messages m INDEXED BY messages_listing" : "messages m" }

    /// How deeply parentheses and NOTs may nest in one another (`-word` does not count), and
    /// how many terms a query may have: a query over either is an error, found before the
    /// parser goes deeper. With these the SQL written stays within what SQLite's parser reads
    /// (its stack holds about 80 nested expressions; see `write`). See mailstore(1).
    public static let maximumDepth = 32
    public static let maximumTerms = 256

    public struct SyntaxError: Error, CustomStringConvertible {
        public var description: String
        /// Where in the query it is, counting characters from 1 (the query's words joined by
        /// spaces); nil for an empty query.
        public var position: Int?

        init(description: String) {
            self.description = description
        }

        /// At a character of the query (from 0); a long word in `what` is cut short.
        init(at offset: Int, _ what: String) {
            position = offset + 1
            description = "at \(offset + 1): " + (what.count > 200 ? what.prefix(200) + "…" : what)
        }
    }

    public init(_ text: String) throws(SyntaxError) {
        let chars = Array(text)
        var parser = Parser(tokens: try Self.tokens(chars), end: chars.count)
        guard !parser.tokens.isEmpty else { throw SyntaxError(description: "the query is empty") }
        let node = try parser.parseOr()
        if let t = parser.next {
            // parseOr stops only at a ')' it did not open
            throw SyntaxError(at: t.offset, "a '\(t.text)' that closes nothing")
        }
        var sql = ""
        var parameters: [SQLValue] = []
        asksSetsOnly = try Self.write(Self.ordered(node).node, into: &sql, &parameters, inside: nil)
        self.sql = sql
        self.parameters = parameters
    }

    // MARK: tokens

    enum TokenKind: Equatable { case open, close, word, phrase, and, or, not }

    struct Token {
        var kind: TokenKind
        var text: String
        /// A `field:` before the word or phrase.
        var field: String?
        /// Written with a leading `-`.
        var negated = false
        /// Where it starts in the query, in characters from 0.
        var offset = 0
    }

    static func tokens(_ chars: [Character]) throws(SyntaxError) -> [Token] {
        var result: [Token] = []
        var i = 0
        while i < chars.count {
            let c = chars[i]
            let start = i
            if c.isWhitespace { i += 1; continue }
            if c == "(" { result.append(Token(kind: .open, text: "(", offset: start)); i += 1; continue }
            if c == ")" { result.append(Token(kind: .close, text: ")", offset: start)); i += 1; continue }
            var negated = false
            if c == "-", i + 1 < chars.count, !chars[i + 1].isWhitespace {
                negated = true
                i += 1
            }
            // a field name: letters up to a colon
            var field: String?
            var j = i
            while j < chars.count, chars[j].isLetter { j += 1 }
            if j > i, j < chars.count, chars[j] == ":", j + 1 < chars.count, !chars[j + 1].isWhitespace,
               Self.fields.contains(String(chars[i..<j]).lowercased()) {
                field = String(chars[i..<j]).lowercased()
                i = j + 1
            }
            if i < chars.count, chars[i] == "\"" {
                guard let close = chars[(i + 1)...].firstIndex(of: "\"") else {
                    throw SyntaxError(at: i, "a phrase is not closed: \(String(chars[i...]))")
                }
                result.append(Token(kind: .phrase, text: String(chars[(i + 1)..<close]), field: field, negated: negated, offset: start))
                i = close + 1
                continue
            }
            var k = i
            while k < chars.count, !chars[k].isWhitespace, chars[k] != "(", chars[k] != ")" { k += 1 }
            let word = String(chars[i..<k])
            i = k
            if field == nil, !negated {
                switch word {
                case "AND", "and": result.append(Token(kind: .and, text: word, offset: start)); continue
                case "OR", "or": result.append(Token(kind: .or, text: word, offset: start)); continue
                case "NOT", "not": result.append(Token(kind: .not, text: word, offset: start)); continue
                default: break
                }
            }
            if word.isEmpty { throw SyntaxError(at: start, "'\(field.map { $0 + ":" } ?? "-")' has nothing after it") }
            result.append(Token(kind: .word, text: word, field: field, negated: negated, offset: start))
        }
        return result
    }

    static let fields: Set<String> = ["from", "to", "subject", "body", "date", "is", "label", "tag", "kind", "has", "id", "mid", "conversation", "thread"]

    // MARK: the tree

    /// AND and OR of any number of parts: `a OR b OR c` is one node, not a node in a node, so
    /// that its SQL nests no deeper than the query does.
    indirect enum Node {
        case term(Token)
        case and([Node])
        case or([Node])
        case not(Node)

        var isOr: Bool { if case .or = self { true } else { false } }
        var isGroup: Bool {
            switch self {
            case .and, .or: true
            case .term, .not: false
            }
        }
    }

    /// A recursive descent that counts how deep it is before it goes deeper: a query nested
    /// past `maximumDepth`, or with more than `maximumTerms` terms, is an error at the token
    /// that goes over, found in time linear in the query.
    struct Parser {
        var tokens: [Token]
        /// The query's length in characters, where "the query ends" is.
        var end: Int
        var position = 0
        /// The parentheses and NOTs the parser is in.
        var depth = 0
        var terms = 0

        var next: Token? { position < tokens.count ? tokens[position] : nil }

        mutating func parseOr() throws(SyntaxError) -> Node {
            var parts = [try parseAnd()]
            while next?.kind == .or {
                position += 1
                parts.append(try parseAnd())
            }
            return parts.count == 1 ? parts[0] : .or(parts.flatMap { part -> [Node] in
                if case .or(let inner) = part { inner } else { [part] }
            })
        }

        mutating func parseAnd() throws(SyntaxError) -> Node {
            var parts = [try parseUnary()]
            while let t = next, t.kind != .or, t.kind != .close {
                if t.kind == .and { position += 1 }
                parts.append(try parseUnary())
            }
            return parts.count == 1 ? parts[0] : .and(parts.flatMap { part -> [Node] in
                if case .and(let inner) = part { inner } else { [part] }
            })
        }

        mutating func deeper(_ t: Token) throws(SyntaxError) {
            guard depth < SearchQuery.maximumDepth else {
                throw SyntaxError(at: t.offset, "more than \(SearchQuery.maximumDepth) nested parentheses and NOTs")
            }
            depth += 1
        }

        mutating func parseUnary() throws(SyntaxError) -> Node {
            guard let t = next else { throw SyntaxError(at: end, "the query ends where a term should follow") }
            switch t.kind {
            case .not:
                try deeper(t)
                position += 1
                let inner = try parseUnary()
                depth -= 1
                return .not(inner)
            case .open:
                try deeper(t)
                position += 1
                let inner = try parseOr()
                guard next?.kind == .close else { throw SyntaxError(at: t.offset, "a '(' is not closed") }
                position += 1
                depth -= 1
                return inner
            case .close:
                throw SyntaxError(at: t.offset, "a ')' that closes nothing")
            case .and, .or:
                throw SyntaxError(at: t.offset, "'\(t.text)' needs a term on each side")
            case .word, .phrase:
                guard terms < SearchQuery.maximumTerms else {
                    throw SyntaxError(at: t.offset, "more than \(SearchQuery.maximumTerms) terms")
                }
                terms += 1
                position += 1
                return t.negated ? .not(.term(t)) : .term(t)
            }
        }
    }

    // MARK: SQL

    // SQLite's parser (a LALR parser with a stack of 100) overflows on SQL nested about 80
    // deep: each '(' or NOT it is inside takes one place, and each AND or OR whose left side
    // is read and whose right side is being read takes two more (the side and the operator).
    // So AND and OR are written flat (`a OR b OR c`, never `((a OR b) OR c)`), parentheses
    // only where SQL needs them (an OR inside an AND, a group after NOT), and a group's most
    // nested part first, while nothing is pending. Then the stack holds the query's depth and
    // two more for each level where two parts nest alike, which takes about twice the terms a
    // level: over every shape within the limits (32 deep, 256 terms) at most 49, by a dynamic
    // program over the shapes (SearchLimitsTests run the worst). 64 deep could reach 81.

    /// `node` with the parts of each AND and OR in the order SQLite's parser is best given
    /// them (the most deeply nested first, else as written), and how deep its SQL nests.
    static func ordered(_ node: Node) -> (node: Node, nesting: Int) {
        switch node {
        case .term(let t):
            return (node, t.field == "date" ? 1 : 0)
        case .not(let a):
            let (inner, nesting) = ordered(a)
            return (.not(inner), nesting + 1 + (inner.isGroup ? 1 : 0))
        case .and(let parts), .or(let parts):
            let isAnd = if case .and = node { true } else { false }
            var children = parts.map { part in
                let (child, nesting) = ordered(part)
                // an OR inside an AND is written in parentheses
                return (node: child, nesting: nesting + (isAnd && child.isOr ? 1 : 0))
            }
            // a stable sort: parts that nest alike stay as written
            children = children.enumerated().sorted { ($0.element.nesting, $1.offset) > ($1.element.nesting, $0.offset) }.map(\.element)
            let nesting = children.enumerated().map { $0.element.nesting + ($0.offset > 0 ? 2 : 0) }.max() ?? 0
            let nodes = children.map(\.node)
            return (isAnd ? .and(nodes) : .or(nodes), nesting)
        }
    }

    /// Writes the condition of `node`; returns whether it asks only sets of row ids. `inside`
    /// is the node it is a part of, for the parentheses SQL needs: an OR inside an AND or a
    /// NOT, an AND inside a NOT; the whole query's AND or OR is in parentheses too, so that
    /// it can be joined to other conditions.
    static func write(_ node: Node, into sql: inout String, _ parameters: inout [SQLValue], inside: Node?) throws(SyntaxError) -> Bool {
        switch node {
        case .and(let parts), .or(let parts):
            let parenthesized = switch inside {
            case nil, .not: true
            case .and: node.isOr
            default: false
            }
            if parenthesized { sql += "(" }
            var setsOnly = true
            for (i, part) in parts.enumerated() {
                if i > 0 { sql += node.isOr ? " OR " : " AND " }
                if try !write(part, into: &sql, &parameters, inside: node) { setsOnly = false }
            }
            if parenthesized { sql += ")" }
            return setsOnly
        case .not(let a):
            sql += "NOT "
            return try write(a, into: &sql, &parameters, inside: node)
        case .term(let t):
            do { return try term(t, into: &sql, &parameters) } catch {
                throw SyntaxError(at: t.offset, error.description)
            }
        }
    }

    /// Writes the condition of a term; returns whether it is a set of row ids (a word, a label,
    /// a kind) rather than a test of the message's own columns.
    static func term(_ t: Token, into sql: inout String, _ parameters: inout [SQLValue]) throws(SyntaxError) -> Bool {
        func fts(_ column: String?) {
            sql += "m.rowid IN (SELECT rowid FROM search WHERE search MATCH ?)"
            parameters.append(.text((column.map { $0 + " : " } ?? "") + ftsString(t.text, prefix: t.kind == .word)))
        }
        // filters that an index answers, so that a query in date order reads only the
        // messages it finds, not a page of every message
        func label(_ name: String) {
            sql += "m.rowid IN (SELECT message FROM message_labels WHERE label = ?)"
            parameters.append(.text(name))
        }
        let value = t.text
        switch t.field {
        case nil where t.kind == .word && value == "*":
            sql += "1"  // every message, as in notmuch
            return false
        case nil: fts(nil)
        case "from": fts("sender")
        case "to": fts("recipients")
        case "subject": fts("subject")
        case "body": fts("{body html}")
        case "label", "tag": label(value)
        case "is":
            switch value.lowercased() {
            case "read": sql += "NOT "; label("UNREAD")
            case "archived": sql += "NOT "; label("INBOX")
            case "unread", "inbox", "starred", "sent", "draft", "important", "spam", "trash": label(value.uppercased())
            default: throw SyntaxError(description: "is:\(value): not a state (unread, read, inbox, archived, starred, sent, draft, important, spam, trash)")
            }
        case "kind":
            sql += "m.rowid IN (SELECT rowid FROM messages WHERE mail_kind = ?)"
            parameters.append(.text(value.lowercased()))
        case "has":
            guard value.lowercased() == "attachment" else { throw SyntaxError(description: "has:\(value): only has:attachment is known") }
            sql += "m.rowid IN (SELECT rowid FROM messages WHERE attachment_count > 0)"
        case "id", "mid":
            sql += "m.id = ?"
            parameters.append(.text(value.hasPrefix("<") && value.hasSuffix(">") ? String(value.dropFirst().dropLast()) : value))
            return false
        case "conversation", "thread":
            sql += "m.conversation_id = ?"
            parameters.append(.text(value))
            return false
        case "date":
            let (from, to) = try dateRange(value)
            var parts: [String] = []
            if let from { parts.append("m.date >= ?"); parameters.append(.text(from)) }
            if let to { parts.append("m.date < ?"); parameters.append(.text(to)) }
            sql += parts.isEmpty ? "1" : "(" + parts.joined(separator: " AND ") + ")"
            return false
        default:
            fts(nil)
        }
        return true
    }

    /// An FTS5 string for a word or phrase: its text quoted (so that FTS5 reads no operator in
    /// it), Chinese and Japanese as the indexed characters and pairs; a word ending in `*` is a
    /// prefix.
    static func ftsString(_ text: String, prefix: Bool) -> String {
        var text = text
        let isPrefix = prefix && text.hasSuffix("*") && text.count > 1
        if isPrefix { text.removeLast() }
        let indexed = SearchText.indexed(text)
        return "\"" + indexed.replacing("\"", with: "\"\"") + "\"" + (isPrefix ? " *" : "")
    }

    /// `date:` as notmuch reads it: `A..B` (either side may be left out), or one date meaning
    /// that whole day, month or year. A side is YYYY, YYYY-MM, YYYY-MM-DD, `today` or
    /// `yesterday` (UTC); `B` includes all of its day, month or year. As RFC 3339 bounds:
    /// [from, to).
    static func dateRange(_ value: String) throws(SyntaxError) -> (String?, String?) {
        let sides = value.split(separator: "..", omittingEmptySubsequences: false).map(String.init)
        guard sides.count <= 2 else { throw SyntaxError(description: "date:\(value): use date:A..B") }
        func span(_ s: String) throws(SyntaxError) -> (start: Int, end: Int)? {
            if s.isEmpty { return nil }
            let now = Int(Glibc.time(nil))
            let today = now - now % 86400
            switch s.lowercased() {
            case "today": return (today, today + 86400)
            case "yesterday": return (today - 86400, today)
            default: break
            }
            let parts = s.split(separator: "-", omittingEmptySubsequences: false).map { Int($0) }
            guard parts.allSatisfy({ $0 != nil }), (1...3).contains(parts.count), let y = parts[0], (1000...9999).contains(y) else {
                throw SyntaxError(description: "date:\(value): '\(s)' is not a date (YYYY, YYYY-MM, YYYY-MM-DD, today, yesterday)")
            }
            let m = parts.count > 1 ? parts[1]! : 1
            let d = parts.count > 2 ? parts[2]! : 1
            guard (1...12).contains(m), (1...31).contains(d) else { throw SyntaxError(description: "date:\(value): '\(s)' is not a date") }
            let start = CivilDate.days(year: y, month: m, day: d) * 86400
            let end: Int
            switch parts.count {
            case 1: end = CivilDate.days(year: y + 1, month: 1, day: 1) * 86400
            case 2: end = (m == 12 ? CivilDate.days(year: y + 1, month: 1, day: 1) : CivilDate.days(year: y, month: m + 1, day: 1)) * 86400
            default: end = start + 86400
            }
            return (start, end)
        }
        let a = try span(sides[0])
        let b = sides.count == 2 ? try span(sides[1]) : a
        if let a, let b, a.start >= b.end { throw SyntaxError(description: "date:\(value): the range ends before it starts") }
        return (a.map { CivilDate.rfc3339($0.start) }, b.map { CivilDate.rfc3339($0.end) })
    }
}

#if canImport(Glibc)
import Glibc
#endif
