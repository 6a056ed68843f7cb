import UnicodeServices

/// The literal cues of the reply patterns (LiteralCues): the built-in patterns' from the table
/// `make reply-cues` writes (ReplyPatternCues.swift), read off the patterns there once rather than
/// at every start of a program (17M instructions, a sixth of a delivery's); a user's patterns,
/// and a list a user's file adds to, are read off as they come. With `recording`, every answer
/// is kept in `asked`, as the table writes it, for the test that the table is up to date (a
/// program's start keeps none).
struct CueReader {
    var table = ReplyPatternCues.table
    var recording = false
    private(set) var asked: [String: [[String]]] = [:]

    /// The cues of each pattern of `list`, and of `joined`, their alternation.
    mutating func alternatives(_ list: [String], joined: String) -> (each: [LiteralCues?], whole: LiteralCues?) {
        if let whole = table[joined] {
            let each = list.compactMap { table[$0] }
            if each.count == list.count {
                keep(joined, whole)
                for (p, c) in zip(list, each) { keep(p, c) }
                return (each.map(Self.cues), Self.cues(whole))
            }
        }
        let read = LiteralCues.ofAlternatives(list)
        if recording {
            keep(joined, Self.strings(read.whole))
            for (p, c) in zip(list, read.each) { keep(p, Self.strings(c)) }
        }
        return read
    }

    mutating func pattern(_ pattern: String) -> LiteralCues? {
        if let known = table[pattern] {
            keep(pattern, known)
            return Self.cues(known)
        }
        let read = LiteralCues(pattern: pattern)
        if recording { keep(pattern, Self.strings(read)) }
        return read
    }

    private mutating func keep(_ key: String, _ cues: [[String]]) {
        if recording { asked[key] = cues }
    }

    /// The table's form: each group's folded literals as strings; none, `[]`.
    static func strings(_ cues: LiteralCues?) -> [[String]] {
        cues?.groups.map { $0.map { String(decoding: $0, as: UTF16.self) } } ?? []
    }

    static func cues(_ strings: [[String]]) -> LiteralCues? {
        LiteralCues(groups: strings.map { $0.map { Array($0.utf16) } })
    }

    /// The table as Swift source (ReplyPatternCues.swift).
    static func source(_ table: [String: [[String]]]) -> String {
        var out = """
            // Made by `make reply-cues` from reply-patterns.json (Tests/BodyTextTests/ReplyCuesTests.swift):
            // the literal cues of the built-in reply patterns, read off them once here. Do not edit.

            enum ReplyPatternCues {
                static let table: [String: [[String]]] = [

            """
        for key in table.keys.sorted() {
            let groups = table[key]!.map { "[" + $0.map(\.debugDescription).joined(separator: ", ") + "]" }
            out += "        \(key.debugDescription): [\(groups.joined(separator: ", "))],\n"
        }
        out += "    ]\n}\n"
        return out
    }
}
