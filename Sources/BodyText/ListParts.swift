import JSONLines

/// What a mailing list added to a post in text parts of their own, found from the message's
/// structure (mime-parse's `text_parts`): a header block before the post (Schleuder writes the
/// original From/To/Cc/Date and its Sig/Enc verdicts in a text part before it), and a footer
/// part after it (Sympa, Mailman, Google Groups, Discourse, mlmmj). Byte ranges in `text`.
struct ListParts: Equatable {
    var header: Range<Int>?
    var footer: Range<Int>?
    /// The post: the text between them.
    var post: Range<Int>
    /// The post is the HTML part: the only text part is the header block (Schleuder's before a
    /// post written in HTML only).
    var postIsHTML = false

    /// A footer part has at most this many lines with text and bytes: a list's footer is a few
    /// lines of links; a longer part is the sender's.
    static let footerLines = 12
    static let footerBytes = 1500
    /// A header block has at most this many lines (a long To: wraps onto several).
    static let headerLines = 30

    /// One entry of `text_parts`.
    struct Span {
        var start: Int
        var end: Int
        var appended: Bool
    }

    /// The list's parts of a record's `text`; nil when it has none (most mail), or when
    /// `text_parts` does not describe `text` (a record from an older mime-parse).
    static func read(record: JSONRecord, text: [UInt8]) -> ListParts? {
        guard let raw = record.rawValue("text_parts"), raw.count > 2, let entries = record.value("text_parts")?.arrayValue else { return nil }
        let hasHTML = record.rawValue("html").map { $0.count > 2 && $0.first == UInt8(ascii: "\"") } ?? false
        // one text part and no HTML, most mail: nothing can be set aside
        guard entries.count >= 2 || hasHTML else { return nil }
        var spans: [Span] = []
        var end = 0
        for e in entries {
            guard let start = e["start"]?.intValue, let stop = e["end"]?.intValue,
                  start >= end, start <= stop, stop <= text.count else { return nil }
            spans.append(Span(start: start, end: stop, appended: e["appended"] == .bool(true)))
            end = stop
        }
        return find(spans, in: text, signed: isSigned(record), fromList: fromList(record), hasHTML: hasHTML)
    }

    /// Whether the message has a signature part (read only when a part has a footer's shape).
    static func isSigned(_ record: JSONRecord) -> Bool {
        record.value("attachments")?.arrayValue?.contains { a in
            a["content_type"]?.stringValue.map(signatureTypes.contains) == true
        } == true
    }

    /// The content types of a multipart/signed's signature part.
    static let signatureTypes: Set<String> = ["application/pgp-signature", "application/pkcs7-signature", "application/x-pkcs7-signature"]

    /// Whether the message says it came through a mailing list (its List-* or Mailing-List headers).
    static func fromList(_ record: JSONRecord) -> Bool {
        record.object("headers", hasMemberNamed: "list-id", "list-post", "list-unsubscribe", "list-help", "list-archive",
                      "mailing-list", "x-mailing-list")
    }

    /// The header block and footer among the spans of `text`. A footer is the last part with
    /// text when mime-parse found it appended after the post (the last child of a multipart/mixed
    /// whose other children are the post), it is short, and either the post is signed (the
    /// signer wrote nothing outside the signature) or the message came through a list (a
    /// person's own second text part is not taken for one).
    static func find(_ spans: [Span], in text: [UInt8], signed: @autoclosure () -> Bool, fromList: @autoclosure () -> Bool,
                     hasHTML: Bool = false) -> ListParts? {
        let withText = spans.filter { hasText(text[$0.start..<$0.end]) }
        if withText.count == 1, hasHTML, isHeaderBlock(text[withText[0].start..<withText[0].end]) {
            let end = withText[0].end
            return ListParts(header: withText[0].start..<end, footer: nil, post: end..<end, postIsHTML: true)
        }
        guard withText.count >= 2 else { return nil }
        var header: Range<Int>?
        var rest = withText[...]
        if isHeaderBlock(text[withText[0].start..<withText[0].end]) {
            header = withText[0].start..<withText[0].end
            rest = rest.dropFirst()
        }
        var footer: Range<Int>?
        if rest.count >= 2, let last = rest.last, last.appended, isShort(text[last.start..<last.end]), signed() || fromList() {
            footer = last.start..<last.end
            rest = rest.dropLast()
        }
        guard header != nil || footer != nil, let first = rest.first, let lastPost = rest.last else { return nil }
        return ListParts(header: header, footer: footer, post: first.start..<lastPost.end)
    }

    static func hasText(_ b: ArraySlice<UInt8>) -> Bool {
        b.contains { $0 != 0x20 && $0 != 0x0A && $0 != 0x09 && $0 != 0x0D }
    }

    static func isShort(_ b: ArraySlice<UInt8>) -> Bool {
        guard b.count <= footerBytes else { return false }
        return lines(b).filter { hasText($0) }.count <= footerLines
    }

    static func lines(_ b: ArraySlice<UInt8>) -> [ArraySlice<UInt8>] {
        b.split(separator: 0x0A, omittingEmptySubsequences: false)
    }

    /// A part of header lines only (`Name: value`, or a line wrapped under one), two or more,
    /// one of them `From:`, as Schleuder's header block is: From, To, Cc, Date, Sig, Enc.
    static func isHeaderBlock(_ b: ArraySlice<UInt8>) -> Bool {
        var fields = 0
        var hasFrom = false
        let all = lines(b).filter { hasText($0) }
        guard all.count <= headerLines else { return false }
        for line in all {
            if fields > 0, let c = line.first, c == 0x20 || c == 0x09 { continue }  // wrapped
            guard let name = fieldName(line) else { return false }
            fields += 1
            if name == Array("from".utf8) { hasFrom = true }
        }
        return fields >= 2 && hasFrom
    }

    /// The lowercased name of a `Name: value` line (letters, digits and hyphens, starting with a
    /// letter; nothing or a space after the colon), else nil.
    static func fieldName(_ line: ArraySlice<UInt8>) -> [UInt8]? {
        guard let colon = line.firstIndex(of: 0x3A), colon > line.startIndex, colon - line.startIndex <= 30 else { return nil }
        let name = line[line.startIndex..<colon]
        let isLetter = { (c: UInt8) in (c | 0x20) >= 0x61 && (c | 0x20) <= 0x7A }
        guard isLetter(name.first!), name.allSatisfy({ isLetter($0) || ($0 >= 0x30 && $0 <= 0x39) || $0 == 0x2D }) else { return nil }
        let after = line.index(after: colon)
        guard after == line.endIndex || line[after] == 0x20 || line[after] == 0x09 || line[after] == 0x0D else { return nil }
        return name.map { $0 | 0x20 }
    }
}
