import UnicodeServices
import UnixFilter

/// The patterns that mark where a reply's new text ends: attributions, separators, header
/// blocks, forward markers, signatures and disclaimers. Built in from reply-patterns.json; a
/// user's file with the same keys adds to them. Each list holds ICU regular expressions.
public struct ReplyPatterns: Sendable, ExtensibleData {
    var lists: [String: [String]] = [:]

    static let keys = ["attribution", "attribution_start", "original_message", "forwarded", "header_from", "header_sent",
                       "header_to", "header_subject", "header_cc", "signature_delimiter", "mobile_signature", "disclaimer", "banner", "closing",
                       "date_months", "date_am", "date_pm"]
    /// Lists of plain words, not expressions.
    static let wordKeys: Set<String> = ["header_from", "header_sent", "header_to", "header_subject", "header_cc", "date_months", "date_am", "date_pm"]

    public struct FileError: Error, CustomStringConvertible {
        public var description: String
    }

    public static let builtIn: ReplyPatterns = {
        var p = ReplyPatterns()
        // not compiled to check them at each start (a tenth of a delivery's time): a test does
        do { try p.add(json: PackageResources.reply_patterns_json, checking: false) } catch { fatalError("built-in reply-patterns.json: \(error)") }
        return p
    }()

    /// Adds a user's file: each expression is compiled first, so a mistake is said at once.
    public mutating func add(json: [UInt8]) throws(FileError) { try add(json: json, checking: true) }

    mutating func add(json: [UInt8], checking: Bool) throws(FileError) {
        let file: [(key: String, values: [String])]
        do { file = try DataFiles.stringLists(json) } catch { throw FileError(description: error.description) }
        for (key, strings) in file {
            guard Self.keys.contains(key) else { throw FileError(description: "unknown key '\(key)'") }
            if checking && !Self.wordKeys.contains(key) {
                for s in strings {
                    do { _ = try TextPattern(s) } catch { throw FileError(description: "\(key): \(error)") }
                }
            }
            lists[key, default: []] += strings
        }
    }

    func list(_ key: String) -> [String] { lists[key] ?? [] }
}

/// The patterns compiled, ready to match lines. Holds ICU regexes: one per thread.
final class ReplyMatcher {
    let attribution: CuedPattern
    let attributionStart: CuedPattern
    /// attributionStart at the start of a text only (one try, not a search).
    let attributionStartsLine: CuedPattern
    let originalMessage: CuedPattern
    let forwarded: CuedPattern
    /// `^field:` for from, sent, to, subject, cc, in that order.
    let headerFields: [CuedPattern]
    /// Any of those fields after a space: "From: a@b.c Date: …" is a header block on one line.
    let laterField: CuedPattern
    let signatureDelimiter: CuedPattern
    let mobileSignature: CuedPattern
    let disclaimer: CuedPattern
    /// An external-sender warning above the text.
    let banner: CuedPattern
    let closing: CuedPattern
    /// The cues of all the patterns, for PatternText.
    let cues: CueIndex

    convenience init(_ p: ReplyPatterns) {
        var reader = CueReader()
        self.init(p, reader: &reader)
    }

    init(_ p: ReplyPatterns, reader: inout CueReader) {
        var cues = CueIndex.Builder()
        func any(_ key: String) -> CuedPattern { CuedPattern(p.list(key), cues: &cues, reader: &reader) }
        attribution = any("attribution")
        originalMessage = any("original_message")
        forwarded = any("forwarded")
        signatureDelimiter = any("signature_delimiter")
        mobileSignature = any("mobile_signature")
        disclaimer = any("disclaimer")
        banner = any("banner")
        closing = any("closing")
        let starts = p.list("attribution_start").map { "(?:\($0))" }.joined(separator: "|")
        attributionStart = CuedPattern("[\\s\\-]+(?=(?:\(starts.isEmpty ? "(?!)" : starts)))", cues: &cues, reader: &reader)
        attributionStartsLine = CuedPattern("^[\\s\\-]*(?=(?:\(starts.isEmpty ? "(?!)" : starts)))", cues: &cues, reader: &reader)
        let fieldKeys = ["header_from", "header_sent", "header_to", "header_subject", "header_cc"]
        func words(_ keys: [String]) -> String {
            let words = keys.flatMap(p.list).map { "\\Q\($0)\\E" }.joined(separator: "|")
            return words.isEmpty ? "(?!)" : words
        }
        headerFields = fieldKeys.map { CuedPattern("^[*\\s]*(?:\(words([$0])))[*\\s]*[:：]", cues: &cues, reader: &reader) }
        laterField = CuedPattern("\\s[*\\s]*(?:\(words(fieldKeys)))[*\\s]*[:：]", cues: &cues, reader: &reader)
        self.cues = cues.build()
    }
}

extension ReplyMatcher {
    /// Which header field `text` starts with (1–5: from, sent, to, subject, cc), nil when none.
    func fieldNumber(_ text: PatternText) -> Int? {
        // every field pattern ends with its colon
        guard text.folded.contains(where: { $0 == 0x3A || $0 == 0xFF1A }) else { return nil }
        return headerFields.firstIndex { $0.matchesStart(text) }.map { $0 + 1 }
    }
}
