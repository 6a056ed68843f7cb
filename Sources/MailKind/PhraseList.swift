import UTF8Text

/// Words and phrases matched case-insensitively (ASCII letters fold; other scripts match as
/// written) anywhere in a text, by byte search.
struct PhraseList: Sendable {
    private(set) var phrases: [[UInt8]] = []

    mutating func add(_ phrase: String) {
        let bytes = ASCII.lowercased(Array(phrase.utf8))
        if !bytes.isEmpty && !phrases.contains(bytes) { phrases.append(bytes) }
    }

    /// The first phrase found in `lowered` (already passed through `ASCII.lowercased`).
    func firstMatch(in lowered: [UInt8]) -> String? {
        phrases.first { ByteSearch.contains(lowered, $0) }.map { String(decoding: $0, as: UTF8.self) }
    }

    /// The first phrase that stands as a subject's tag: at its beginning, inside an opening
    /// bracket or not, and ended by a colon, a closing bracket or the end of the subject
    /// (`Automatic reply: …`, `[Auto-Reply] …`, `【不在通知】…`, `Out of Office`); not the first
    /// words of a sentence (`Out of office plans for December`, `自动回复的设置方法`).
    func tagMatch(of lowered: [UInt8]) -> String? {
        var start = Self.skipSpaces(lowered, from: lowered.startIndex)
        if let open = Self.openers.first(where: { lowered[start...].starts(with: $0) }) {
            start = Self.skipSpaces(lowered, from: start + open.count)
        }
        let phrase = phrases.first { phrase in
            guard lowered[start...].starts(with: phrase) else { return false }
            let end = Self.skipSpaces(lowered, from: start + phrase.count)
            return end == lowered.endIndex || Self.closers.contains { lowered[end...].starts(with: $0) }
        }
        return phrase.map { String(decoding: $0, as: UTF8.self) }
    }

    /// The first phrase `lowered` ends with, spaces after it aside.
    func suffixMatch(of lowered: [UInt8]) -> String? {
        var end = lowered.endIndex
        while end > lowered.startIndex, lowered[end - 1] == 0x20 || lowered[end - 1] == 0x09 { end -= 1 }
        let text = lowered[..<end]
        return phrases.first { text.count >= $0.count && text.suffix($0.count).elementsEqual($0) }
            .map { String(decoding: $0, as: UTF8.self) }
    }

    private static let openers = ["[", "(", "【", "［", "（", "〔", "「"].map { Array($0.utf8) }
    private static let closers = [":", "：", "]", ")", "】", "］", "）", "〕", "」"].map { Array($0.utf8) }

    private static func skipSpaces(_ bytes: [UInt8], from i: Int) -> Int {
        var i = i
        while i < bytes.endIndex, bytes[i] == 0x20 || bytes[i] == 0x09 { i += 1 }
        return i
    }
}
