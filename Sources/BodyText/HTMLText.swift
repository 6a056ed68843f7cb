import HTMLDOM
import UTF8Text

/// HTML rendered as plain text, the way a reader expects: blocks on their own lines, list
/// markers, one line per table row, links as `text <url>` when the URL says more, images as
/// their alt text, hidden content left out, whitespace collapsed. Quoted history (Gmail's
/// gmail_quote, Apple Mail's and Thunderbird's blockquote type=cite, Outlook's divRplyFwdMsg,
/// Yahoo's yahoo_quoted) comes out with `> ` before each line, as a text client quotes.
enum HTMLText {
    private static let skipped: Set<String> = ["script", "style", "head", "title", "template", "noscript", "svg", "math",
                                       "object", "iframe", "button", "select", "input", "textarea", "map", "audio", "video"]
    private static let blocks: Set<String> = ["p", "div", "h1", "h2", "h3", "h4", "h5", "h6", "ul", "ol", "dl", "dt", "dd",
                                      "table", "tr", "blockquote", "pre", "hr", "section", "article", "header",
                                      "footer", "center", "address", "aside", "nav", "main", "figure", "figcaption",
                                      "form", "fieldset", "details", "summary", "tbody", "thead", "tfoot", "caption", "body"]
    private static let paragraphs: Set<String> = ["p", "h1", "h2", "h3", "h4", "h5", "h6", "table", "blockquote", "pre", "ul", "ol", "hr"]

    /// What the renderer does with an element, from its name.
    struct Element {
        enum Kind { case other, br, pre, ul, ol, li, cell, img, a, hr, blockquote }
        var kind = Kind.other
        var skipped = false
        /// The line breaks around it: 1 for a block, 2 (a blank line) for a paragraph.
        var breaks = 0
    }

    private static let elements: [UInt128: Element] = {
        let kinds: [String: Element.Kind] = ["br": .br, "pre": .pre, "ul": .ul, "ol": .ol, "li": .li, "td": .cell, "th": .cell,
                                             "img": .img, "a": .a, "hr": .hr, "blockquote": .blockquote]
        var table: [UInt128: Element] = [:]
        for name in skipped.union(blocks).union(kinds.keys) {
            let element = Element(kind: kinds[name] ?? .other, skipped: skipped.contains(name),
                                  breaks: paragraphs.contains(name) ? 2 : blocks.contains(name) ? 1 : 0)
            table[packed(Array(name.utf8))!] = element
        }
        return table
    }()

    /// A name of up to 16 bytes as one number, to look it up without making a String.
    private static func packed<C: Collection<UInt8>>(_ name: C) -> UInt128? {
        guard name.count <= 16 else { return nil }
        var n: UInt128 = 0
        for b in name { n = n << 8 | UInt128(b) }
        return n
    }

    static func element(_ name: UnsafeBufferPointer<UInt8>) -> Element {
        packed(name).flatMap { elements[$0] } ?? Element()
    }

    /// With `linkURLs` false, a link is its text alone: the URL written after it (`text <url>`)
    /// is not what a reader sees.
    /// Parsed with runs of text swapped out while libxml2 reads (as html-sanitize parses): the
    /// same events, several times faster on text-heavy mail.
    static func render(utf8 html: [UInt8], linkURLs: Bool = true) -> [UInt8] {
        let r = HTMLStream.parse(html) { () -> Renderer in
            let r = Renderer()
            r.writesLinkURLs = linkURLs
            return r
        }
        return r.finish()
    }

    /// Declarations that hide an element, as `hides(style:)` reads a style (lowercase, no
    /// whitespace, ";" after the last); the last two only together.
    private static let hidingDeclarations: [[UInt8]] = ["display:none", "visibility:hidden", "mso-hide:all", "font-size:0;",
                                                        "font-size:0px", "opacity:0;", "max-height:0", "overflow:hidden"].map { Array($0.utf8) }

    static func hides(style: UnsafeBufferPointer<UInt8>) -> Bool {
        withUnsafeTemporaryAllocation(of: UInt8.self, capacity: style.count + 1) { s in
            var count = 0
            var mayHide = false  // every declaration above has a value starting with n, h, a or 0
            for b in style where b != 0x20 && b != 0x09 && b != 0x0A && b != 0x0D {
                let lower = b &- 0x41 < 26 ? b | 0x20 : b
                if count > 0, s[count - 1] == UInt8(ascii: ":"), lower == 0x6E || lower == 0x68 || lower == 0x61 || lower == 0x30 {
                    mayHide = true
                }
                s[count] = lower
                count += 1
            }
            guard mayHide else { return false }
            s[count] = UInt8(ascii: ";")
            let normalized = UnsafeBufferPointer(rebasing: s[...count])
            func has(_ k: Int) -> Bool { ByteSearch.contains(normalized, hidingDeclarations[k]) }
            return (0..<6).contains(where: has) || has(6) && has(7)
        }
    }

    /// The attributes the renderer reads, from the parser's; valid as they are.
    private struct Attributes {
        var id, classes, style, alt, width, height, href, start: UnsafeBufferPointer<UInt8>?
        var hidden = false, ariaHidden = false

        init(_ attributes: HTMLAttributes) {
            for (name, value) in attributes {
                switch name.count {
                case 2 where name.elementsEqual("id".utf8): id = value
                case 3 where name.elementsEqual("alt".utf8): alt = value
                case 4 where name.elementsEqual("href".utf8): href = value
                case 5 where name.elementsEqual("class".utf8): classes = value
                case 5 where name.elementsEqual("style".utf8): style = value
                case 5 where name.elementsEqual("width".utf8): width = value
                case 5 where name.elementsEqual("start".utf8): start = value
                case 6 where name.elementsEqual("height".utf8): height = value
                case 6 where name.elementsEqual("hidden".utf8): hidden = true
                case 11 where name.elementsEqual("aria-hidden".utf8): ariaHidden = value.map { $0.elementsEqual("true".utf8) } ?? false
                default: break
                }
            }
        }

        static func string(_ value: UnsafeBufferPointer<UInt8>?) -> String? { value.map { String(decoding: $0, as: UTF8.self) } }

        /// The id, without the "mp-" html-sanitize puts before it.
        var unprefixedID: UnsafeBufferPointer<UInt8>? {
            guard let id, id.starts(with: "mp-".utf8) else { return id }
            return UnsafeBufferPointer(rebasing: id[3...])
        }

        func hasClass(_ names: [String]) -> Bool {
            guard let classes else { return false }
            return classes.split(separator: 0x20).contains { c in names.contains { c.elementsEqual($0.utf8) } }
        }
    }

    private final class Renderer: HTMLStreamHandler {
        var lines: [(text: [UInt8], quoted: Bool)] = []
        var line: [UInt8] = []
        var lineQuoted = false
        var pendingBreaks = 0  // line breaks owed before the next text (2 = a blank line)
        var pendingSpace = false
        var quoteDepth = 0
        var quoteRest = false  // after Outlook's reply header, everything is history
        var preDepth = 0
        var lists: [(ordered: Bool, next: Int)] = []
        /// Open links: the URL, and where their text starts in `linkText`.
        var links: [(href: [UInt8]?, start: Int)] = []
        /// The text written since the outermost open link began (to compare with its URL).
        var linkText: [UInt8] = []
        var openQuotes: [Bool] = []  // for each open element, whether it quotes
        var skipDepth = 0  // inside a skipped or hidden element: how many elements deep
        var writesLinkURLs = true

        override func text(_ bytes: UnsafeBufferPointer<UInt8>) {
            if skipDepth == 0 { words(bytes) }
        }

        override func startElement(_ nameBytes: UnsafeBufferPointer<UInt8>, _ attributes: HTMLAttributes) {
            if skipDepth > 0 {
                skipDepth += 1
                return
            }
            let element = HTMLText.element(nameBytes)
            let n = Attributes(attributes)
            if element.skipped || isHidden(n, element) {
                skipDepth = 1
                return
            }
            // quoted history: its lines get "> "; after Outlook's reply header, all the rest is
            let id = n.unprefixedID
            if id?.elementsEqual("divRplyFwdMsg".utf8) == true { quoteRest = true }
            let quotes = element.kind == .blockquote || id?.elementsEqual("yahoo_quoted".utf8) == true
                || n.hasClass(["gmail_quote", "yahoo_quoted", "moz-cite-prefix"])
            if element.breaks > 0 { blockBreak(element.breaks) }
            if quotes { quoteDepth += 1 }
            switch element.kind {
            case .br:
                newline()
            case .pre:
                preDepth += 1
            case .ul, .ol:
                lists.append((element.kind == .ol, Int(Attributes.string(n.start) ?? "") ?? 1))
            case .li:
                blockBreak(1)
                if let last = lists.indices.last {
                    let marker = lists[last].ordered ? "\(lists[last].next). " : "• "
                    lists[last].next += 1
                    emit(String(repeating: "  ", count: max(0, lists.count - 1)) + marker)
                } else {
                    emit("• ")
                }
            case .cell:
                if !line.isEmpty { pendingSpace = true }
            case .img:
                if let alt = n.alt.map({ HTMLText.trimmed($0) }), !alt.isEmpty, !isTiny(n) { words(alt) }
            case .a:
                links.append((n.href.map(Array.init), linkText.count))
            case .hr:
                blockBreak(1)
            case .blockquote, .other:
                break
            }
            openQuotes.append(quotes)
        }

        override func endElement(_ nameBytes: UnsafeBufferPointer<UInt8>) {
            if skipDepth > 0 {
                skipDepth -= 1
                return
            }
            let element = HTMLText.element(nameBytes)
            let quoted = openQuotes.popLast() ?? false
            switch element.kind {
            case .pre: preDepth -= 1
            case .ul, .ol: _ = lists.popLast()
            case .a:
                guard let (href, start) = links.popLast() else { break }
                let text = linkText[start...]
                if links.isEmpty { linkText = [] }
                if writesLinkURLs, let href, let shown = HTMLText.linkSuffix(href: href, text: text) {
                    // after the link's last words, even when a block inside it has just ended
                    let bracketed = [UInt8(ascii: "<")] + shown + [UInt8(ascii: ">")]
                    if line.isEmpty { bracketed.withUnsafeBufferPointer { emit($0, space: true) } } else { line += [0x20] + bracketed }
                }
            default: break
            }
            if element.breaks > 0 || element.kind == .li { blockBreak(max(element.breaks, 1)) }
            if quoted {
                blockBreak(1)
                quoteDepth -= 1
            }
        }

        /// Text as it reads: words between collapsed white space, or as written inside `<pre>`.
        func words(_ raw: UnsafeBufferPointer<UInt8>) {
            if preDepth > 0 {
                var start = 0
                for i in 0...raw.count where i == raw.count || raw[i] == 0x0A {
                    if start > 0 { newline() }
                    if i > start { emit(UnsafeBufferPointer(rebasing: raw[start..<i]), space: false) }
                    start = i + 1
                }
                return
            }
            // words between white space; a space before, between or after them is owed
            var i = 0, wordStart = -1, words = 0
            while i <= raw.count {
                let n = i < raw.count ? UTF8Bytes.length(at: i, in: UnsafeRawBufferPointer(raw), where: isSpace) : 1
                if n > 0 {
                    if wordStart >= 0 {
                        emit(UnsafeBufferPointer(rebasing: raw[wordStart..<i]), space: words > 0)
                        words += 1
                        wordStart = -1
                    }
                    if i < raw.count { pendingSpace = true }
                    i += n
                } else {
                    if wordStart < 0 { wordStart = i }
                    i += 1
                }
            }
        }

        func emit(_ s: String, space: Bool = false) {
            var s = s
            s.withUTF8 { emit($0, space: space) }
        }

        func emit(_ s: UnsafeBufferPointer<UInt8>, space: Bool) {
            if pendingBreaks > 0, !(line.isEmpty && lines.isEmpty) {
                flushLine()
                if pendingBreaks > 1, lines.last.map({ !$0.text.isEmpty }) ?? false { lines.append(([], quoting)) }
            }
            pendingBreaks = 0
            if line.isEmpty {
                lineQuoted = quoting
            } else if space || pendingSpace {
                line.append(0x20)
            }
            pendingSpace = false
            line += s
            if !links.isEmpty { linkText += s }
        }

        var quoting: Bool { quoteDepth > 0 || quoteRest }

        func newline() {
            if line.isEmpty && pendingBreaks == 0, !lines.isEmpty { lines.append(([], quoting)) ; return }
            flushLine()
            pendingBreaks = 0
            pendingSpace = false
        }

        func blockBreak(_ n: Int) {
            pendingBreaks = max(pendingBreaks, n)
            pendingSpace = false
        }

        func flushLine() {
            if !line.isEmpty || !lines.isEmpty { lines.append((line, lineQuoted)) }
            line = []
            lineQuoted = quoting
        }

        func finish() -> [UInt8] {
            if !line.isEmpty { flushLine() }
            var out: [UInt8] = []
            var lastWasEmpty = true
            var keep = 0  // out up to the last line with text
            for (text, quoted) in lines {
                var end = text.count
                while end > 0, case let n = text.withUnsafeBytes({ UTF8Bytes.length(endingAt: end, in: $0, where: isSpace) }), n > 0 { end -= n }
                if end == 0, lastWasEmpty { continue }
                if !out.isEmpty { out.append(0x0A) }
                if quoted { out += end == 0 ? [UInt8(ascii: ">")] : [UInt8(ascii: ">"), 0x20] }
                out += text[..<end]
                lastWasEmpty = end == 0 && !quoted  // ">" lines are kept, as a text client quotes
                if end > 0 { keep = out.count }
            }
            out.removeSubrange(keep...)
            return out
        }

        func isHidden(_ n: Attributes, _ element: Element) -> Bool {
            if n.hidden || n.ariaHidden && element.kind != .img { return true }
            return n.style.map(HTMLText.hides(style:)) ?? false
        }

        func isTiny(_ n: Attributes) -> Bool {
            let w = Attributes.string(n.width).flatMap { Int($0) }
            let h = Attributes.string(n.height).flatMap { Int($0) }
            return (w ?? 2) <= 1 || (h ?? 2) <= 1
        }

    }

    /// What to show after a link's text: its URL when that says more than the text (compared
    /// in lowercase, without scheme or "www.").
    static func linkSuffix(href: [UInt8], text: ArraySlice<UInt8>) -> [UInt8]? {
        let url = trimmed(href[...])
        let lowerURL = lowercased(url)
        let isMail = lowerURL.starts(with: "mailto:".utf8)
        guard isMail || lowerURL.starts(with: "http://".utf8) || lowerURL.starts(with: "https://".utf8) else { return nil }
        let t = lowercased(trimmed(text))
        guard !t.isEmpty else { return nil }
        let bare = withoutSchemeAndWWW(lowerURL.dropFirst(isMail ? 7 : 0))
        let tBare = withoutSchemeAndWWW(t[...])
        if bare.elementsEqual(tBare) || bare.elementsEqual(tBare + [UInt8(ascii: "/")]) || t.reversed().starts(with: bare.reversed()) {
            return nil
        }
        return Array(url.dropFirst(isMail ? 7 : 0))
    }

    private static func withoutSchemeAndWWW(_ s: ArraySlice<UInt8>) -> ArraySlice<UInt8> {
        var s = s
        for prefix in ["https://", "http://", "www."] where s.starts(with: prefix.utf8) { s = s.dropFirst(prefix.utf8.count) }
        return s
    }

    /// Without white space (as `words` reads it) at either end.
    static func trimmed(_ s: UnsafeBufferPointer<UInt8>) -> UnsafeBufferPointer<UInt8> {
        UnsafeBufferPointer(rebasing: s[UTF8Bytes.trimmed(UnsafeRawBufferPointer(s), where: isSpace)])
    }

    private static func trimmed(_ s: ArraySlice<UInt8>) -> ArraySlice<UInt8> {
        let bounds = s.withUnsafeBytes { UTF8Bytes.trimmed($0, where: isSpace) }
        return s[(s.startIndex + bounds.lowerBound)..<(s.startIndex + bounds.upperBound)]
    }

    private static func lowercased(_ s: ArraySlice<UInt8>) -> [UInt8] {
        s.allSatisfy { $0 < 0x80 } ? ASCII.lowercased(s) : Array(String(decoding: s, as: UTF8.self).lowercased().utf8)
    }
}

private func isSpace(_ s: Unicode.Scalar) -> Bool {
    s == " " || s == "\t" || s == "\n" || s == "\r" || s == "\u{0C}" || s == "\u{A0}" || s == "\u{200B}" || s == "\u{200C}" || s == "\u{FEFF}" || s == "\u{034F}"
}
