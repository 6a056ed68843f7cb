#if canImport(Glibc)
import Glibc
#endif
import UTF8Text

/// Words and phrases matched case-insensitively (ASCII letters fold; other scripts match as
/// written) anywhere in a text, by byte search.
struct PhraseList: Sendable {
    private(set) var phrases: [[UInt8]] = []
    /// The phrases by their first two bytes, for `occurs(in:)`: one pass over a text for a long
    /// list, where a search per phrase reads the text once each.
    private var byPair: [UInt16: [Int]] = [:]
    /// Whether a pair of bytes starts a phrase, one bit each (8 KB): most pairs start none.
    private var pairBits = [UInt64](repeating: 0, count: 1024)

    mutating func add(_ phrase: String) {
        let bytes = ASCII.lowercased(Array(phrase.utf8))
        if !bytes.isEmpty && !phrases.contains(bytes) {
            let pair = UInt16(bytes[0]) << 8 | UInt16(bytes.count > 1 ? bytes[1] : 0)
            byPair[pair, default: []].append(phrases.count)
            pairBits[Int(pair >> 6)] |= 1 << (pair & 63)
            phrases.append(bytes)
        }
    }

    /// Whether any phrase is in `lowered` (already passed through `ASCII.lowercased`).
    func occurs(in lowered: [UInt8]) -> Bool {
        if phrases.contains(where: { $0.count < 2 }) { return firstMatch(in: lowered) != nil }
        return lowered.withUnsafeBufferPointer { b in
            guard b.count >= 2 else { return false }
            for i in 0..<(b.count - 1) {
                let pair = UInt16(b[i]) << 8 | UInt16(b[i + 1])
                guard pairBits[Int(pair >> 6)] & (1 << (pair & 63)) != 0, let candidates = byPair[pair] else { continue }
                for k in candidates where phrases[k].count <= b.count - i
                    && phrases[k].withUnsafeBufferPointer({ p in memcmp(p.baseAddress!, b.baseAddress! + i, p.count) == 0 }) {
                    return true
                }
            }
            return false
        }
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
