import Glibc
import JSONLines
import Testing
import UnicodeServices
@testable import BodyText

/// The reply vectors live outside the repository, in ../shared beside the checkout: an optional
/// corpus. Without it the tests that count on its lines are skipped, saying so; with
/// MAILPIPE_REQUIRE_SHARED=1 (.ci/run sets it when ../shared is there) they run, and fail when
/// the vectors cannot be read.
private let replyVectors = "../shared/vectors/reply/"
private let readReplyVectors = access(packageRoot + "/" + replyVectors, F_OK) == 0
    || getenv("MAILPIPE_REQUIRE_SHARED").map { String(cString: $0) == "1" } == true
private let replyVectorsMissing: Comment = "optional external corpus missing: ../shared/vectors/reply (a folder named shared beside the checkout; see README)"

/// Lines of every reply vector (when there), upper-cased too, and lines written to trip case
/// folding, white space and word boundaries.
private let sampleLines: [String] = {
    var lines = [
        "ON MON, JAN 1, 2024 AT 10:00, JOHN <J@X.COM> WROTE:", "Am 01.01.2024 um 10:00 schrieb Hans <h@x.de>:",
        "ИВАН ПИШЕТ:", "ſENT FROM MY IPHONE", "VON MEINEM IPHONE GESENDET", "MIT FREUNDLICHEN GRÜSSEN",
        "-----URSPRÜNGLICHE NACHRICHT-----", "从我的iPhone发送", "寄件者: 王小明", "2024年1月1日 10:00 田中 <t@x.jp>:",
        "On\u{A0}Mon, 1 Jan 2024, Jo <j@x.com> wrote:", "On Mon\u{2028}Jo wrote:", "On Mon, Jo wrote\u{3000}:",
        "-- Jo\u{301}wrote --", "-- Jo\u{200B}wrote --", "On Mon, 1 Jan, Jo\u{301}wrote:", "Sent\u{0B}from my iPhone", "Jo\u{301} wrote:", "Jo\u{200D}wrote:", "-Jo\u{301}sé", "/Ana María", "—",
        "Le 1 janv. 2024 à 10:00, Éric <e@x.fr> a écrit :", "El 1 ene 2024, a las 10:00, Ana <a@x.es> escribió:",
        "2024-01-01 10:00 GMT+01:00 Jo <j@x.com>:", "Gesendet von meinem Telefon", "Sent from my 📱", "Best,", "regards",
    ]
    let files = readReplyVectors ? ["github_email_reply_parser.json", "mail_parser_reply.json", "talon_quotations.json", "talon_signatures.json"] : []
    for file in files {
        guard case .array(let cases)? = try? JSONValue.parse(try read(replyVectors + file)) else {
            Issue.record("cannot read \(file)")
            continue
        }
        for c in cases {
            guard case .object(let members) = c, let input = members.first(where: { $0.0 == "input" })?.1.stringValue else { continue }
            lines += input.split(separator: "\n").map { String($0) }
        }
    }
    return lines + lines.map { $0.uppercased() }
}()

/// For texts read only by FoldedMatcher and ICU.
private let noCues = CueIndex(groups: [])

/// The splitter reads a line's cues once, for all its patterns, in one CueIndex (from the
/// bytes when they are ASCII): each pattern gets the answer its own cues give.
@Test(.enabled(if: readReplyVectors, replyVectorsMissing)) func sharedCuesAnswerAsEachPatternsOwn() {
    let m = ReplyMatcher(.builtIn)
    let patterns = [m.attribution, m.attributionStart, m.attributionStartsLine, m.originalMessage, m.forwarded, m.laterField,
                    m.signatureDelimiter, m.mobileSignature, m.disclaimer, m.banner, m.closing] + m.headerFields
    var passed = 0
    for line in sampleLines {
        let t = PatternText(utf16: Array(line.utf16), cues: m.cues)
        let fromBytes = PatternText(Array(line.utf8), cues: m.cues)
        for p in patterns {
            let own = p.cues?.mayMatch(folded: t.folded) ?? true
            #expect(p.mayMatch(t) == own, "\(p.source) on '\(line)'")
            #expect(p.mayMatch(fromBytes) == own, "\(p.source) on '\(line)' from its bytes")
            if own { passed += 1 }
        }
    }
    #expect(passed > 5_000)
}

/// The cues only let the splitter skip a pattern that cannot match: wherever ICU finds a
/// match of a built-in pattern in a line, the line holds its cues.
@Test(.enabled(if: readReplyVectors, replyVectorsMissing)) func cuesNeverHideAMatch() throws {
    let lines = sampleLines
    #expect(lines.count > 1000)
    let patterns = ReplyPatterns.builtIn
    var checked = 0
    for key in ReplyPatterns.keys where !ReplyPatterns.wordKeys.contains(key) {
        for source in patterns.list(key) {
            let regex = try TextPattern(source, caseInsensitive: true)
            guard let cues = LiteralCues(pattern: source) else { continue }
            for line in lines {
                let u = Array(line.utf16)
                if regex.firstMatch(in: u) != nil {
                    checked += 1
                    #expect(cues.mayMatch(folded: CaseFolding.folded(u)), "\(key) \(source) matches '\(line)'")
                }
            }
        }
    }
    #expect(checked > 500)
}

/// FoldedMatcher answers as ICU does, for every built-in pattern it takes, on every line it
/// can read; and it takes the patterns that run on most lines.
@Test(.enabled(if: readReplyVectors, replyVectorsMissing)) func foldedMatcherAgreesWithICU() throws {
    let patterns = ReplyPatterns.builtIn
    var compared = 0, matched = 0, taken = 0, total = 0
    for key in ReplyPatterns.keys where !ReplyPatterns.wordKeys.contains(key) {
        for source in patterns.list(key) {
            total += 1
            let regex = try TextPattern(source, caseInsensitive: true)
            guard let fast = FoldedMatcher(pattern: source) else { continue }
            taken += 1
            for line in sampleLines {
                let t = PatternText(utf16: Array(line.utf16), cues: noCues)  // as the splitter reads a line
                guard t.foldedIsExact else { continue }
                let icu = regex.wholeMatch(t.utf16) != nil
                compared += 1
                if icu { matched += 1 }
                #expect(fast.matchesWhole(t.folded) == icu, "\(key) \(source) on '\(line)'")
            }
        }
    }
    #expect(taken == total)
    #expect(matched > 300)
    #expect(compared > 100_000)
}

@Test func foldedMatcherStartsAsICUDoes() throws {
    let m = ReplyMatcher(.builtIn)
    for pattern in [m.attributionStartsLine] + m.headerFields {
        let regex = try TextPattern(pattern.source, caseInsensitive: true)
        let fast = try #require(FoldedMatcher(pattern: pattern.source))
        for line in sampleLines {
            let t = PatternText(utf16: Array(line.utf16), cues: noCues)
            guard t.foldedIsExact else { continue }
            let icu = regex.firstMatch(in: t.utf16)?.range.lowerBound == 0
            #expect(fast.matchesStart(t.folded) == icu, "\(pattern.source) on '\(line)'")
        }
    }
}

@Test func foldedMatcherDeclinesWhatItDoesNotModel() {
    for pattern in ["(?<=a)b", "(a)\\1", "(?:ab)+", "a++", "(?-i)a", "[A-Z]", "\\p{Lu}", "a$", "(?x) a"] {
        #expect(FoldedMatcher(pattern: pattern) == nil, "\(pattern)")
    }
}

/// Every built-in list has cues, so that no line pays for every pattern.
@Test func everyBuiltInListHasCues() {
    let m = ReplyMatcher(.builtIn)
    for (name, p) in [("attribution", m.attribution), ("attribution_start", m.attributionStart), ("original_message", m.originalMessage),
                      ("forwarded", m.forwarded), ("header_from", m.headerFields[0]), ("signature_delimiter", m.signatureDelimiter),
                      ("mobile_signature", m.mobileSignature), ("disclaimer", m.disclaimer), ("banner", m.banner), ("closing", m.closing)] {
        #expect(p.cues != nil, "\(name)")
    }
}

/// The package root, two folders above this file.
private let packageRoot = String(#filePath.split(separator: "/", omittingEmptySubsequences: false).dropLast(3).joined(separator: "/"))

private func read(_ relative: String) throws -> [UInt8] {
    let fd = open(packageRoot + "/" + relative, O_RDONLY)
    guard fd >= 0 else { throw ReadError() }
    defer { close(fd) }
    var out: [UInt8] = []
    var buffer = [UInt8](repeating: 0, count: 65536)
    while true {
        let n = read(fd, &buffer, buffer.count)
        guard n > 0 else { break }
        out += buffer[0..<n]
    }
    return out
}

private struct ReadError: Error {}

/// The splitter's "starts with a number" reads the first scalar as Character.isNumber reads a
/// character: checked on digits and numerals of many scripts, fractions, a digit outside the
/// BMP (a surrogate pair), a lone surrogate, letters and punctuation.
@Test func startsWithNumberAsCharacterIsNumber() {
    var texts = ["2015", "٢٠١٥", "۲۰۱۵", "२०१५", "二〇一五年", "一月", "Ⅻ", "½ Tag", "①", "２０１５年", "𝟙𝟚", "𐄇",
                 "On Mon", "Am 3.", "Le 4", "-- ", "", " 2015", "é", "😀", "\u{0301}1"].map { Array($0.utf16) }
    texts.append([0xD800, 0x0031])  // a lone high surrogate, then a digit
    texts.append([0xDC00])
    for scalar in stride(from: 0x20, to: 0x3_0000, by: 7) {
        if let s = Unicode.Scalar(scalar) { texts.append(Array(String(s).utf16) + Array("x".utf16)) }
    }
    for t in texts {
        let expected = String(decoding: t, as: UTF16.self).first?.isNumber ?? false
        #expect(ReplySplitter.startsWithNumber(t) == expected, "\(t)")
    }
}

/// The built-in patterns are not compiled to check them when they load (they are at every
/// start of a program): each must compile, and a user's file is still checked.
@Test func everyBuiltInPatternCompilesAndAUsersMistakeIsSaid() throws {
    let patterns = ReplyPatterns.builtIn
    var compiled = 0
    for key in ReplyPatterns.keys where !ReplyPatterns.wordKeys.contains(key) {
        for source in patterns.list(key) {
            _ = try TextPattern(source, caseInsensitive: true)
            compiled += 1
        }
    }
    #expect(compiled > 50)
    var user = ReplyPatterns.builtIn
    #expect(throws: ReplyPatterns.FileError.self) { try user.add(json: Array(#"{"closing": ["(unclosed"]}"#.utf8)) }
}

/// The cues of a list read pattern by pattern are those of the list's alternation read whole.
@Test func cuesOfAlternativesAreThoseOfTheirAlternation() {
    let patterns = ReplyPatterns.builtIn
    var lists = ReplyPatterns.keys.filter { !ReplyPatterns.wordKeys.contains($0) }.map { patterns.list($0) }
    lists += [["colou?r", "\\d+ items"], ["(?:regards|cheers)"], ["kind regards"], []]
    for list in lists {
        let joined = list.isEmpty ? "(?!)" : "(?:" + list.map { "(?:\($0))" }.joined(separator: "|") + ")"
        let cues = LiteralCues.ofAlternatives(list)
        #expect(cues.whole == LiteralCues(pattern: joined), "\(list.prefix(2))")
        #expect(cues.each == list.map { LiteralCues(pattern: $0) })
    }
}

/// The table of the built-in patterns' cues (ReplyPatternCues.swift) is what reading them off
/// gives today: a change to reply-patterns.json or to LiteralCues needs `make reply-cues`, which
/// runs this with MAILPIPE_WRITE_CUES set to the file to write. A matcher made from the table
/// asks for nothing else, and one whose list a user's file extends reads that list off.
@Test func theBuiltInCuesTableIsUpToDate() throws {
    var read = CueReader(table: [:], recording: true)
    _ = ReplyMatcher(.builtIn, reader: &read)
    if let path = getenv("MAILPIPE_WRITE_CUES").map({ String(cString: $0) }) {
        let source = Array(CueReader.source(read.asked).utf8)
        let file = try #require(fopen(path, "w"))
        #expect(fwrite(source, 1, source.count, file) == source.count)
        fclose(file)
    }
    #expect(read.asked == ReplyPatternCues.table, "reply-patterns.json or LiteralCues changed: run make reply-cues")
    #expect(read.asked.count > 50)

    var fromTable = CueReader(recording: true)
    _ = ReplyMatcher(.builtIn, reader: &fromTable)
    #expect(fromTable.asked == read.asked)

    var extended = ReplyPatterns.builtIn
    try extended.add(json: Array(#"{"closing": ["^Mit freundlichem Gru(ß|ss) aus Wien"]}"#.utf8))
    var mixed = CueReader(recording: true)
    let m = ReplyMatcher(extended, reader: &mixed)
    let own = try #require(mixed.asked["^Mit freundlichem Gru(ß|ss) aus Wien"])  // read off, not in the table
    #expect(ReplyPatternCues.table["^Mit freundlichem Gru(ß|ss) aus Wien"] == nil && own == CueReader.strings(LiteralCues(pattern: "^Mit freundlichem Gru(ß|ss) aus Wien")))
    #expect(!own.isEmpty && mixed.asked.count == read.asked.count + 1)
    #expect(m.closing.matchesWhole(PatternText(utf16: Array("Mit freundlichem Gruß aus Wien".utf16), cues: m.cues)))
}
