import UnixFilter

/// The words that mark a subject as a reply's ("Re:", "AW:", "回覆：") or a forward's ("Fwd:",
/// "WG:", "轉寄："): a word, then a colon, ASCII or full-width, in any case. Built in from
/// subject-prefixes.json; a user's file with the same keys adds to them.
public struct SubjectPrefixes: Sendable, ExtensibleData {
    public enum Kind: Sendable { case reply, forward }

    /// The words as the files give them, lowercased.
    public private(set) var replies: [String] = []
    public private(set) var forwards: [String] = []
    /// Each word as characters, lowercased, with its kind.
    private var words: [(word: [Character], kind: Kind)] = []

    public struct FileError: Error, CustomStringConvertible {
        public var description: String
    }

    public static let builtIn: SubjectPrefixes = {
        var p = SubjectPrefixes()
        do { try p.add(json: PackageResources.subject_prefixes_json) } catch { fatalError("built-in subject-prefixes.json: \(error)") }
        return p
    }()

    /// The built-in prefixes, then `$XDG_CONFIG_HOME/mailpipe/subject-prefixes.json` (or every
    /// file of a folder of that name).
    public static func load(_ diagnostics: Diagnostics) throws -> SubjectPrefixes {
        try DataFiles.extend(builtIn, user: ["subject-prefixes.json", "subject-prefixes"], extra: [], diagnostics: diagnostics)
    }

    public mutating func add(json: [UInt8]) throws(FileError) {
        let lists: [(key: String, values: [String])]
        do { lists = try DataFiles.stringLists(json) } catch { throw FileError(description: error.description) }
        for (key, values) in lists {
            let kind: Kind
            switch key {
            case "reply": kind = .reply
            case "forward": kind = .forward
            default: throw FileError(description: "unknown key '\(key)'")
            }
            for value in values {
                guard !value.isEmpty, !value.contains(where: { $0.isWhitespace || $0 == ":" || $0 == "：" }) else {
                    throw FileError(description: "\(key): not a word without its colon: '\(value)'")
                }
                let word = value.lowercased()
                if kind == .reply { replies.append(word) } else { forwards.append(word) }
                words.append((Array(word), kind))
            }
        }
    }

    /// The prefix `subject` starts with, after any whitespace, and the text after it; nil
    /// when it starts with none. A prefix is a word, a count as some programs write it
    /// ("Re[2]:", "Re^2:", "Re(2):"), spaces as French puts before a colon ("RE :"), then the
    /// colon. (At most one can match: a word holds no colon, so no prefix starts another.)
    public func prefix(of subject: Substring) -> (kind: Kind, rest: Substring)? {
        let s = subject.drop(while: \.isWhitespace)
        for (word, kind) in words {
            guard var rest = Self.drop(word, from: s) else { continue }
            rest = Self.dropCount(rest)
            rest = rest.drop { $0 == " " || $0 == "\u{A0}" || $0 == "\u{202F}" }
            if rest.first == ":" || rest.first == "：" { return (kind, rest.dropFirst()) }
        }
        return nil
    }

    /// What follows `word` at the start of `s`, in any case; nil when `s` does not start with it.
    private static func drop(_ word: [Character], from s: Substring) -> Substring? {
        var i = s.startIndex
        for c in word {
            guard i < s.endIndex, s[i] == c || s[i].lowercased() == String(c) else { return nil }
            i = s.index(after: i)
        }
        return s[i...]
    }

    /// `s` without the count it starts with ("[2]", "^2", "(2)"), if it does.
    private static func dropCount(_ s: Substring) -> Substring {
        let close: Character?
        switch s.first {
        case "[": close = "]"
        case "(": close = ")"
        case "^": close = nil
        default: return s
        }
        let digits = s.dropFirst().prefix { $0.isASCII && $0.isNumber }
        guard !digits.isEmpty else { return s }
        let after = s.dropFirst(1 + digits.count)
        guard let close else { return after }
        return after.first == close ? after.dropFirst() : s
    }

    /// "Re: …" and its translations: a subject that only repeats the one it answers.
    public func isReply(_ subject: String) -> Bool { prefix(of: subject[...])?.kind == .reply }

    public func isReplyOrForward(_ subject: String) -> Bool { prefix(of: subject[...]) != nil }
}
