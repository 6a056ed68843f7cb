import Glibc
import JSONLines
import Testing
import UnicodeServices
@testable import BodyText

/// The cues only let the splitter skip a pattern that cannot match: wherever ICU finds a
/// match of a built-in pattern in a line, the line holds its cues.
@Test func cuesNeverHideAMatch() throws {
    var lines = [
        "ON MON, JAN 1, 2024 AT 10:00, JOHN <J@X.COM> WROTE:", "Am 01.01.2024 um 10:00 schrieb Hans <h@x.de>:",
        "ИВАН ПИШЕТ:", "ſENT FROM MY IPHONE", "VON MEINEM IPHONE GESENDET", "MIT FREUNDLICHEN GRÜSSEN",
        "-----URSPRÜNGLICHE NACHRICHT-----", "从我的iPhone发送", "寄件者: 王小明", "2024年1月1日 10:00 田中 <t@x.jp>:",
    ]
    for file in ["github_email_reply_parser.json", "mail_parser_reply.json", "talon_quotations.json", "talon_signatures.json"] {
        guard case .array(let cases)? = try? JSONValue.parse(try read("../shared/vectors/reply/" + file)) else {
            Issue.record("cannot read \(file)")
            continue
        }
        for c in cases {
            guard case .object(let members) = c, let input = members.first(where: { $0.0 == "input" })?.1.stringValue else { continue }
            lines += input.split(separator: "\n").map { String($0) }
        }
    }
    #expect(lines.count > 1000)
    let patterns = ReplyPatterns.builtIn
    var checked = 0
    for key in ReplyPatterns.keys where !ReplyPatterns.wordKeys.contains(key) {
        for source in patterns.list(key) {
            let regex = try TextPattern(source, caseInsensitive: true)
            guard let cues = LiteralCues(pattern: source) else { continue }
            for line in lines {
                let u = Array(line.utf16)
                var found = false
                regex.forEachMatch(in: u) { _ in
                    found = true
                    return false
                }
                if found {
                    checked += 1
                    #expect(cues.mayMatch(folded: CaseFolding.folded(u)), "\(key) \(source) matches '\(line)'")
                }
            }
        }
    }
    #expect(checked > 500)
}

/// Every built-in list has cues, so that no line pays for every pattern.
@Test func everyBuiltInListHasCues() {
    let m = ReplyMatcher(.builtIn)
    for (name, p) in [("attribution", m.attribution), ("attribution_start", m.attributionStart), ("original_message", m.originalMessage),
                      ("forwarded", m.forwarded), ("header", m.headerField), ("signature_delimiter", m.signatureDelimiter),
                      ("mobile_signature", m.mobileSignature), ("disclaimer", m.disclaimer), ("closing", m.closing)] {
        #expect(p.cues != nil, "\(name)")
    }
}

private func read(_ relative: String) throws -> [UInt8] {
    // the package root is two folders above this file
    let root = String(#filePath.split(separator: "/", omittingEmptySubsequences: false).dropLast(3).joined(separator: "/"))
    let fd = open(root + "/" + relative, O_RDONLY)
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
