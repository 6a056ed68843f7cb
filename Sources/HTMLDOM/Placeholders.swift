#if canImport(Glibc)
import Glibc
#endif
import CLibcExtras
import UTF8Text

/// Runs of text and of attribute values swapped for one byte each before libxml2 parses, and
/// put back as its events come. libxml2 reads text and values a character at a time (decoding,
/// checking and re-encoding each, some 70 instructions a byte: 40% of html-sanitize); a run
/// put back is one memcpy.
///
/// Only what libxml2 would hand over as it is gets swapped: in text, from the first to the last
/// non-blank byte (libxml2 skips leading blanks in places) of a stretch without '<' or a
/// character libxml2 drops, through the references whose character is certain (`&amp;`, `&lt;`,
/// `&gt;`, `&quot;`, numeric ones: put back decoded); in a quoted attribute value, the pieces
/// between references. The
/// scan that finds them follows libxml2's reading of markup, and where it could part from it
/// the parse tells: a text mark libxml2 does not report as text (it read it as part of a tag, a
/// comment or a script) or a value mark it does not report in a value goes missing, the counts
/// at the end differ, and the document is parsed again as it is (`HTMLStream`). Value marks,
/// which a misread tag could put in a value libxml2 splits differently, are only used while
/// every tag before has been read as libxml2 reads well-formed markup.
struct Placeholders {
    /// DEL: libxml2 reports it as text and keeps it in values.
    static let textMark: UInt8 = 0x7F
    /// libxml2 drops it from text (an invalid character) and keeps it in values.
    static let valueMark: UInt8 = 0x01
    /// Shorter runs stay: a mark costs libxml2 about as much as these bytes.
    static let shortest = 4

    /// What libxml2 parses instead of the document.
    let swapped: [UInt8]
    /// What each text mark stands for, in document order: its bytes in the document, or in
    /// `decoded` when it holds references.
    let textRuns: [TextRun]
    let decoded: [UInt8]
    struct TextRun {
        let bytes: Range<Int>
        let isDecoded: Bool
        var kind = Kind.text
        enum Kind {
            case text
            /// The whole raw text of a style or script, which libxml2 must report as raw text.
            case raw
            /// The whole text of a comment, which libxml2 must report as a comment's (and no
            /// handler sees).
            case comment
            /// Text of blanks only, between two tags in the body: libxml2 reports it as text there
            /// whether it is blank or not. (Where an element other than html or head is open,
            /// libxml2 does the same with blanks as with other text; the restorer checks that
            /// no paragraph was invented for it, which it does for text in html or head.)
            case blanks
        }
    }

    /// What each value mark stands for: its bytes in the document.
    let valueRuns: [Range<Int>]

    /// The start tags read in step whose attributes are all plain (values whose references are
    /// certain, lowercase names, none twice): their attributes are taken out, and handed over from the
    /// document when libxml2 reports the element where the tag ends (libxml2 reads names and
    /// values a character at a time, and allocates each value).
    let attributeLists: [AttributeList]
    struct AttributeList {
        /// Where the tag ends ('>' or "/>") in `swapped`.
        let tagEnd: Int
        /// The tag's name in the document.
        let name: Range<Int>
        /// A range of `listAttributes`.
        let attributes: Range<Int>
    }
    struct ListAttribute {
        let name: Range<Int>
        let value: Range<Int>?
        /// The value is in `listDecoded` (its references decoded), not in the document.
        var isDecoded = false
    }
    let listAttributes: [ListAttribute]
    let listDecoded: [UInt8]

    /// nil when there is nothing worth swapping, or the document holds a mark byte, a character
    /// reference to the text mark (libxml2 would report its character where a mark is looked
    /// for) or invalid UTF-8 (on which libxml2 switches to reading Latin-1 and would read runs
    /// differently).
    init?(_ p: UnsafeBufferPointer<UInt8>) {
        guard let base = p.baseAddress, p.count >= 2 * Self.shortest,
              memchr(base, Int32(Self.textMark), p.count) == nil, memchr(base, Int32(Self.valueMark), p.count) == nil,
              !Self.refersToTextMark(p), UTF8Bytes.isValid(UnsafeRawBufferPointer(p)) else { return nil }
        var scan = Scan(p)
        scan.run()
        guard scan.copied > 0 else { return nil }
        scan.out.append(contentsOf: UnsafeBufferPointer(rebasing: p[scan.copied...]))
        swapped = scan.out
        textRuns = scan.textRuns
        decoded = scan.decoded
        valueRuns = scan.valueRuns
        attributeLists = scan.attributeLists
        listAttributes = scan.listAttributes
        listDecoded = scan.listDecoded
    }

    /// Whether a numeric character reference (`&#127;`, `&#x7f`, with or without its ';', any
    /// leading zeros) stands for the text mark: libxml2 reads one wherever it is.
    static func refersToTextMark(_ p: UnsafeBufferPointer<UInt8>) -> Bool {
        var from = 0
        while let amp = p.firstIndex(of: UInt8(ascii: "&"), from: from) {
            from = amp + 1
            guard amp + 2 < p.count, p[amp + 1] == UInt8(ascii: "#") else { continue }
            var j = amp + 2
            let hex = p[j] | 0x20 == UInt8(ascii: "x")
            if hex { j += 1 }
            var value = 0
            while j < p.count, value <= 0x7F {
                let b = p[j]
                if b &- 0x30 < 10 {
                    value = value * (hex ? 16 : 10) + Int(b &- 0x30)
                } else if hex, (b | 0x20) &- 0x61 < 6 {
                    value = value * 16 + Int((b | 0x20) &- 0x61 + 10)
                } else {
                    break
                }
                j += 1
            }
            if value == 0x7F, j == p.count || !Self.isDigit(p[j], hex: hex) { return true }
        }
        return false
    }

    private static func isDigit(_ b: UInt8, hex: Bool) -> Bool {
        b &- 0x30 < 10 || hex && (b | 0x20) &- 0x61 < 6
    }

    private struct Scan {
        let p: UnsafeBufferPointer<UInt8>
        var out: [UInt8] = []
        var copied = 0  // p[..<copied] is in out
        var textRuns: [TextRun] = []
        var decoded: [UInt8] = []
        var valueRuns: [Range<Int>] = []
        /// Whether every tag so far was read as libxml2 reads it: value marks only then.
        var valuesInStep = true
        private var names: [Range<Int>] = []  // the attribute names of the tag being read
        var attributeLists: [AttributeList] = []
        var listAttributes: [ListAttribute] = []
        var listDecoded: [UInt8] = []
        private var pendingValues: [Range<Int>] = []  // the tag's values to swap, unless its list is
        /// Whether blank text is swapped: from a `<body>` tag read in step to an end tag of body
        /// or html (or a frameset), where libxml2 has body open.
        private var inBody = false
        private var bodyEnded = false
        /// The text after a pre, textarea or listing start tag, whose first newline libxml2 may treat apart.
        private var afterPreformatted = false

        init(_ p: UnsafeBufferPointer<UInt8>) { self.p = p }

        mutating func run() {
            let n = p.count
            var i = 0
            while i < n {
                i = text(from: i)
                guard i + 1 < n else { return }
                let next = p[i + 1]
                if next == UInt8(ascii: "!") {
                    if i + 3 < n, p[i + 2] == UInt8(ascii: "-"), p[i + 3] == UInt8(ascii: "-") {
                        let inStep = valuesInStep
                        guard let end = comment(from: i + 4) else { return }
                        if inStep, valuesInStep, isSwappableComment(i + 4..<end - 3) {
                            swap(i + 4..<end - 3, mark: Placeholders.textMark)
                            textRuns.append(TextRun(bytes: i + 4..<end - 3, isDecoded: false, kind: .comment))
                        }
                        i = end
                    } else {  // a doctype: IgnoredMarkup took out every other "<!"
                        guard let gt = p.firstIndex(of: UInt8(ascii: ">"), from: i) else { return }
                        // libxml2 reads quoted identifiers in it: it ends at this '>' unless one holds it
                        var j = i
                        while j < gt {
                            if p[j] == UInt8(ascii: "\"") || p[j] == UInt8(ascii: "'") {
                                guard let close = p.firstIndex(of: p[j], from: j + 1), close < gt else {
                                    valuesInStep = false
                                    break
                                }
                                j = close
                            }
                            j += 1
                        }
                        i = gt + 1
                    }
                } else if next == UInt8(ascii: "/") {  // an end tag: libxml2 skips to its '>'
                    guard i + 2 < n, Self.isLetter(p[i + 2]) || p[i + 2] == UInt8(ascii: "_") || p[i + 2] == UInt8(ascii: ":")
                            || p[i + 2] == UInt8(ascii: ".") else {
                        // no name: libxml2 takes the "</" alone and reads on from there
                        valuesInStep = false
                        i += 2
                        continue
                    }
                    guard let gt = p.firstIndex(of: UInt8(ascii: ">"), from: i + 2) else { return }
                    if inBody {
                        var end = i + 2
                        while end < gt, Self.isNameByte(p[end]) { end += 1 }
                        let name = Self.lowercaseName(p, i + 2..<end)
                        if name == Self.body || name == Self.html {
                            inBody = false
                            bodyEnded = true
                        }
                    }
                    i = gt + 1
                } else if Self.isLetter(next) {
                    guard let end = startTag(at: i) else { return }
                    i = end
                } else if next == UInt8(ascii: "?") {  // IgnoredMarkup cut these; should one stay, stop
                    return
                } else {
                    i += 1  // a '<' that is text
                }
            }
        }

        /// Reads text from `start` to the next '<' (its index) or the end, swapping its runs.
        private mutating func text(from start: Int) -> Int {
            let n = p.count
            var i = start
            let blanksSwappable = inBody && valuesInStep && !afterPreformatted
            afterPreformatted = false
            var segmentStart = start  // of the text between references libxml2 must read
            var droppable = false  // holds a character libxml2 drops from text
            var references = false  // holds references to decode
            while true {
                i += mp_html_plain_text_length(p.baseAddress! + i, n - i)
                if i < n, p[i] == UInt8(ascii: "&"), let reference = Self.reference(p, at: i) {
                    references = true
                    i = reference.end
                    continue
                }
                if i < n, p[i] != UInt8(ascii: "<"), p[i] != UInt8(ascii: "&") {
                    // a control character, or U+FFFE or U+FFFF (EF BF BE, EF BF BF)
                    if p[i] != 0xEF || i + 2 < n && p[i + 1] == 0xBF && p[i + 2] >= 0xBE { droppable = true }
                    i += 1
                    continue
                }
                if !droppable {
                    // libxml2 skips leading blanks in places: the run starts and ends with non-blanks
                    var first = segmentStart, end = i
                    while first < end, Self.isBlank(p[first]) { first += 1 }
                    while end > first, Self.isBlank(p[end - 1]) { end -= 1 }
                    if end - first >= Placeholders.shortest {
                        swapText(first..<end, decoding: references)
                    } else if first == end, segmentStart == start, blanksSwappable, i - start >= Placeholders.shortest,
                              i < n, p[i] == UInt8(ascii: "<") {
                        // the whole text between two tags is blank (in a body, the indentation of markup)
                        swap(start..<i, mark: Placeholders.textMark)
                        textRuns.append(TextRun(bytes: start..<i, isDecoded: false, kind: .blanks))
                    }
                }
                if i >= n || p[i] == UInt8(ascii: "<") { return i }
                i = afterReference(i + 1)
                segmentStart = i
                droppable = false
                references = false
            }
        }

        /// A reference at `i` whose character libxml2 reads for certain, and where it ends.
        static func reference(_ p: UnsafeBufferPointer<UInt8>, at i: Int) -> (scalar: UInt32, end: Int)? {
            let n = p.count
            guard i + 3 < n else { return nil }
            if p[i + 1] == UInt8(ascii: "#") {
                var j = i + 2
                let hex = p[j] | 0x20 == UInt8(ascii: "x")
                if hex { j += 1 }
                let digitsStart = j
                var value: UInt32 = 0
                while j < n, j - digitsStart < 7 {
                    let b = p[j]
                    if b &- 0x30 < 10 {
                        value = value * (hex ? 16 : 10) + UInt32(b &- 0x30)
                    } else if hex, (b | 0x20) &- 0x61 < 6 {
                        value = value * 16 + UInt32((b | 0x20) &- 0x61 + 10)
                    } else {
                        break
                    }
                    j += 1
                }
                // the characters libxml2 takes (IS_CHAR), but for the marks and the controls it drops
                guard j > digitsStart, j < n, p[j] == UInt8(ascii: ";"),
                      value == 0x09 || value == 0x0A || value == 0x0D || (0x20...0xD7FF).contains(value) && value != 0x7F
                        || (0xE000...0xFFFD).contains(value) || (0x10000...0x10FFFF).contains(value) else { return nil }
                return (value, j + 1)
            }
            for (name, character) in Self.certainNames where i + 1 + name.count < n && p[i + 1 + name.count] == UInt8(ascii: ";") {
                if zip(name, p[(i + 1)...]).allSatisfy({ $0 == $1 }) { return (character, i + 2 + name.count) }
            }
            return nil
        }

        private static let certainNames: [([UInt8], UInt32)] = [(Array("amp".utf8), 0x26), (Array("lt".utf8), 0x3C),
                                                                  (Array("gt".utf8), 0x3E), (Array("quot".utf8), 0x22)]

        private mutating func swapText(_ run: Range<Int>, decoding references: Bool) {
            swap(run, mark: Placeholders.textMark)
            guard references else { return textRuns.append(TextRun(bytes: run, isDecoded: false)) }
            let start = decoded.count
            var i = run.lowerBound
            while i < run.upperBound {
                let amp = p.firstIndex(of: UInt8(ascii: "&"), from: i, before: run.upperBound)
                decoded.append(contentsOf: UnsafeBufferPointer(rebasing: p[i..<amp]))
                // every '&' in a run starts a reference text() took in
                guard amp < run.upperBound, let reference = Self.reference(p, at: amp) else { break }
                appendUTF8(reference.scalar, to: &decoded)
                i = reference.end
            }
            textRuns.append(TextRun(bytes: start..<decoded.count, isDecoded: true))
        }

        /// Past a character reference whose '&' is just before `i`: past more bytes than libxml2
        /// reads as its name (letters, digits, '#', '_', ':', '.', '-', any non-ASCII), and its ';'.
        private func afterReference(_ start: Int) -> Int {
            var i = start
            while i < p.count {
                let b = p[i]
                guard Self.isLetter(b) || b >= 0x80 || b &- 0x30 < 10 || b == UInt8(ascii: "#") || b == UInt8(ascii: "_")
                        || b == UInt8(ascii: ":") || b == UInt8(ascii: ".") || b == UInt8(ascii: "-") else { break }
                i += 1
            }
            if i < p.count, p[i] == UInt8(ascii: ";") { i += 1 }
            return i
        }

        /// Past the "-->" that ends a comment whose text starts at `start`, as libxml2 ends it.
        private mutating func comment(from start: Int) -> Int? {
            var j = start
            while let gt = p.firstIndex(of: UInt8(ascii: ">"), from: j) {
                if gt >= start + 2, p[gt - 1] == UInt8(ascii: "-"), p[gt - 2] == UInt8(ascii: "-") { return gt + 1 }
                // libxml2 may end a comment at "--!>" too: what follows could then be read apart
                if gt >= start + 3, p[gt - 1] == UInt8(ascii: "!"), p[gt - 2] == UInt8(ascii: "-"), p[gt - 3] == UInt8(ascii: "-") {
                    valuesInStep = false
                }
                j = gt + 1
            }
            return nil
        }

        /// Reads the start tag at `lt` as libxml2's htmlParseStartTag does, swapping its quoted
        /// values; returns where its content starts (after a script's or style's raw text), or
        /// nil when the document ends first.
        private mutating func startTag(at lt: Int) -> Int? {
            let n = p.count
            var i = lt + 1
            let nameStart = i
            while i < n, Self.isNameByte(p[i]) { i += 1 }
            let name = nameStart..<i
            if name.count >= 100 { valuesInStep = false }  // libxml2 cuts names at 100 bytes
            let word = Self.lowercaseName(p, name)
            // libxml2 may discard these tags' attributes (a second <body>) or read them (<meta charset>)
            var marks = valuesInStep && !(word == Self.html || word == Self.head || word == Self.body || word == Self.meta)
            if !names.isEmpty { names.removeAll(keepingCapacity: true) }
            if !pendingValues.isEmpty { pendingValues.removeAll(keepingCapacity: true) }
            let listStart = listAttributes.count
            var plainList = marks  // every attribute so far can be handed over from the document
            var selfClosing = false
            var tagEnd = i  // the '>' or "/>"
            while true {
                while i < n, Self.isBlank(p[i]) { i += 1 }
                guard i < n else { return nil }
                let b = p[i]
                if b == UInt8(ascii: ">") {
                    tagEnd = i
                    i += 1
                    break
                }
                if b == UInt8(ascii: "/"), i + 1 < n, p[i + 1] == UInt8(ascii: ">") {
                    tagEnd = i
                    i += 2
                    selfClosing = true
                    break
                }
                guard Self.isLetter(b) || b == UInt8(ascii: "_") || b == UInt8(ascii: ":") || b == UInt8(ascii: ".") else {
                    // libxml2 drops a bogus attribute up to the next blank or the tag's end
                    valuesInStep = false
                    marks = false
                    while i < n, !Self.isBlank(p[i]), p[i] != UInt8(ascii: ">"),
                          !(p[i] == UInt8(ascii: "/") && i + 1 < n && p[i + 1] == UInt8(ascii: ">")) { i += 1 }
                    continue
                }
                let attributeStart = i
                while i < n, Self.isNameByte(p[i]) { i += 1 }
                let attribute = attributeStart..<i
                if attribute.count >= 100 {
                    valuesInStep = false
                    marks = false
                }
                // libxml2 drops a repeated attribute's value
                let repeated = names.contains { Self.equalIgnoringCase(p, $0, attribute) }
                names.append(attribute)
                if repeated || plainList && Self.hasCapital(p, attribute) { plainList = false }
                while i < n, Self.isBlank(p[i]) { i += 1 }
                guard i < n, p[i] == UInt8(ascii: "=") else {
                    if plainList { listAttributes.append(ListAttribute(name: attribute, value: nil)) }
                    continue
                }
                i += 1
                while i < n, Self.isBlank(p[i]) { i += 1 }
                guard i < n else { return nil }
                let quote = p[i]
                if quote == UInt8(ascii: "\"") || quote == UInt8(ascii: "'") {
                    guard let close = p.firstIndex(of: quote, from: i + 1) else { return nil }
                    if marks, !repeated { pendingValues.append(i + 1..<close) }
                    if plainList { plainList = addListValue(attribute, i + 1..<close) }
                    i = close + 1
                } else {  // unquoted: to a blank or '>'
                    let valueStart = i
                    while i < n, !Self.isBlank(p[i]), p[i] != UInt8(ascii: ">") { i += 1 }
                    if plainList { plainList = addListValue(attribute, valueStart..<i) }
                }
            }
            if plainList, marks, listAttributes.count > listStart {
                takeOutList(name.upperBound..<tagEnd, name: name, attributes: listStart..<listAttributes.count)
            } else {
                if listAttributes.count > listStart { listAttributes.removeSubrange(listStart...) }
                for value in pendingValues { swapValue(value) }
            }
            switch word {
            case Self.body: if valuesInStep, !bodyEnded { inBody = true }
            case Self.frameset:
                inBody = false
                bodyEnded = true
            case Self.pre, Self.textarea, Self.listing: afterPreformatted = true
            default: break
            }
            guard !selfClosing, word == Self.script || word == Self.style else { return i }
            // script and style: raw text up to "</name" in any case, which libxml2 hands over whole
            var j = i
            while let lt = p.firstIndex(of: UInt8(ascii: "<"), from: j) {
                if lt + 1 < n, p[lt + 1] == UInt8(ascii: "/"), lt + 2 + name.count <= n,
                   Self.equalIgnoringCase(p, lt + 2..<lt + 2 + name.count, name) {
                    if valuesInStep, isPlainRawText(i..<lt) {
                        swap(i..<lt, mark: Placeholders.textMark)
                        textRuns.append(TextRun(bytes: i..<lt, isDecoded: false, kind: .raw))
                    }
                    return lt
                }
                j = lt + 1
            }
            return nil
        }

        /// Whether a comment's text can be swapped: libxml2 ends the comment at the same "-->"
        /// whatever the text, unless it starts with '>' or "->" (which may end it at once).
        private func isSwappableComment(_ text: Range<Int>) -> Bool {
            text.count >= Placeholders.shortest && p[text.lowerBound] != UInt8(ascii: ">")
                && !(p[text.lowerBound] == UInt8(ascii: "-") && p[text.lowerBound + 1] == UInt8(ascii: ">"))
        }

        /// Whether libxml2 would hand this raw text over as it is, in pieces that join to it:
        /// no character it drops, and no '&' (the raw text callback reads `&amp;` back piece by
        /// piece, and libxml2 cuts pieces of 1,000 bytes). Nor may it start with "</": libxml2
        /// looks for an end tag before it reads raw text, and would read that one as markup.
        private func isPlainRawText(_ run: Range<Int>) -> Bool {
            guard run.count >= Placeholders.shortest,
                  !(p[run.lowerBound] == UInt8(ascii: "<") && p[run.lowerBound + 1] == UInt8(ascii: "/")) else { return false }
            var i = run.lowerBound
            while true {
                i += mp_html_plain_text_length(p.baseAddress! + i, run.upperBound - i)
                if i >= run.upperBound { return true }
                switch p[i] {
                case UInt8(ascii: "<"): i += 1
                // U+FFFE and U+FFFF (EF BF BE, EF BF BF) are dropped; other characters from EF stay
                case 0xEF where !(i + 2 < p.count && p[i + 1] == 0xBF && p[i + 2] >= 0xBE): i += 1
                default: return false  // '&', a control character libxml2 drops, U+FFFE or U+FFFF
                }
            }
        }

        /// The pieces of a quoted value between references.
        private mutating func swapValue(_ value: Range<Int>) {
            var start = value.lowerBound
            while start < value.upperBound {
                let amp = p.firstIndex(of: UInt8(ascii: "&"), from: start, before: value.upperBound)
                if amp - start >= Placeholders.shortest { swap(start..<amp, mark: Placeholders.valueMark) }
                guard amp < value.upperBound else { return }
                start = min(afterReference(amp + 1), value.upperBound)
            }
        }

        /// An attribute of a list with its value, as libxml2 reads it: its references decoded
        /// when each is one libxml2 reads for certain; false when one is not.
        private mutating func addListValue(_ name: Range<Int>, _ value: Range<Int>) -> Bool {
            var amp = p.firstIndex(of: UInt8(ascii: "&"), from: value.lowerBound, before: value.upperBound)
            guard amp < value.upperBound else {
                listAttributes.append(ListAttribute(name: name, value: value))
                return true
            }
            let start = listDecoded.count
            var i = value.lowerBound
            while true {
                listDecoded.append(contentsOf: UnsafeBufferPointer(rebasing: p[i..<amp]))
                guard amp < value.upperBound else { break }
                guard let reference = Self.reference(p, at: amp), reference.end <= value.upperBound else {
                    listDecoded.removeSubrange(start...)
                    return false
                }
                appendUTF8(reference.scalar, to: &listDecoded)
                i = reference.end
                amp = p.firstIndex(of: UInt8(ascii: "&"), from: i, before: value.upperBound)
            }
            listAttributes.append(ListAttribute(name: name, value: start..<listDecoded.count, isDecoded: true))
            return true
        }

        /// A tag's attributes (from after its name to its end) taken out.
        private mutating func takeOutList(_ run: Range<Int>, name: Range<Int>, attributes: Range<Int>) {
            if out.isEmpty {
                out.reserveCapacity(p.count / 2)
            }
            out.append(contentsOf: UnsafeBufferPointer(rebasing: p[copied..<run.lowerBound]))
            copied = run.upperBound
            attributeLists.append(AttributeList(tagEnd: out.count, name: name, attributes: attributes))
        }

        private static func hasCapital(_ p: UnsafeBufferPointer<UInt8>, _ name: Range<Int>) -> Bool {
            for k in name where p[k] &- 0x41 < 26 { return true }
            return false
        }

        private mutating func swap(_ run: Range<Int>, mark: UInt8) {
            if out.isEmpty {
                out.reserveCapacity(p.count / 2)
            }
            out.append(contentsOf: UnsafeBufferPointer(rebasing: p[copied..<run.lowerBound]))
            out.append(mark)
            copied = run.upperBound
            if mark == Placeholders.valueMark { valueRuns.append(run) }
        }

        /// A name of up to 8 bytes, lowercase, as a number to compare with these (0 when longer).
        private static func lowercaseName(_ p: UnsafeBufferPointer<UInt8>, _ name: Range<Int>) -> UInt64 {
            guard name.count >= 3, name.count <= 8 else { return 0 }
            var word: UInt64 = 0
            var shift: UInt64 = 0
            for k in name {
                word |= UInt64(p[k] | 0x20) << shift
                shift &+= 8
            }
            return word
        }

        // the names lowercaseName gives, as literals (a static computed at run time costs a check at each use)
        private static var body: UInt64 { 0x79646F62 }  // "body"
        private static var html: UInt64 { 0x6C6D7468 }  // "html"
        private static var frameset: UInt64 { 0x746573656D617266 }  // "frameset"
        private static var head: UInt64 { 0x64616568 }  // "head"
        private static var meta: UInt64 { 0x6174656D }  // "meta"
        private static var script: UInt64 { 0x747069726373 }  // "script"
        private static var style: UInt64 { 0x656C797473 }  // "style"
        private static var pre: UInt64 { 0x657270 }  // "pre"
        private static var textarea: UInt64 { 0x6165726174786574 }  // "textarea"
        private static var listing: UInt64 { 0x676E697473696C }  // "listing"

        private static func equalIgnoringCase(_ p: UnsafeBufferPointer<UInt8>, _ a: Range<Int>, _ b: Range<Int>) -> Bool {
            guard a.count == b.count else { return false }
            for k in 0..<a.count where p[a.lowerBound + k] | 0x20 != p[b.lowerBound + k] | 0x20 { return false }
            return true
        }

        static func isLetter(_ b: UInt8) -> Bool { (b | 0x20) >= 0x61 && (b | 0x20) <= 0x7A }
        /// What libxml2 reads in a tag or attribute name.
        /// (Letters, digits, ':', '-', '_', '.': a bit each, below 64 and from 64 to 127.)
        @inline(__always)
        static func isNameByte(_ b: UInt8) -> Bool {
            b < 64 ? (0x7FF600000000000 as UInt64) >> UInt64(b) & 1 != 0 : b < 128 && (0x7FFFFFE87FFFFFE as UInt64) >> UInt64(b &- 64) & 1 != 0
        }
        static func isBlank(_ b: UInt8) -> Bool { b == 0x20 || b == 0x0A || b == 0x09 || b == 0x0D }
    }
}
