import JSONLines
import UnixFilter
import UTF8Text

/// text-extract's run: each record gets `body_text`, `reply_text`, `quoted_text`, `signature`,
/// `forwarded` and `snippet` (see mailpipe(5)), from `text` (format=flowed undone) or else
/// from `html`.
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
        let extractor = Extractor(patterns: try loadPatterns(run.diagnostics))
        try filterRecords(run, progressNoun: "messages") { record in
            let text = record.value("text")
            let html = record.value("html")
            guard text != nil || html != nil else { throw MissingField(name: "text") }
            let result = extractor.extract(text: text?.stringValue, format: record.string("text_format"), html: html?.stringValue)
            return record.updated(Self.fields(result))
        }
    }

    struct MissingField: Error, CustomStringConvertible {
        var name: String
        var description: String { "no '\(name)' or 'html' field (is this mime-parse output?)" }
    }

    static func fields(_ r: Extracted?) -> [(key: String, value: [UInt8]?)] {
        func string(_ s: String?) -> [UInt8] {
            var w = JSONWriter(capacity: (s?.utf8.count ?? 4) + 16)
            if let s, !s.isEmpty { w.string(s) } else { w.null() }
            return w.bytes
        }
        return [
            ("body_text", string(r?.body)),
            ("reply_text", string(r?.parts.reply)),
            ("quoted_text", string(r?.parts.quoted)),
            ("signature", string(r?.parts.signature)),
            ("forwarded", Array(((r?.parts.forwarded ?? false) ? "true" : "false").utf8)),
            ("snippet", string(r?.snippet)),
        ]
    }
}

struct Extracted {
    var body: String
    var parts: ReplyParts
    var snippet: String
}

/// The text of one message, whole and split. Holds ICU regexes: one per thread.
public final class Extractor {
    private let splitter: ReplySplitter

    public init(patterns: ReplyPatterns = .builtIn) { splitter = ReplySplitter(patterns: patterns) }

    /// The message as plain text: `text` with format=flowed undone, else `html` rendered.
    public func bodyText(text: String?, format: String?, html: String?) -> String? {
        if let text, !text.isEmpty {
            switch format {
            case "flowed": return FlowedText.unflow(text, delSp: false)
            case "flowed_delsp": return FlowedText.unflow(text, delSp: true)
            default: return text
            }
        }
        if let html, !html.isEmpty { return HTMLText.render(html) }
        return nil
    }

    public func split(_ body: String) -> ReplyParts { splitter.split(body) }

    func extract(text: String?, format: String?, html: String?) -> Extracted? {
        guard let body = bodyText(text: text, format: format, html: html) else { return nil }
        let parts = splitter.split(body)
        let snippet = Snippet.of(parts.reply.isEmpty ? body : parts.reply)
        return Extracted(body: trimmedLines(body), parts: parts, snippet: snippet)
    }

    private func trimmedLines(_ s: String) -> String {
        var lines = textLines(s)
        while lines.last?.utf8.allSatisfy({ $0 == 0x20 || $0 == 0x09 }) == true { lines.removeLast() }
        return lines.joined(separator: "\n")
    }
}
