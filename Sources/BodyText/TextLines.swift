import Glibc
import UnicodeServices
import UTF8Text

/// A text as UTF-8 with its lines (split at LF, a CR before it dropped), read byte by byte:
/// the splitter looks at every line of every message, so no String is made of a line unless a
/// pattern has to read it.
struct TextLines {
    let bytes: [UInt8]
    /// Each line's bytes, without its line end.
    let lines: [Range<Int>]

    init(_ bytes: [UInt8]) {
        self.bytes = bytes
        var lines: [Range<Int>] = []
        lines.reserveCapacity(bytes.count / 32 + 1)
        bytes.withUnsafeBufferPointer { b in
            var start = 0
            while start < b.count, let found = memchr(b.baseAddress! + start, 0x0A, b.count - start) {
                let p = b.baseAddress!.distance(to: found.assumingMemoryBound(to: UInt8.self))
                lines.append(start..<(p > start && b[p - 1] == 0x0D ? p - 1 : p))
                start = p + 1
            }
            let end = bytes.count
            lines.append(start..<(end > start && b[end - 1] == 0x0D ? end - 1 : end))
        }
        self.lines = lines
    }

    var count: Int { lines.count }

    func isBlank(_ line: Int) -> Bool { isBlank(lines[line]) }

    /// Only spaces, tabs and CRs.
    func isBlank(_ range: Range<Int>) -> Bool {
        for i in range where bytes[i] != 0x20 && bytes[i] != 0x09 && bytes[i] != 0x0D { return false }
        return true
    }

    /// Quoted with `>` (after any spaces or tabs), unless the line closes with `<<` as it
    /// opened: ">>> Visit our site <<<" is decoration, not a quote.
    func isQuote(_ line: Int) -> Bool {
        for i in lines[line] {
            let c = bytes[i]
            if c == 0x3E { return !hasSuffix(Self.closingMarks, trimmed(line)) }
            if c != 0x20 && c != 0x09 { return false }
        }
        return false
    }

    private static let closingMarks = Array("<<".utf8)

    /// The line without Unicode white space at either end.
    func trimmed(_ line: Int) -> Range<Int> { trimmed(lines[line]) }

    func trimmed(_ range: Range<Int>) -> Range<Int> {
        let r = bytes.withUnsafeBytes { UTF8Bytes.trimmed(UnsafeRawBufferPointer(rebasing: $0[range]), where: Snippet.isWhitespace) }
        return (range.lowerBound + r.lowerBound)..<(range.lowerBound + r.upperBound)
    }

    /// Where the line ends without the Unicode white space at its end.
    func trimmedEnd(_ range: Range<Int>) -> Int {
        range.lowerBound + bytes.withUnsafeBytes { UTF8Bytes.trimmedEnd(UnsafeRawBufferPointer(rebasing: $0[range]), where: Snippet.isWhitespace) }
    }

    func contains(_ byte: UInt8, in range: Range<Int>) -> Bool {
        guard !range.isEmpty else { return false }
        return bytes.withUnsafeBytes { memchr($0.baseAddress! + range.lowerBound, Int32(byte), range.count) != nil }
    }

    func contains(_ needle: [UInt8], in range: Range<Int>) -> Bool {
        guard needle.count <= range.count else { return false }
        return (range.lowerBound...(range.upperBound - needle.count)).contains { bytes[$0..<($0 + needle.count)].elementsEqual(needle) }
    }

    func hasSuffix(_ suffix: [UInt8], _ range: Range<Int>) -> Bool {
        range.count >= suffix.count && bytes[(range.upperBound - suffix.count)..<range.upperBound].elementsEqual(suffix)
    }

    /// The bytes of `range` as patterns read them.
    func patternText(_ range: Range<Int>, cues: CueIndex, asciiCues: CueHits? = nil) -> PatternText {
        bytes.withUnsafeBytes { PatternText(utf8: UnsafeRawBufferPointer(rebasing: $0[range]), cues: cues, asciiCues: asciiCues) }
    }

    /// The cues in `range`, read from its bytes when they are ASCII; nil otherwise.
    func asciiCues(_ range: Range<Int>, index: CueIndex) -> CueHits? {
        bytes.withUnsafeBytes { PatternText.cues(utf8: UnsafeRawBufferPointer(rebasing: $0[range]), index: index) }
    }
}
