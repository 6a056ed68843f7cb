/// Plain text that the sender's program cut into lines at a fixed width (72, 76, 78 columns…)
/// joined back into flowing paragraphs, so that a bubble on a phone does not break every line
/// in the middle. Only the breaks the wrapping made are undone: a line is joined to the next
/// when both are prose and the next line's first word would not have fitted on it. Kept as
/// written: blank lines, short lines (an address, a poem, a signature's), list items, quoted
/// lines (`>`), everything from a signature's `-- ` or a patch's `diff` on, and preformatted
/// lines (indented by four columns or a tab, aligned in columns, fenced by ```, or mostly
/// symbols).
///
/// The width is the message's own: the longest prose line, when it is between 60 and 80
/// columns (East Asian wide characters counting two) and no prose line goes past it where it
/// could have been cut. Text with no sign of wrapping (no two lines cut at that width, or one
/// cut in the middle of a sentence) is left as it is. Chinese and Japanese lines are joined
/// without a space; a word cut at its hyphen keeps the hyphen and no space.
///
/// format=flowed (RFC 3676) is not this: text-extract undoes it, and the breaks left in its
/// text are the sender's own.
public enum Reflow {
    static let narrowest = 60, widest = 80

    enum Kind { case blank, prose, fixed }

    struct Line {
        var start = 0  // the line's first byte
        var rawEnd = 0  // before its LF
        var end = 0  // after its last byte that is not a space, a tab or a CR
        var contentStart = 0  // after its indent
        var indent = 0  // columns
        var width = 0  // columns, the indent's included, up to `end`
        var kind = Kind.prose
        var item = false  // starts with a list marker
        var itemColumn = -1  // where an item's text starts, for its continuation lines
        var firstUnit = 0  // columns of the first word (of the first character when it is CJK)
        var first: UInt32 = 0, last: UInt32 = 0, beforeLast: UInt32 = 0
        var words = 0
        var headerLike = false  // "Subject: …", "From: …"
        var startsLink = false  // "https://…"
    }

    /// `text` with its wrapped paragraphs joined; the same bytes when it shows no wrapping.
    public static func paragraphs(_ text: [UInt8]) -> [UInt8] {
        // most messages are a few short lines: no line as long as the narrowest width, in bytes
        // (a character takes at least as many bytes as columns), means no wrapping
        var longest = 0, lineStart = 0, breaks = 0
        for i in text.indices where text[i] == 0x0A {
            longest = max(longest, i - lineStart)
            lineStart = i + 1
            breaks += 1
        }
        longest = max(longest, text.count - lineStart)
        guard breaks > 0, longest >= narrowest else { return text }
        return text.withUnsafeBufferPointer { t in
            let lines = classify(t)
            guard let width = wrapWidth(lines, t) else { return text }
            var joins = [Bool](repeating: false, count: lines.count)
            var evidence = 0, midSentence = false
            for k in 0..<(lines.count - 1) where wrapped(lines, k, width: width) {
                joins[k] = true
                evidence += 1
                if isMidSentence(lines[k], lines[k + 1]) { midSentence = true }
            }
            guard evidence >= 2 || evidence == 1 && midSentence else { return text }
            var out: [UInt8] = []
            out.reserveCapacity(text.count)
            for (k, line) in lines.enumerated() {
                let joined = k > 0 && joins[k - 1]
                if joined {
                    if separated(lines[k - 1], line) { out.append(0x20) }
                } else if k > 0 {
                    out.append(0x0A)
                }
                let from = joined ? line.contentStart : line.start
                let to = joins[k] ? line.end : line.rawEnd
                out.append(contentsOf: UnsafeBufferPointer(rebasing: t[from..<max(from, to)]))
            }
            return out
        }
    }

    // MARK: the lines

    static func classify(_ t: UnsafeBufferPointer<UInt8>) -> [Line] {
        var lines: [Line] = []
        var start = 0
        var toTheEnd = false, fenced = false  // after a signature's `-- ` or a patch's start; inside ```
        var itemColumn = -1  // of the list item the lines above belong to
        while start <= t.count {
            var rawEnd = start
            while rawEnd < t.count, t[rawEnd] != 0x0A { rawEnd += 1 }
            var line = describe(t, start, rawEnd)
            let (c, e) = (line.contentStart, line.end)
            let isFence = has(t, c, e, "```") || has(t, c, e, "~~~")
            if line.kind != .blank {
                let isSignature = line.indent == 0 && e - c == 2 && has(t, c, e, "--")
                // a patch (`git format-patch`, `diff -u`) runs to the end as a signature does
                let isPatch = line.indent == 0 && (has(t, c, e, "diff --git ") || has(t, c, e, "--- a/") || has(t, c, e, "Index: ")
                    || has(t, c, e, "diff -u"))
                if isSignature || isPatch { toTheEnd = true }
                if isFence { fenced.toggle() }
                if toTheEnd || fenced || isFence { line.kind = .fixed }
            }
            // indented by four columns is code, unless it goes on with a list item's text under it
            if line.kind != .prose {
                itemColumn = -1
            } else if line.item {
                itemColumn = line.itemColumn
            } else if line.indent >= 4, line.indent != itemColumn {
                line.kind = .fixed
                itemColumn = -1
            }
            lines.append(line)
            start = rawEnd + 1
        }
        return lines
    }

    /// One line's facts, its kind from itself alone.
    static func describe(_ t: UnsafeBufferPointer<UInt8>, _ start: Int, _ rawEnd: Int) -> Line {
        var l = Line()
        l.start = start
        l.rawEnd = rawEnd
        var end = rawEnd
        while end > start, t[end - 1] == 0x20 || t[end - 1] == 0x09 || t[end - 1] == 0x0D { end -= 1 }
        l.end = end
        var i = start, column = 0, tabbed = false
        while i < end, t[i] == 0x20 || t[i] == 0x09 {
            if t[i] == 0x09 { tabbed = true; column = column / 8 * 8 + 8 } else { column += 1 }
            i += 1
        }
        l.contentStart = i
        l.indent = column
        if i == end {
            l.kind = .blank
            return l
        }
        if t[i] == UInt8(ascii: ">") || tabbed { l.kind = .fixed }

        // the width, the first word, the words, the last characters, and what looks preformatted
        var spaces = 1, aligned = false  // (as if after a space: the first character starts a word)
        var symbols = 0, letters = 0, tokenSymbols = 0, tokenIsAddress = false
        var inFirstUnit = true, firstUnit = 0, words = 0
        var last: UInt32 = 0, beforeLast: UInt32 = 0
        l.first = decode(t, i).0
        var k = i
        while k < end {
            let b = t[k]
            var v = UInt32(b), n = 1, w = 1
            if b >= 0x80 {
                (v, n) = decode(t, k)
                w = columns(v)
            }
            if b == 0x20 || b == 0x09 {
                if b == 0x09 { aligned = true }
                spaces += 1
                if spaces >= 3 { aligned = true }
                inFirstUnit = false
                if !tokenIsAddress { symbols += tokenSymbols }
                tokenSymbols = 0
                tokenIsAddress = false
            } else {
                if spaces > 0 { words += 1 }
                spaces = 0
                if inFirstUnit {
                    if b >= 0x80, isCJK(v) {
                        if firstUnit == 0 { firstUnit = w }
                        inFirstUnit = false
                    } else {
                        firstUnit += w
                    }
                }
                if b < 0x80, isSymbol(b) { tokenSymbols += 1 } else { letters += 1 }
                if b == UInt8(ascii: "@") || b == UInt8(ascii: ":") && k + 2 < end && t[k + 1] == 0x2F && t[k + 2] == 0x2F {
                    tokenIsAddress = true  // a link or an address: its symbols are not code's
                }
                beforeLast = last
                last = v
            }
            column += w
            k += n
        }
        l.firstUnit = firstUnit
        l.words = words
        l.last = last
        l.beforeLast = beforeLast
        if !tokenIsAddress { symbols += tokenSymbols }
        l.width = column
        if aligned || symbols * 10 >= (symbols + letters) * 3 { l.kind = .fixed }
        if let marker = listMarker(t, i, end) {
            l.item = true
            var c = i + marker
            while c < end, t[c] == 0x20 { c += 1 }
            l.itemColumn = l.indent + width(t, i, c)
        }
        l.headerLike = isHeaderLike(t, i, end)
        l.startsLink = t[i] == UInt8(ascii: "h") && (has(t, i, end, "http://") || has(t, i, end, "https://"))
        return l
    }

    /// The bytes of a list marker at `i` ("- ", "* ", "• ", "1. ", "12) ", "a) ", "(iv) ", "・", "①"), or nil.
    static func listMarker(_ t: UnsafeBufferPointer<UInt8>, _ i: Int, _ end: Int) -> Int? {
        func spaceAt(_ k: Int) -> Bool { k < end && t[k] == 0x20 }
        let (v, n) = decode(t, i)
        switch v {
        case 0x2D, 0x2A, 0x2B, 0x2022, 0x00B7, 0x2013, 0x2014, 0x25AA, 0x25E6, 0x2023, 0x2043:  // - * + • · – — ▪ ◦ ‣ ⁃
            return spaceAt(i + n) ? n : nil
        case 0x30FB, 0x25CF, 0x25A0, 0x25C6, 0x25A1, 0x25CB, 0x25CE, 0x2605, 0x2606, 0x203B, 0x2460...0x2473, 0x2776...0x277F:
            return n  // ・●■◆□○◎★☆※ ①…⑳ ❶…❿, written with or without a space
        default: break
        }
        var k = i
        if t[k] == UInt8(ascii: "(") {
            k += 1
            let first = k
            while k < end, k - first < 4, isAlphanumeric(t[k]) { k += 1 }
            return k > first && k < end && t[k] == UInt8(ascii: ")") && spaceAt(k + 1) ? k + 1 - i : nil
        }
        while k < end, k - i < 3, t[k] >= 0x30, t[k] <= 0x39 { k += 1 }
        if k > i {
            return k < end && (t[k] == UInt8(ascii: ".") || t[k] == UInt8(ascii: ")")) && spaceAt(k + 1) ? k + 1 - i : nil
        }
        // a letter: "a) ", "b. ", "A) " (not "A. ", an initial)
        if k + 1 < end, t[k] | 0x20 >= UInt8(ascii: "a"), t[k] | 0x20 <= UInt8(ascii: "z"), spaceAt(k + 2) {
            if t[k + 1] == UInt8(ascii: ")") || t[k + 1] == UInt8(ascii: ".") && t[k] >= UInt8(ascii: "a") { return 2 }
        }
        return nil
    }

    /// "Subject: …": a word of letters (and hyphens) starting with a capital, then a colon and a space.
    static func isHeaderLike(_ t: UnsafeBufferPointer<UInt8>, _ i: Int, _ end: Int) -> Bool {
        guard i < end, t[i] >= UInt8(ascii: "A"), t[i] <= UInt8(ascii: "Z") else { return false }
        var k = i + 1
        while k < end, k - i < 24, t[k] | 0x20 >= UInt8(ascii: "a") && t[k] | 0x20 <= UInt8(ascii: "z") || t[k] == UInt8(ascii: "-") { k += 1 }
        return k + 1 < end && t[k] == UInt8(ascii: ":") && t[k + 1] == 0x20
    }

    // MARK: the width and the breaks

    /// The width the text was wrapped at, or nil when it was not.
    static func wrapWidth(_ lines: [Line], _ t: UnsafeBufferPointer<UInt8>) -> Int? {
        var width = 0
        for l in lines where l.kind == .prose && l.width <= widest { width = max(width, l.width) }
        guard width >= narrowest else { return nil }
        // a prose line longer than that which the program would have cut: not wrapped at it
        for l in lines where l.kind == .prose && l.width > width {
            if couldBreak(t, l, width: width) { return nil }
        }
        return width
    }

    /// Whether a line has a place a wrapping program cuts at (a space, or beside a CJK
    /// character) between half the width and the width.
    static func couldBreak(_ t: UnsafeBufferPointer<UInt8>, _ l: Line, width: Int) -> Bool {
        var column = l.indent, k = l.contentStart, previousCJK = false
        while k < l.end, column <= width {
            let (v, n) = decode(t, k)
            let cjk = isCJK(v)
            if column >= width / 2, v == 0x20 || cjk || previousCJK { return true }
            previousCJK = cjk
            column += columns(v)
            k += n
        }
        return false
    }

    /// Whether the break after line `k` is one the wrapping made: both lines are prose, the next
    /// is no list item, this one is long, and the next one's first word would not have fitted on it.
    static func wrapped(_ lines: [Line], _ k: Int, width: Int) -> Bool {
        let a = lines[k], b = lines[k + 1]
        // a short line is a break of its own, unless what follows it is a word (a link) too long to go on it
        guard a.kind == .prose, b.kind == .prose, !b.item, a.width * 3 >= width * 2 || b.firstUnit * 3 >= width else { return false }
        if a.words == 1 && a.startsLink && b.startsLink { return false }  // links one a line
        if a.headerLike && b.headerLike { return false }  // a forwarded message's headers
        if isClosing(lines, k) { return false }
        if isCJK(a.last) || isCJK(b.first) {
            // a program cuts CJK text at any character, one or two early to keep punctuation
            // off the start of a line
            return a.width + b.firstUnit > width - 2
        }
        let space = isHyphenated(a, b) ? 0 : 1
        return a.width + space + b.firstUnit > width
    }

    /// A sign-off's name under a full line ending in a comma ("…, all the best,\nAlex"), the last of its paragraph.
    static func isClosing(_ lines: [Line], _ k: Int) -> Bool {
        let a = lines[k], b = lines[k + 1]
        guard a.last == UInt32(UInt8(ascii: ",")), b.words <= 3, isUpper(b.first) else { return false }
        guard k + 2 >= lines.count || lines[k + 2].kind == .blank else { return false }
        return !isSentenceEnd(b.last) && b.last != UInt32(UInt8(ascii: ","))
    }

    /// A break in the middle of a sentence: the surest sign of wrapping.
    static func isMidSentence(_ a: Line, _ b: Line) -> Bool {
        if isCJK(a.last) || isCJK(b.first) { return !isSentenceEnd(a.last) }
        return !isSentenceEnd(a.last) && b.first >= 0x61 && b.first <= 0x7A
    }

    /// Whether joining the two lines takes a space: not beside Chinese or Japanese, nor after a word cut at its hyphen.
    static func separated(_ a: Line, _ b: Line) -> Bool {
        !(isCJK(a.last) || isCJK(b.first) || isHyphenated(a, b))
    }

    /// "well-" then "known": a word a program cut after its hyphen.
    static func isHyphenated(_ a: Line, _ b: Line) -> Bool {
        a.last == 0x2D && isLetter(a.beforeLast) && isLetter(b.first)
    }

    // MARK: characters

    @inline(__always)
    static func decode(_ t: UnsafeBufferPointer<UInt8>, _ i: Int) -> (UInt32, Int) {
        let b = t[i]
        if b < 0x80 { return (UInt32(b), 1) }
        if b >= 0xC0, b < 0xE0, i + 1 < t.count { return (UInt32(b & 0x1F) << 6 | UInt32(t[i + 1] & 0x3F), 2) }
        if b >= 0xE0, b < 0xF0, i + 2 < t.count {
            return (UInt32(b & 0x0F) << 12 | UInt32(t[i + 1] & 0x3F) << 6 | UInt32(t[i + 2] & 0x3F), 3)
        }
        if b >= 0xF0, i + 3 < t.count {
            return (UInt32(b & 0x07) << 18 | UInt32(t[i + 1] & 0x3F) << 12 | UInt32(t[i + 2] & 0x3F) << 6 | UInt32(t[i + 3] & 0x3F), 4)
        }
        return (0xFFFD, 1)
    }

    /// The columns a character takes in a terminal: two for East Asian wide and fullwidth
    /// ones, none for combining marks and zero-width ones, else one.
    static func columns(_ v: UInt32) -> Int {
        if v < 0x300 { return 1 }
        switch v {
        case 0x300...0x36F, 0x200B...0x200F, 0x20D0...0x20FF, 0xFE00...0xFE0F, 0xFEFF: return 0
        case 0x1100...0x115F, 0x2E80...0x303E, 0x3041...0x33FF, 0x3400...0x4DBF, 0x4E00...0x9FFF, 0xA000...0xA4CF,
             0xAC00...0xD7A3, 0xF900...0xFAFF, 0xFE30...0xFE4F, 0xFF00...0xFF60, 0xFFE0...0xFFE6,
             0x1F300...0x1F64F, 0x1F900...0x1F9FF, 0x20000...0x3FFFD: return 2
        default: return 1
        }
    }

    /// Characters of the scripts written without spaces between words (Han, kana, their
    /// punctuation and fullwidth forms; not Hangul, whose words are spaced).
    static func isCJK(_ v: UInt32) -> Bool {
        switch v {
        case 0x2E80...0x303F, 0x3040...0x31FF, 0x3400...0x4DBF, 0x4E00...0x9FFF, 0xF900...0xFAFF, 0xFE30...0xFE4F,
             0xFF00...0xFFEF, 0x20000...0x3FFFD: return true
        default: return false
        }
    }

    static func isSentenceEnd(_ v: UInt32) -> Bool {
        switch v {
        case 0x2E, 0x21, 0x3F, 0x3A, 0x3B, 0x22, 0x27, 0x29, 0x201D, 0x2019, 0x2026,  // . ! ? : ; " ' ) ” ’ …
             0x3002, 0xFF01, 0xFF1F, 0xFF1A, 0x300D, 0x300F, 0xFF09, 0xFF0E: return true  // 。！？：」』）．
        default: return false
        }
    }

    static func isLetter(_ v: UInt32) -> Bool { v | 0x20 >= 0x61 && v | 0x20 <= 0x7A || v >= 0xC0 && v < 0x2000 && v != 0xD7 && v != 0xF7 }
    static func isUpper(_ v: UInt32) -> Bool { v >= 0x41 && v <= 0x5A || v >= 0xC0 && v <= 0xDE && v != 0xD7 }
    static func isAlphanumeric(_ b: UInt8) -> Bool { b | 0x20 >= UInt8(ascii: "a") && b | 0x20 <= UInt8(ascii: "z") || b >= 0x30 && b <= 0x39 }

    /// Characters code and tables are made of and prose seldom uses:
    /// `{ } [ ] < > = + * / \ | _ # $ % ^ & ~ ` ; ( ) - @` (a bit each, by their ASCII code).
    @inline(__always)
    static func isSymbol(_ b: UInt8) -> Bool {
        b < 64 ? symbolsBelow64 >> b & 1 == 1 : b < 128 && symbolsFrom64 >> (b - 64) & 1 == 1
    }

    static let symbolsBelow64: UInt64 = 0x7800_af78_0000_0000  // <>=+*/#$%&;()-
    static let symbolsFrom64: UInt64 = 0x7800_0001_f800_0001  // {}[]\|_^~`@ (less 64)

    /// Whether the bytes at `i` (before `end`) start with `prefix`.
    static func has(_ t: UnsafeBufferPointer<UInt8>, _ i: Int, _ end: Int, _ prefix: StaticString) -> Bool {
        guard end - i >= prefix.utf8CodeUnitCount else { return false }
        for k in 0..<prefix.utf8CodeUnitCount where t[i + k] != prefix.utf8Start[k] { return false }
        return true
    }

    static func width(_ t: UnsafeBufferPointer<UInt8>, _ from: Int, _ to: Int) -> Int {
        var k = from, w = 0
        while k < to {
            let (v, n) = decode(t, k)
            w += columns(v)
            k += n
        }
        return w
    }
}
