import UnicodeServices

/// A message's text split the way a chat bubble wants it: the new text, the quoted history
/// (with its attribution or header block), and the signature (with mobile footers and legal
/// disclaimers).
public struct ReplyParts: Equatable {
    public var reply: [UInt8]
    public var quoted: [UInt8]
    public var signature: [UInt8]
    /// The new text only introduces a forwarded message.
    public var forwarded: Bool
}

/// Finds the parts of a reply line by line, with the patterns of reply-patterns.json.
final class ReplySplitter {
    let m: ReplyMatcher

    init(patterns: ReplyPatterns) { m = ReplyMatcher(patterns) }

    private enum HeaderKind { case attribution, separator, headerBlock, forward }

    private struct Header {
        var line: Int
        var length: Int
        var kind: HeaderKind
        /// Reply text before the attribution on the same line ("Thanks! On Mon, … wrote:").
        var prefix: Range<Int>?
    }

    /// A line, or the part of one, by its bytes in the text.
    private typealias Piece = Range<Int>

    func split(_ text: TextLines) -> ReplyParts {
        var reply: [Piece] = []
        var quoted: [Piece] = []
        var forwarded = false
        splitQuotes(text, 0..<text.count, reply: &reply, quoted: &quoted, forwarded: &forwarded)
        let banner = bannerLength(text, reply)
        var signature = Array(reply[..<banner])
        reply.removeSubrange(..<banner)
        if let s = signatureLine(text, reply) {
            signature += [0..<0] + reply[s...]
            reply.removeSubrange(s...)
        }
        return ReplyParts(reply: joined(text, reply), quoted: joined(text, quoted), signature: joined(text, signature),
                          forwarded: forwarded)
    }

    /// Sorts `lines` into reply and quoted: everything from the first header on is quoted,
    /// unless the header's quoted block ends and unquoted text follows it (a reply written
    /// below the quote); quoted lines between reply lines are dropped from the reply.
    private func splitQuotes(_ t: TextLines, _ lines: Range<Int>, reply: inout [Piece], quoted: inout [Piece], forwarded: inout Bool) {
        func sort(_ range: Range<Int>) {
            for i in range {
                if isQuotedOrWrapped(t, i) { quoted.append(t.lines[i]) } else { reply.append(t.lines[i]) }
            }
        }
        guard let h = firstHeader(t, lines) else { return sort(lines) }
        var before = lines.lowerBound..<h.line
        if h.kind == .headerBlock {
            // a message that starts with a header block: the text under it is the message
            if before.allSatisfy({ t.isBlank($0) }) {
                let end = headerBlockEnd(t, lines, from: h.line)
                quoted += t.lines[lines.lowerBound..<end]
                if end < lines.upperBound { splitQuotes(t, end..<lines.upperBound, reply: &reply, quoted: &quoted, forwarded: &forwarded) }
                return
            }
            // the rule Outlook draws above it belongs to it
            var start = h.line
            while start > before.lowerBound, t.isBlank(start - 1) || isRule(t, start - 1) { start -= 1 }
            before = lines.lowerBound..<start
            quoted += t.lines[start..<h.line]
        }
        sort(before)
        if let prefix = h.prefix { reply.append(prefix) }
        if h.kind == .forward, reply.allSatisfy({ t.isBlank($0) }) { forwarded = true }
        var k = h.line + h.length
        if h.kind == .attribution {
            while k < lines.upperBound, t.isBlank(k) { k += 1 }
            if k < lines.upperBound, t.isQuote(k) {
                while k < lines.upperBound, isQuotedOrWrapped(t, k) || t.isBlank(k) { k += 1 }
                quoted += t.lines[h.line..<k]
                if k < lines.upperBound {
                    reply.append(0..<0)
                    splitQuotes(t, k..<lines.upperBound, reply: &reply, quoted: &quoted, forwarded: &forwarded)
                }
                return
            }
        }
        quoted += t.lines[h.line..<lines.upperBound]
    }

    private func firstHeader(_ t: TextLines, _ lines: Range<Int>) -> Header? {
        // The patterns are costly and headers rare: a header, or the last line of one wrapped
        // onto several, ends in one of a few characters; only near such a line are they tried.
        guard let lastCandidate = lines.reversed().first(where: { mayEndHeader(t, t.lines[$0]) }) else { return nil }
        var nextCandidate = lines.lowerBound
        for i in lines where !t.isQuote(i) && !t.isBlank(i) {
            if i > lastCandidate { return nil }
            if nextCandidate < i { nextCandidate = i }
            while nextCandidate <= lastCandidate, !mayEndHeader(t, t.lines[nextCandidate]) { nextCandidate += 1 }
            guard nextCandidate - i < 5 else { continue }
            if let h = header(t, lines, at: i) { return h }
        }
        return nil
    }

    // no ">": a date-and-address attribution ending "<a@b>" has its "@"; lines of links end in ">" too.
    // "®": Tobit David's "Original Message processed by david®"
    private static let headerEnds: [[UInt8]] = [":", "：", "-", "_", "—", "道", "た", "성", "ル", "到", "®"].map { Array($0.utf8) }

    private func text(_ t: TextLines, _ range: Range<Int>, asciiCues: CueHits? = nil) -> PatternText {
        t.patternText(range, cues: m.cues, asciiCues: asciiCues)
    }

    /// Whether one of the patterns matches all of the text in `range`; its cues are read first,
    /// from the bytes when they are ASCII.
    private func matchesWhole(_ p: CuedPattern, _ t: TextLines, _ range: Range<Int>) -> Bool {
        let cues = t.asciiCues(range, index: m.cues)
        if let cues, !p.mayMatch(cues) { return false }
        return p.matchesWhole(text(t, range, asciiCues: cues))
    }

    /// Whether a byte is the last of one of headerEnds.
    private static let headerEndLastBytes = (0...255).map { b in headerEnds.contains { $0.last == UInt8(b) } }

    private func mayEndHeader(_ t: TextLines, _ range: Range<Int>) -> Bool {
        if t.contains(0x40, in: range) { return true }
        let end = t.trimmedEnd(range)
        guard end > range.lowerBound, Self.headerEndLastBytes[Int(t.bytes[end - 1])] else { return false }
        return Self.headerEnds.contains { t.hasSuffix($0, range.lowerBound..<end) }
    }

    private func header(_ t: TextLines, _ lines: Range<Int>, at i: Int) -> Header? {
        let trimmed = t.trimmed(i)
        // most lines tried hold none of the cues: known from their bytes when they are ASCII
        let cues = t.asciiCues(trimmed, index: m.cues)
        if let cues, !mayBeHeader(cues, startsWithDigit: trimmed.first.map { t.bytes[$0] &- 0x30 < 10 } ?? false,
                                  hasColon: t.contains(0x3A, in: trimmed)) {
            return nil
        }
        let line = text(t, trimmed, asciiCues: cues)
        if m.forwarded.matchesWhole(line) { return Header(line: i, length: 1, kind: .forward) }
        if m.originalMessage.matchesWhole(line) { return Header(line: i, length: 1, kind: .separator) }
        if m.fieldNumber(line).map({ $0 <= 3 }) == true, isHeaderBlock(t, lines, from: i, line) {
            return Header(line: i, length: 1, kind: .headerBlock)
        }
        // Reply text and attribution on one line. An attribution ends the way mayEndHeader
        // looks for (its patterns end in ':', '-', a verb such as 道 or 성, or an address), so
        // only a line that ends so can hold one.
        var found: Header?
        let mayBeAttribution = mayEndHeader(t, trimmed) && Self.hasDateOrAddress(line.utf16) && m.attribution.mayMatch(line)
        // a line that starts as an attribution does and is one has no reply text before it
        // ("På 14 september 2015 på 02:23, X skrev:" is not "På 14 september 2015" and one)
        if mayBeAttribution, m.attributionStartsLine.matchesStart(line), isAttribution(line) {
            return Header(line: i, length: 1, kind: .attribution)
        }
        if mayBeAttribution {
            m.attributionStart.forEachMatch(in: line) { match in
                guard match.lowerBound > 0 else { return true }
                let rest = Array(line.utf16[match.upperBound...])
                if isAttribution(PatternText(utf16: rest, cues: m.cues)) {
                    let prefixEnd = trimmed.lowerBound + utf8Length(line.utf16[..<match.lowerBound])
                    found = Header(line: i, length: 1, kind: .attribution, prefix: trimmed.lowerBound..<prefixEnd)
                    return false
                }
                return true
            }
        }
        if let found { return found }
        // an attribution on one line, or wrapped onto up to five; it starts at the last line from
        // which it still reads as one ("Am heutigen Tage" above "Am So., … schrieb X:" is text)
        guard let n = attributionLength(t, lines, at: i, first: line) else { return nil }
        var start = i
        let end = i + n
        for j in (i + 1)..<end where !t.isBlank(j) && m.attributionStartsLine.matchesStart(text(t, t.trimmed(j))) {
            if let length = attributionLength(t, lines, at: j), j + length == end {
                start = j
                break
            }
        }
        return Header(line: start, length: end - start, kind: .attribution)
    }

    /// Whether a line with these cues can start a header: as `header` reads a line, each
    /// kind needs its patterns' cues, an attribution may start with a number or be wrapped
    /// after its first line (then that line starts as one does), and a header field has its colon.
    private func mayBeHeader(_ cues: CueHits, startsWithDigit: Bool, hasColon: Bool) -> Bool {
        startsWithDigit || m.forwarded.mayMatch(cues) || m.originalMessage.mayMatch(cues) || m.attribution.mayMatch(cues)
            || m.attributionStartsLine.mayMatch(cues) || (hasColon && m.headerFields.contains { $0.mayMatch(cues) })
    }

    /// `first`: line i as the patterns read it, when the caller has it.
    private func attributionLength(_ t: TextLines, _ lines: Range<Int>, at i: Int, first: PatternText? = nil) -> Int? {
        var joined: [UInt8] = []
        var used = 0
        var k = i
        while k < lines.upperBound, used < 5 {
            let trimmed = t.trimmed(k)
            k += 1
            if trimmed.isEmpty { if used == 0 { return nil } else { continue } }
            if !joined.isEmpty { joined.append(0x20) }
            joined += t.bytes[trimmed]
            used += 1
            // more than one line only when the first looks like the start of one; the text so
            // far can be one only when its last line ends as an attribution does
            if used == 1 {
                let text = first ?? text(t, trimmed)
                if mayEndHeader(t, trimmed), isAttribution(text) { return k - i }
                if !startsAttribution(text) { return nil }
            } else if mayEndHeader(t, trimmed), isAttribution(PatternText(joined, cues: m.cues)) {
                return k - i
            }
        }
        return nil
    }

    private func isAttribution(_ text: PatternText) -> Bool {
        // a date or an address in it: "He wrote:" alone is text (checked first: it is cheap)
        text.utf16.count < 600 && Self.hasDateOrAddress(text.utf16) && m.attribution.matchesWhole(text)
    }

    private static func hasDateOrAddress(_ u: [UInt16]) -> Bool {
        u.contains { ($0 >= 0x30 && $0 <= 0x39) || $0 == 0x40 } || u.first == 0x2D
    }

    private func startsAttribution(_ text: PatternText) -> Bool {
        Self.startsWithNumber(text.utf16) || m.attributionStartsLine.matchesStart(text)
    }

    /// Whether the text starts with a number in any script (2015, ٢٠١٥, 二〇一五): its first
    /// scalar, as Character.isNumber reads a character, without making a String.
    static func startsWithNumber(_ utf16: [UInt16]) -> Bool {
        if let first = utf16.first, first >= 0x30 && first <= 0x39 { return true }
        var units = utf16.prefix(2).makeIterator()
        var decoder = UTF16()
        guard case .scalarValue(let scalar) = decoder.decode(&units) else { return false }
        return scalar.properties.numericType != nil
    }

    /// A From:, Date: or To: line with another field of a header (From, Sent, To, Subject,
    /// Cc) under it, or after it on the same line.
    private func isHeaderBlock(_ t: TextLines, _ lines: Range<Int>, from i: Int, _ line: PatternText) -> Bool {
        if m.laterField.firstMatch(in: line) != nil { return true }
        let first = m.fieldNumber(line)
        var k = i + 1
        while k < lines.upperBound, k <= i + 8 {
            if let f = m.fieldNumber(text(t, t.trimmed(k))), f != first { return true }
            k += 1
        }
        return false
    }

    /// The lines of a header block: up to the first blank line after its fields.
    private func headerBlockEnd(_ t: TextLines, _ lines: Range<Int>, from i: Int) -> Int {
        var k = i
        while k < lines.upperBound, !t.isBlank(k) { k += 1 }
        return k
    }

    /// Where the signature starts: a `-- ` line, a mobile footer among the last lines, or a
    /// trailing legal disclaimer.
    private func signatureLine(_ t: TextLines, _ reply: [Piece]) -> Int? {
        func matches(_ p: CuedPattern, _ i: Int) -> Bool { matchesWhole(p, t, t.trimmed(reply[i])) }
        func isBlank(_ i: Int) -> Bool { t.isBlank(reply[i]) }
        let firstText = reply.firstIndex { !t.isBlank($0) } ?? reply.count
        var cut: Int?
        for i in reply.indices where i > firstText {
            let trimmed = t.trimmed(reply[i])
            guard let c = trimmed.first.map({ t.bytes[$0] }), c == UInt8(ascii: "-") || c == 0xE2 || c == UInt8(ascii: "_") || c == UInt8(ascii: "/") else { continue }
            if matchesWhole(m.signatureDelimiter, t, trimmed) {
                cut = i
                break
            }
        }
        let end = cut ?? reply.count
        // mobile footers among the last three lines with text
        var seen = 0
        var i = end - 1
        while i > firstText, seen < 3 {
            if !isBlank(i) {
                seen += 1
                if matches(m.mobileSignature, i) { cut = i }
            }
            i -= 1
        }
        // disclaimers: trailing paragraphs whose first line says so
        var k = (cut ?? reply.count) - 1
        while k > firstText {
            if isBlank(k - 1) || k == firstText + 1, !isBlank(k) {
                guard matches(m.disclaimer, k) else { break }
                cut = k
            }
            k -= 1
        }
        // a sign-off ("Regards,") and up to three name lines, at the end
        var last = (cut ?? reply.count) - 1
        while last > firstText, isBlank(last) { last -= 1 }
        var j = last
        while j > firstText, j >= last - 3, !isBlank(j) {
            if matches(m.closing, j) { cut = j; break }
            j -= 1
        }
        return cut
    }

    /// Quoted with `>`, or a piece of a quoted line that a mailer wrapped without quoting it:
    /// one line between quoted lines, with a link in it or no space at all.
    private func isQuotedOrWrapped(_ t: TextLines, _ i: Int) -> Bool {
        if t.isQuote(i) { return true }
        guard i > 0, i + 1 < t.count, t.isQuote(i - 1), t.isQuote(i + 1) else { return false }
        let line = t.trimmed(i)
        guard !line.isEmpty else { return false }
        return !t.contains(0x20, in: line) || t.contains(Self.http, in: line)
    }

    private static let http = Array("http".utf8)

    /// How many pieces at the start of the reply are an external-sender warning: its
    /// paragraph, when the first line with text is one.
    private func bannerLength(_ t: TextLines, _ reply: [Piece]) -> Int {
        guard let first = reply.firstIndex(where: { !t.isBlank($0) }),
              matchesWhole(m.banner, t, t.trimmed(reply[first])) else { return 0 }
        var end = first
        while end < reply.count, !t.isBlank(reply[end]) { end += 1 }
        return end
    }

    /// A line of dashes or underscores only, as drawn above a quoted header.
    private func isRule(_ t: TextLines, _ line: Int) -> Bool {
        let trimmed = t.trimmed(line)
        return trimmed.count >= 5 && trimmed.allSatisfy { t.bytes[$0] == UInt8(ascii: "-") || t.bytes[$0] == UInt8(ascii: "_") }
    }

    /// The pieces as lines, without blank lines at either end or two in a row, nor trailing
    /// spaces.
    private func joined(_ t: TextLines, _ pieces: [Piece]) -> [UInt8] {
        var out: [UInt8] = []
        var lastWasBlank = true
        for piece in pieces {
            var end = piece.upperBound
            while end > piece.lowerBound, t.bytes[end - 1] == 0x20 || t.bytes[end - 1] == 0x09 || t.bytes[end - 1] == 0x0D { end -= 1 }
            let blank = end == piece.lowerBound
            if blank, lastWasBlank { continue }
            if !out.isEmpty { out.append(0x0A) }
            out += t.bytes[piece.lowerBound..<end]
            lastWasBlank = blank
        }
        if lastWasBlank, out.last == 0x0A { out.removeLast() }
        return out
    }
}

/// The UTF-8 length of UTF-16 text.
private func utf8Length(_ u: ArraySlice<UInt16>) -> Int {
    var n = 0
    for c in u {
        switch c {
        case 0..<0x80: n += 1
        case 0x80..<0x800: n += 2
        case 0xD800..<0xDC00: n += 4  // a surrogate pair, counted at its first half
        case 0xDC00..<0xE000: break
        default: n += 3
        }
    }
    return n
}

