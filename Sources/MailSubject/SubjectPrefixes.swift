import UnixFilter

/// The words that mark a subject as a reply's ("Re:", "AW:", "回覆：") or a forward's ("Fwd:",
/// "WG:", "轉寄："): a word, then a colon, ASCII or full-width, in any case. Built in from
/// subject-prefixes.json; a user's file with the same keys adds to them.
public struct SubjectPrefixes: Sendable, ExtensibleData {
    public enum Kind: Sendable { case reply, forward }

    /// The words as the files give them, lowercased.
    public private(set) var replies: [String] = []
    public private(set) var forwards: [String] = []
    /// Each word with each colon, lowercased.
    private var prefixes: [(text: String, kind: Kind)] = []
    /// The longest prefix in characters: how much of a subject is lowercased to compare.
    private var longest = 0

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
                for colon in [":", "："] { prefixes.append((word + colon, kind)) }
                longest = max(longest, word.count + 1)
            }
        }
    }

    /// The prefix `subject` starts with, after any whitespace, and the text after it; nil
    /// when it starts with none. (At most one can match: a word holds no colon, so no prefix
    /// starts another.)
    public func prefix(of subject: Substring) -> (kind: Kind, rest: Substring)? {
        let s = subject.drop(while: \.isWhitespace)
        let head = String(s.prefix(longest)).lowercased()
        guard let match = prefixes.first(where: { head.hasPrefix($0.text) }) else { return nil }
        return (match.kind, s.dropFirst(match.text.count))
    }

    /// "Re: …" and its translations: a subject that only repeats the one it answers.
    public func isReply(_ subject: String) -> Bool { prefix(of: subject[...])?.kind == .reply }

    public func isReplyOrForward(_ subject: String) -> Bool { prefix(of: subject[...]) != nil }
}
