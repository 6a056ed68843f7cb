import CivilTime
import SQLite

/// A search in the language notmuch and Gmail users type, as SQL over the store's messages:
/// words, "phrases", prefix*, `*` (everything), from: to: subject: body:, date:A..B, is:, label:, kind:,
/// has:attachment, id:, conversation:, AND OR NOT (any case), -word, and parentheses. Words next
/// to each other must all match. See mailstore(1).
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

    public struct SyntaxError: Error, CustomStringConvertible {
        public var description: String
    }

    public init(_ text: String) throws(SyntaxError) {
        var parser = Parser(tokens: try Self.tokens(text))
        guard !parser.tokens.isEmpty else { throw SyntaxError(description: "the query is empty") }
        let node = try parser.parseOr()
        if parser.position < parser.tokens.count {
            throw SyntaxError(description: "unexpected '\(parser.tokens[parser.position].text)'")
        }
        var sql = ""
        var parameters: [SQLValue] = []
        asksSetsOnly = try Self.write(node, into: &sql, &parameters)
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
    }

    static func tokens(_ text: String) throws(SyntaxError) -> [Token] {
        var result: [Token] = []
        let chars = Array(text)
        var i = 0
        while i < chars.count {
            let c = chars[i]
            if c.isWhitespace { i += 1; continue }
            if c == "(" { result.append(Token(kind: .open, text: "(")); i += 1; continue }
            if c == ")" { result.append(Token(kind: .close, text: ")")); i += 1; continue }
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
                    throw SyntaxError(description: "a phrase is not closed: \(String(chars[i...]))")
                }
                result.append(Token(kind: .phrase, text: String(chars[(i + 1)..<close]), field: field, negated: negated))
                i = close + 1
                continue
            }
            var k = i
            while k < chars.count, !chars[k].isWhitespace, chars[k] != "(", chars[k] != ")" { k += 1 }
            let word = String(chars[i..<k])
            i = k
            if field == nil, !negated {
                switch word {
                case "AND", "and": result.append(Token(kind: .and, text: word)); continue
                case "OR", "or": result.append(Token(kind: .or, text: word)); continue
                case "NOT", "not": result.append(Token(kind: .not, text: word)); continue
                default: break
                }
            }
            if word.isEmpty { throw SyntaxError(description: "'\(field ?? "-")' has nothing after it") }
            result.append(Token(kind: .word, text: word, field: field, negated: negated))
        }
        return result
    }

    static let fields: Set<String> = ["from", "to", "subject", "body", "date", "is", "label", "tag", "kind", "has", "id", "mid", "conversation", "thread"]

    // MARK: the tree

    indirect enum Node {
        case term(Token)
        case and(Node, Node)
        case or(Node, Node)
        case not(Node)
    }

    struct Parser {
        var tokens: [Token]
        var position = 0

        var next: Token? { position < tokens.count ? tokens[position] : nil }

        mutating func parseOr() throws(SyntaxError) -> Node {
            var node = try parseAnd()
            while next?.kind == .or {
                position += 1
                node = .or(node, try parseAnd())
            }
            return node
        }

        mutating func parseAnd() throws(SyntaxError) -> Node {
            var node = try parseUnary()
            while let t = next, t.kind != .or, t.kind != .close {
                if t.kind == .and { position += 1 }
                node = .and(node, try parseUnary())
            }
            return node
        }

        mutating func parseUnary() throws(SyntaxError) -> Node {
            guard let t = next else { throw SyntaxError(description: "the query ends where a term should follow") }
            switch t.kind {
            case .not:
                position += 1
                return .not(try parseUnary())
            case .open:
                position += 1
                let inner = try parseOr()
                guard next?.kind == .close else { throw SyntaxError(description: "a '(' is not closed") }
                position += 1
                return inner
            case .close:
                throw SyntaxError(description: "a ')' that closes nothing")
            case .and, .or:
                throw SyntaxError(description: "'\(t.text)' needs a term on each side")
            case .word, .phrase:
                position += 1
                return t.negated ? .not(.term(t)) : .term(t)
            }
        }
    }

    // MARK: SQL

    /// Writes the condition of `node`; returns whether it asks only sets of row ids.
    static func write(_ node: Node, into sql: inout String, _ parameters: inout [SQLValue]) throws(SyntaxError) -> Bool {
        switch node {
        case .and(let a, let b), .or(let a, let b):
            sql += "("
            let left = try write(a, into: &sql, &parameters)
            if case .and = node { sql += " AND " } else { sql += " OR " }
            let right = try write(b, into: &sql, &parameters)
            sql += ")"
            return left && right
        case .not(let a):
            sql += "NOT "
            return try write(a, into: &sql, &parameters)
        case .term(let t):
            return try term(t, into: &sql, &parameters)
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
        case "body": fts("body")
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
