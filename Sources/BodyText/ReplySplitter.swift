import UnicodeServices

/// A message's text split the way a chat bubble wants it: the new text, the quoted history
/// (with its attribution or header block), and the signature (with mobile footers and legal
/// disclaimers).
public struct ReplyParts: Equatable {
    public var reply: String
    public var quoted: String
    public var signature: String
    /// The new text only introduces a forwarded message.
    public var forwarded: Bool
}

/// Finds the parts of a reply line by line, with the patterns of reply-patterns.json.
final class ReplySplitter {
    private let m: ReplyMatcher

    init(patterns: ReplyPatterns) { m = ReplyMatcher(patterns) }

    private enum HeaderKind { case attribution, separator, headerBlock, forward }

    private struct Header {
        var line: Int
        var length: Int
        var kind: HeaderKind
        /// Reply text before the attribution on the same line ("Thanks! On Mon, … wrote:").
        var prefix: Substring?
    }

    func split(_ text: String) -> ReplyParts {
        let lines = textLines(text)
        var reply: [Substring] = []
        var quoted: [Substring] = []
        var forwarded = false
        splitQuotes(lines[...], reply: &reply, quoted: &quoted, forwarded: &forwarded)
        let signatureStart = signatureLine(reply)
        let signature = signatureStart.map { Array(reply[$0...]) } ?? []
        if let s = signatureStart { reply.removeSubrange(s...) }
        return ReplyParts(reply: joined(reply), quoted: joined(quoted), signature: joined(signature), forwarded: forwarded)
    }

    /// Sorts `lines` into reply and quoted: everything from the first header on is quoted,
    /// unless the header's quoted block ends and unquoted text follows it (a reply written
    /// below the quote); quoted lines between reply lines are dropped from the reply.
    private func splitQuotes(_ lines: ArraySlice<Substring>, reply: inout [Substring], quoted: inout [Substring], forwarded: inout Bool) {
        guard let h = firstHeader(lines) else {
            for line in lines {
                if isQuote(line) { quoted.append(line) } else { reply.append(line) }
            }
            return
        }
        var before = lines[..<h.line]
        if h.kind == .headerBlock {
            // a message that starts with a header block: the text under it is the message
            if !before.contains(where: { !isBlank($0) }) {
                let end = headerBlockEnd(lines, from: h.line)
                quoted += lines[lines.startIndex..<end]
                if end < lines.endIndex { splitQuotes(lines[end...], reply: &reply, quoted: &quoted, forwarded: &forwarded) }
                return
            }
            // the rule Outlook draws above it belongs to it
            var start = h.line
            while start > before.startIndex, isBlank(lines[start - 1]) || isRule(lines[start - 1]) { start -= 1 }
            before = lines[..<start]
            quoted += lines[start..<h.line]
        }
        for line in before {
            if isQuote(line) { quoted.append(line) } else { reply.append(line) }
        }
        if let prefix = h.prefix { reply.append(prefix) }
        if h.kind == .forward, !reply.contains(where: { !isBlank($0) }) { forwarded = true }
        var k = h.line + h.length
        if h.kind == .attribution {
            while k < lines.endIndex, isBlank(lines[k]) { k += 1 }
            if k < lines.endIndex, isQuote(lines[k]) {
                while k < lines.endIndex, isQuote(lines[k]) || isBlank(lines[k]) { k += 1 }
                quoted += lines[h.line..<k]
                if k < lines.endIndex {
                    reply.append("")
                    splitQuotes(lines[k...], reply: &reply, quoted: &quoted, forwarded: &forwarded)
                }
                return
            }
        }
        quoted += lines[h.line...]
    }

    private func firstHeader(_ lines: ArraySlice<Substring>) -> Header? {
        // The patterns are costly and headers rare: a header, or the last line of one wrapped
        // onto several, ends in one of a few characters; only near such a line are they tried.
        var lastCandidate = -1
        for i in lines.indices.reversed() where mayEndHeader(lines[i]) {
            lastCandidate = i
            break
        }
        var nextCandidate = lines.startIndex
        for i in lines.indices where !isQuote(lines[i]) && !isBlank(lines[i]) {
            if i > lastCandidate { return nil }
            if nextCandidate < i { nextCandidate = i }
            while nextCandidate < lines.endIndex, nextCandidate <= lastCandidate, !mayEndHeader(lines[nextCandidate]) { nextCandidate += 1 }
            guard nextCandidate - i < 5 else { continue }
            if let h = header(lines, at: i) { return h }
        }
        return nil
    }

    // no ">": a date-and-address attribution ending "<a@b>" has its "@"; lines of links end in ">" too
    private static let headerEnds: Set<Unicode.Scalar> = [":", "：", "-", "_", "—", "道", "た", "성", "ル", "到"]

    private func mayEndHeader(_ line: Substring) -> Bool {
        guard let last = line.unicodeScalars.last(where: { !$0.properties.isWhitespace }) else { return false }
        return Self.headerEnds.contains(last) || line.utf8.contains(0x40)
    }

    private func header(_ lines: ArraySlice<Substring>, at i: Int) -> Header? {
        let line = trimmed(lines[i])
        let u = Array(line.utf16)
        if m.forwarded.wholeMatch(u) != nil { return Header(line: i, length: 1, kind: .forward) }
        if m.originalMessage.wholeMatch(u) != nil {
            return Header(line: i, length: 1, kind: .separator)
        }
        if m.headerField.fieldNumber(u).map({ $0 <= 3 }) == true, isHeaderBlock(lines, from: i) {
            return Header(line: i, length: 1, kind: .headerBlock)
        }
        // Reply text and attribution on one line. An attribution ends the way mayEndHeader
        // looks for (its patterns end in ':', '-', a verb such as 道 or 성, or an address), so
        // only a line that ends so can hold one.
        var found: Header?
        if mayEndHeader(lines[i]), Self.hasDateOrAddress(u) { m.attributionStart.forEachMatch(in: u) { match in
            guard match.range.lowerBound > 0 else { return true }
            let rest = Array(u[match.range.upperBound...])
            if isAttribution(rest) {
                let prefix = String(decoding: u[..<match.range.lowerBound], as: UTF16.self)
                found = Header(line: i, length: 1, kind: .attribution, prefix: Substring(prefix))
                return false
            }
            return true
        } }
        if let found { return found }
        // an attribution on one line, or wrapped onto up to five
        if let n = attributionLength(lines, at: i) { return Header(line: i, length: n, kind: .attribution) }
        return nil
    }

    private func attributionLength(_ lines: ArraySlice<Substring>, at i: Int) -> Int? {
        var joined = ""
        var used = 0
        var k = i
        while k < lines.endIndex, used < 5 {
            let t = trimmed(lines[k])
            k += 1
            if t.isEmpty { if used == 0 { return nil } else { continue } }
            joined += (joined.isEmpty ? "" : " ") + String(t)
            used += 1
            // more than one line only when the first looks like the start of one; the text so
            // far can be one only when its last line ends as an attribution does
            let mayEnd = mayEndHeader(t)
            if used == 1, mayEnd, isAttribution(Array(joined.utf16)) { return k - i }
            if used == 1, !startsAttribution(Substring(joined)) { return nil }
            if used > 1, mayEnd, isAttribution(Array(joined.utf16)) { return k - i }
        }
        return nil
    }

    private func isAttribution(_ u: [UInt16]) -> Bool {
        // a date or an address in it: "He wrote:" alone is text (checked first: it is cheap)
        u.count < 600 && Self.hasDateOrAddress(u) && m.attribution.wholeMatch(u) != nil
    }

    private static func hasDateOrAddress(_ u: [UInt16]) -> Bool {
        u.contains { ($0 >= 0x30 && $0 <= 0x39) || $0 == 0x40 } || u.first == 0x2D
    }

    private func startsAttribution(_ s: Substring) -> Bool {
        var starts = false
        m.attributionStartsLine.forEachMatch(in: Array(s.utf16)) { _ in
            starts = true
            return false
        }
        return starts || s.first?.isNumber == true
    }

    /// A From:, Date: or To: line with another field of a header (From, Sent, To, Subject,
    /// Cc) under it.
    private func isHeaderBlock(_ lines: ArraySlice<Substring>, from i: Int) -> Bool {
        let first = m.headerField.fieldNumber(Array(trimmed(lines[i]).utf16))
        var k = i + 1
        while k < lines.endIndex, k <= i + 8 {
            if let f = m.headerField.fieldNumber(Array(trimmed(lines[k]).utf16)), f != first { return true }
            k += 1
        }
        return false
    }

    /// The lines of a header block: up to the first blank line after its fields.
    private func headerBlockEnd(_ lines: ArraySlice<Substring>, from i: Int) -> Int {
        var k = i
        while k < lines.endIndex, !isBlank(lines[k]) { k += 1 }
        return k
    }

    /// Where the signature starts: a `-- ` line, a mobile footer among the last lines, or a
    /// trailing legal disclaimer.
    private func signatureLine(_ reply: [Substring]) -> Int? {
        let firstText = reply.firstIndex { !isBlank($0) } ?? reply.count
        var cut: Int?
        for i in reply.indices where i > firstText {
            let t = trimmed(reply[i])
            guard let c = t.unicodeScalars.first, c == "-" || c == "—" || c == "_" || c == "/" else { continue }
            if m.signatureDelimiter.wholeMatch(Array(t.utf16)) != nil {
                cut = i
                break
            }
        }
        let end = cut ?? reply.count
        // mobile footers among the last three lines with text
        var seen = 0
        var i = end - 1
        while i > firstText, seen < 3 {
            if !isBlank(reply[i]) {
                seen += 1
                if m.mobileSignature.wholeMatch(Array(trimmed(reply[i]).utf16)) != nil { cut = i }
            }
            i -= 1
        }
        // disclaimers: trailing paragraphs whose first line says so
        var k = (cut ?? reply.count) - 1
        while k > firstText {
            if isBlank(reply[k - 1]) || k == firstText + 1, !isBlank(reply[k]) {
                guard m.disclaimer.wholeMatch(Array(trimmed(reply[k]).utf16)) != nil else { break }
                cut = k
            }
            k -= 1
        }
        // a sign-off ("Regards,") and up to three name lines, at the end
        var last = (cut ?? reply.count) - 1
        while last > firstText, isBlank(reply[last]) { last -= 1 }
        var j = last
        while j > firstText, j >= last - 3, !isBlank(reply[j]) {
            if m.closing.wholeMatch(Array(trimmed(reply[j]).utf16)) != nil { cut = j; break }
            j -= 1
        }
        return cut
    }

    /// A line of dashes or underscores only, as drawn above a quoted header.
    private func isRule(_ line: Substring) -> Bool {
        let t = trimmed(line)
        return t.count >= 5 && t.allSatisfy { $0 == "-" || $0 == "_" }
    }

    private func isQuote(_ line: Substring) -> Bool {
        for c in line.utf8 {
            if c == 0x3E { return true }
            if c != 0x20 && c != 0x09 { return false }
        }
        return false
    }

    private func isBlank(_ line: Substring) -> Bool { line.utf8.allSatisfy { $0 == 0x20 || $0 == 0x09 || $0 == 0x0D } }

    private func trimmed(_ line: Substring) -> Substring {
        let scalars = line.unicodeScalars
        guard let first = scalars.firstIndex(where: { !$0.properties.isWhitespace }),
              let last = scalars.lastIndex(where: { !$0.properties.isWhitespace }) else { return "" }
        return line[first...last]
    }

    /// The lines without blank lines at either end or two in a row, nor trailing spaces.
    private func joined(_ lines: [Substring]) -> String {
        var out: [Substring] = []
        for line in lines {
            var l = line
            while let last = l.last, last == " " || last == "\t" || last == "\r" { l.removeLast() }
            if l.isEmpty, out.last?.isEmpty ?? true { continue }
            out.append(l)
        }
        if out.last?.isEmpty == true { out.removeLast() }
        return out.joined(separator: "\n")
    }
}

extension TextPattern {
    /// The group number of the header field `u` starts with, nil when none.
    func fieldNumber(_ u: [UInt16]) -> Int? {
        var n: Int?
        forEachMatch(in: u) { match in
            if match.range.lowerBound == 0 { n = match.groups.indices.dropFirst().first { match.groups[$0] != nil } }
            return false
        }
        return n
    }
}


/// The lines of `text`, split at LF with any CR before it dropped. (A String splits at
/// Characters, and CR LF is one Character: split the UTF-8.)
func textLines(_ text: String) -> [Substring] {
    var lines: [Substring] = []
    let utf8 = text.utf8
    var start = utf8.startIndex
    var i = start
    while i != utf8.endIndex {
        if utf8[i] == 0x0A {
            var end = i
            if end > start, utf8[utf8.index(before: end)] == 0x0D { end = utf8.index(before: end) }
            lines.append(text[start..<end])
            start = utf8.index(after: i)
        }
        i = utf8.index(after: i)
    }
    var end = utf8.endIndex
    if end > start, utf8[utf8.index(before: end)] == 0x0D { end = utf8.index(before: end) }
    lines.append(text[start..<end])
    return lines
}
