import JSONLines
import UnixFilter
import UTF8Text

/// text-extract's run: each record gets `body_text`, `reply_text`, `quoted_text`, `signature`,
/// `forwarded`, `snippet` and `forwarded_message` (see mailpipe(5)), from `text` (format=flowed
/// undone) or else from `html`, and from a message/rfc822 attachment's `message`.
public struct TextExtract {
    /// Pattern files (or directories of them) named on the command line, read after the user's.
    public var patternFiles: [String] = []

    public init() {}

    /// The built-in patterns, then `$XDG_CONFIG_HOME/mailpipe/reply-patterns.json` (or a
    /// folder of that name), then each `--patterns` file.
    public func loadPatterns(_ diagnostics: Diagnostics) throws -> ReplyPatterns {
        try DataFiles.extend(ReplyPatterns.builtIn, user: ["reply-patterns.json", "reply-patterns"], extra: patternFiles,
                             diagnostics: diagnostics)
    }

    public func run(_ run: FilterRun) throws {
        try stage(run.diagnostics).run(run)
    }

    /// The stage; `extractor` when a chain has made it already (its reply patterns compiled once).
    public func stage(_ diagnostics: Diagnostics, extractor: Extractor? = nil) throws -> RecordStage {
        let extractor = try extractor ?? Extractor(patterns: loadPatterns(diagnostics))
        return RecordStage(name: "text-extract") { record in
            guard record.member("text") != nil || record.member("html") != nil else { throw MissingField(name: "text") }
            let text = record.stringBytes("text")
            let result = extractor.extract(text: text, format: record.string("text_format"), html: record.stringBytes("html"),
                                           list: text.flatMap { ListParts.read(record: record, text: $0) })
            // a forward written into the text is quoted history to the splitter, marker and all:
            // only a mail that quotes something is looked at (most mail quotes nothing)
            let forwarded = extractor.forwards.read(record: record, body: .some(result.flatMap { $0.parts.quoted.isEmpty ? nil : $0.post }))
            var fields = Self.fields(result)
            func set(_ key: String, _ value: [UInt8]) {
                if let k = fields.firstIndex(where: { $0.key == key }) { fields[k].value = value }
            }
            if let forwarded, let result {
                let reply = Self.trimmed(result.parts.reply)
                if forwarded.source == "inline", !reply.isEmpty, Self.trimmed(Array(forwarded.text.utf8)).starts(with: reply) {
                    // the splitter reads a mail that starts with Outlook's header block as the text
                    // under it: when that block is a forward's, that text is the forwarded message's
                    var w = JSONWriter(capacity: result.post.count + 16)
                    w.string(utf8: result.post)
                    set("reply_text", Array("null".utf8))
                    set("quoted_text", w.bytes)
                    set("forwarded", Array("true".utf8))
                    var snippet = JSONWriter(capacity: 512)
                    snippet.string(utf8: Snippet.of(utf8: result.post))
                    set("snippet", snippet.bytes)
                } else if reply.isEmpty {
                    // no text of its own: it only forwards (an attached message, or one under
                    // "-----Original Message-----", which the splitter reads as a reply's)
                    set("forwarded", Array("true".utf8))
                }
            } else if forwarded != nil {
                set("forwarded", Array("true".utf8))
            }
            var w = JSONWriter(capacity: 256)
            if let forwarded { forwarded.write(&w) } else { w.null() }
            fields.append(("forwarded_message", w.bytes))
            return record.updated(fields)
        }
    }

    struct MissingField: Error, CustomStringConvertible {
        var name: String
        var description: String { "no '\(name)' or 'html' field (is this mime-parse output?)" }
    }

    static func fields(_ r: Extracted?) -> [(key: String, value: [UInt8]?)] {
        func string(_ s: [UInt8]?) -> [UInt8] {
            var w = JSONWriter(capacity: (s?.count ?? 4) + 16)
            if let s, !s.isEmpty { w.string(utf8: s) } else { w.null() }
            return w.bytes
        }
        return [
            ("body_text", string(r?.body)),
            ("reply_text", string(r?.parts.reply)),
            ("quoted_text", string(r?.parts.quoted)),
            ("signature", string(r?.parts.signature)),
            ("forwarded", Array(((r?.parts.forwarded ?? false) ? "true" : "false").utf8)),
            ("snippet", string(r?.snippet)),
            ("list_header", string(r?.listHeader)),
            ("list_footer", string(r?.listFooter)),
        ]
    }
}

extension TextExtract {
    static func trimmed(_ b: [UInt8]) -> ArraySlice<UInt8> {
        let isSpace = { (c: UInt8) in c == 0x20 || c == 0x0A || c == 0x09 || c == 0x0D }
        guard let first = b.firstIndex(where: { !isSpace($0) }), let last = b.lastIndex(where: { !isSpace($0) }) else { return [] }
        return b[first...last]
    }
}

struct Extracted {
    var body: [UInt8]
    /// The body without a list's header block and footer part: what `parts` splits.
    var post: [UInt8]
    var parts: ReplyParts
    var snippet: [UInt8]
    var listHeader: [UInt8]? = nil
    var listFooter: [UInt8]? = nil
}

/// The text of one message, whole and split. Holds ICU regexes: one per thread.
public final class Extractor {
    private let splitter: ReplySplitter
    let forwards: ForwardReader

    public init(patterns: ReplyPatterns = .builtIn) {
        splitter = ReplySplitter(patterns: patterns)
        forwards = ForwardReader(matcher: splitter.m, patterns: patterns)
    }

    /// The message a record forwards (text-extract's `forwarded_message`): its message/rfc822
    /// part as mime-parse read it, else a forward written into its text; nil when it forwards none.
    public func forwardedMessage(in record: JSONRecord) -> ForwardedMessage? { forwards.read(record: record) }

    func bodyText(text: [UInt8]?, format: String?, html: [UInt8]?) -> [UInt8]? { Self.plainText(text: text, format: format, html: html) }

    /// The message as plain text (UTF-8): `text` with format=flowed undone, else `html` rendered.
    public static func plainText(text: [UInt8]?, format: String?, html: [UInt8]?) -> [UInt8]? {
        if let text, !text.isEmpty {
            switch format {
            case "flowed": return Array(FlowedText.unflow(String(decoding: text, as: UTF8.self), delSp: false).utf8)
            case "flowed_delsp": return Array(FlowedText.unflow(String(decoding: text, as: UTF8.self), delSp: true).utf8)
            default: return text
            }
        }
        if let html, !html.isEmpty { return HTMLText.render(utf8: html) }
        return nil
    }

    /// The text a reader sees of `html`, rendered as `plainText` renders it but without the URL
    /// written after a link's text (the reader sees the text, not where it leads).
    public static func seenText(html: [UInt8]) -> [UInt8] { HTMLText.render(utf8: html, linkURLs: false) }

    /// What the sender wrote (text-extract's `reply_text`): no quoted history, signature or
    /// forwarded message.
    public func newText(text: [UInt8]?, format: String?, html: [UInt8]?) -> [UInt8]? {
        bodyText(text: text, format: format, html: html).map { splitter.split(TextLines($0)).reply }
    }

    /// `list`: the parts of `text` a mailing list added, set aside from the post.
    func extract(text: [UInt8]?, format: String?, html: [UInt8]?, list: ListParts? = nil) -> Extracted? {
        guard let body = bodyText(text: text, format: format, html: html) else { return nil }
        let lines = TextLines(body)
        guard let list, let text else {
            let parts = splitter.split(lines)
            let snippet = Snippet.of(utf8: parts.reply.isEmpty ? body : parts.reply)
            let whole = withoutTrailingBlankLines(lines)
            return Extracted(body: whole, post: whole, parts: parts, snippet: snippet)
        }
        func plain(_ range: Range<Int>) -> [UInt8] {
            withoutTrailingBlankLines(TextLines(bodyText(text: Array(text[range]), format: format, html: nil) ?? []))
        }
        var whole = withoutTrailingBlankLines(lines)
        var post = plain(list.post)
        if list.postIsHTML, let html, !html.isEmpty {
            post = withoutTrailingBlankLines(TextLines(HTMLText.render(utf8: html)))
            whole += [0x0A, 0x0A] + post
        }
        let parts = splitter.split(TextLines(post))
        let snippet = Snippet.of(utf8: parts.reply.isEmpty ? post : parts.reply)
        return Extracted(body: whole, post: post, parts: parts, snippet: snippet,
                         listHeader: list.header.map { Array(TextExtract.trimmed(plain($0))) },
                         listFooter: list.footer.map { Array(TextExtract.trimmed(plain($0))) })
    }

    /// The lines joined with LF, without the blank ones at the end.
    private func withoutTrailingBlankLines(_ t: TextLines) -> [UInt8] {
        var count = t.count
        while count > 0, t.lines[count - 1].allSatisfy({ t.bytes[$0] == 0x20 || t.bytes[$0] == 0x09 }) { count -= 1 }
        if count == t.count, !t.bytes.contains(0x0D) { return t.bytes }
        var out: [UInt8] = []
        out.reserveCapacity(t.bytes.count)
        for (n, line) in t.lines[..<count].enumerated() {
            if n > 0 { out.append(0x0A) }
            out += t.bytes[line]
        }
        return out
    }
}
