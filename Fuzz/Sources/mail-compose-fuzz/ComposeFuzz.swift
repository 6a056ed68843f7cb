#if canImport(Glibc)
import Glibc
#endif
import CFuzzer
import Compose
import Conversations
import JSONLines
import MailParse
import MailSubject

/// mail-compose's two halves, chosen by `MAILPIPE_FUZZ_TARGET`:
/// - `mail-compose-request`: the bytes are request lines, each read as mail-compose reads it
///   (ComposeRequest.parse); one that reads is written against an original in memory, and what
///   is written must read back with mime-parse. Nothing may crash.
/// - `mail-compose`: the bytes are made into an original (its subject, names, addresses and
///   text) and a request (a new message, a reply, a reply to all, a forward inline or as an
///   attachment; its text, subject and recipients; a reply's quote); the message written, read
///   back by mime-parse (MessageConverter), must have the subject, the recipients (addresses and
///   display names) and the text (format=flowed decoded; with quote, the original's lines one
///   level deeper after it) the rules say it has. A crash or a difference aborts with the input
///   saved.
/// "The same" is what mime-parse reads from the same value written plainly (one base64 encoded
/// word, a base64 body), so that mime-parse's own reading of whitespace is not counted against
/// the writer.

nonisolated(unsafe) let targetName: String = getenv("MAILPIPE_FUZZ_TARGET").map { String(cString: $0) } ?? ""
nonisolated(unsafe) let me = "me@example.com"
nonisolated(unsafe) let addressReader = AddressListReader()
nonisolated(unsafe) let converter = MessageConverter()
nonisolated(unsafe) let normalizer = AddressNormalizer()

func fail(_ message: String) -> Never {
    let text = Array("mail-compose-fuzz: \(targetName): \(message)\n".utf8)
    _ = text.withUnsafeBytes { write(2, $0.baseAddress, $0.count) }
    abort()
}

/// The originals a request may name: records made in memory.
final class MemoryOriginals: Originals {
    var byID: [String: Original] = [:]
    var conversations: [String: String] = [:]
    func message(id: String) throws -> Original? { byID[id] }
    func newestMessage(conversation: String) throws -> Original? { conversations[conversation].flatMap { byID[$0] } }
    func ownAddresses() throws -> [String] { [] }
    func ownName(address: String) throws -> String? { nil }
}

func composer(_ originals: Originals) -> Composer {
    Composer(originals: originals, me: [me], rules: AddressRules(), prefixes: .builtIn, zone: "Asia/Taipei", now: 1_780_000_000)
}

/// mime-parse's record of a message.
func parsed(_ bytes: [UInt8]) -> JSONValue {
    let raw = RawMessage(bytes: bytes, source: MessageSource(path: "-", offset: 0, length: bytes.count, format: "eml"))
    guard let record = try? JSONValue.parse(converter.record(for: raw).json) else { fail("mime-parse wrote a record that is not JSON") }
    return record
}

// MARK: mail-compose-request

nonisolated(unsafe) let fixedOriginals: MemoryOriginals = {
    let o = MemoryOriginals()
    let record = #"{"id":"o1@example.org","message_id":"o1@example.org","date":"2026-03-02T01:14:58Z","thread_id":"t1","from":{"name":"Alex Rivera","address":"alex@example.org"},"to":[{"name":"","address":"me@example.com"},{"name":"陳美玲","address":"mei@example.tw"}],"cc":[{"name":"Sato, Hana","address":"hana@example.jp"}],"bcc":[],"reply_to":[],"subject":"Dinner?","references":["r0@example.org"],"in_reply_to":["r0@example.org"],"text":"Are you free?\n","headers":{"list-post":["<mailto:list@example.org>"]},"calendar":[],"attachments":[]}"#
    let original = try! Original(Array(record.utf8))
    o.byID[original.id] = original
    o.conversations["c1"] = original.id
    return o
}()
nonisolated(unsafe) let requestComposer = composer(fixedOriginals)

func readRequests(_ input: [UInt8]) {
    for line in input.split(separator: 0x0A, omittingEmptySubsequences: true) {
        guard let request = try? ComposeRequest.parse(Array(line), addresses: addressReader) else { continue }
        // a path from the fuzzer could be /dev/zero: the reader is what is fuzzed, not the files
        guard request.attachments.isEmpty else { continue }
        guard let composed = try? requestComposer.compose(request) else { continue }
        _ = parsed(composed.bytes)
    }
}

// MARK: mail-compose

/// The fuzzer's bytes as fields (0xFF between them), each a string: UTF-8 as it is (invalid
/// sequences repaired), except that a byte 0xF8...0xFE (never in UTF-8) and the byte after it
/// stand for one of `tokens`, so that long lines, encoded-word look-alikes and the characters
/// mail treats apart are a mutation away.
struct Fields {
    var fields: [[UInt8]]

    init(_ bytes: [UInt8]) { fields = bytes.split(separator: 0xFF, omittingEmptySubsequences: false).map(Array.init) }

    func bytes(_ i: Int) -> [UInt8] { i < fields.count ? fields[i] : [] }

    func string(_ i: Int) -> String {
        let b = bytes(i)
        var out: [UInt8] = []
        var k = 0
        while k < b.count {
            if b[k] >= 0xF8 && b[k] <= 0xFE {
                let index = k + 1 < b.count ? Int(b[k + 1]) : 0
                out += Array(Self.tokens[index % Self.tokens.count].utf8)
                k += 2
            } else {
                out.append(b[k])
                k += 1
            }
        }
        return String(decoding: out, as: UTF8.self)
    }

    static let tokens: [String] = [
        String(repeating: "x", count: 100), String(repeating: "長", count: 60), String(repeating: "word ", count: 40),
        "https://example.com/" + String(repeating: "a", count: 1000), String(repeating: "é", count: 600),
        "=?utf-8?q?x?=", "=?", "?=", "\r\n", "\r", "\n", "-- ", "From ", ">", "> ", "\t", "\"", "\\", "@", ",", ";", ":", "<", ">",
        "(", ")", "é", "e\u{301}", "👨‍👩‍👧‍👦", "\u{0}", "\u{7F}", "\u{85}", "\u{2028}", "\u{FEFF}", "مرحبا", "Re: ", "AW: ", "回覆：",
        "Fwd: ", " ", "  ", String(repeating: " ", count: 80), "\u{200B}", "_", "=", "?", ".", "%", "\u{1}", "\u{1B}", "\u{C}",
    ]
}

/// A local part made of what an address may hold unquoted (atext, dots, and UTF-8 as RFC
/// 6532 allows), the field's other characters dropped; never empty.
func localPart(_ s: String, _ i: Int) -> String {
    var local = ""
    for c in s.unicodeScalars where local.unicodeScalars.count < 40 {
        let ascii = c.value < 0x80
        if !ascii && c.properties.isAlphabetic || ascii && (c.properties.isAlphabetic || ("0"..."9").contains(c) || "!#$%&'*+-/=?^_`{|}~.".unicodeScalars.contains(c)) {
            local.unicodeScalars.append(c)
        }
    }
    while local.contains("..") { local = local.replacing("..", with: ".") }
    // mime-parse reads "=?" in an address as the start of an encoded word (real mail breaks
    // them across commas): an address holding one does not read back, however it is written
    while local.contains("=?") { local = local.replacing("=?", with: "=") }
    while local.last == "." { local.removeLast() }
    if local.first == "." { local.removeFirst() }
    return local.isEmpty ? "p\(i)" : "p\(i)." + local
}

struct Box {
    var name: String
    var address: String
}

/// What mime-parse reads from a header written plainly: the value as one base64 encoded word.
func referenceSubject(_ subject: String) -> String {
    guard !subject.isEmpty else { return "" }
    let message = Array("From: x@example.com\nSubject: =?UTF-8?B?\(base64(Array(subject.utf8)))?=\n\nx\n".utf8)
    return parsed(message)["subject"]?.stringValue ?? ""
}

func referenceName(_ name: String) -> String {
    guard !name.isEmpty else { return "" }
    let message = Array("From: x@example.com\nTo: =?UTF-8?B?\(base64(Array(name.utf8)))?= <y@example.com>\n\nx\n".utf8)
    return parsed(message)["to"]?.arrayValue?.first?["name"]?.stringValue ?? ""
}

/// What mime-parse reads from a text written plainly: base64, not flowed.
func referenceText(_ text: String) -> String {
    let message = Array("From: x@example.com\nContent-Type: text/plain; charset=utf-8\nContent-Transfer-Encoding: base64\n\n\(base64(Array(text.utf8)))\n".utf8)
    return parsed(message)["text"]?.stringValue ?? ""
}

func trimmingEnds(_ s: String) -> String {
    var t = Substring(s)
    while let c = t.last, c == " " || c == "\t" { t.removeLast() }
    while let c = t.first, c == " " || c == "\t" { t.removeFirst() }
    return String(t)
}

func base64(_ bytes: [UInt8]) -> String {
    let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/".utf8)
    var out: [UInt8] = []
    var i = 0
    while i < bytes.count {
        let n = (UInt32(bytes[i]) << 16) | (i + 1 < bytes.count ? UInt32(bytes[i + 1]) << 8 : 0) | (i + 2 < bytes.count ? UInt32(bytes[i + 2]) : 0)
        out += [alphabet[Int(n >> 18)], alphabet[Int(n >> 12 & 63)]]
        out.append(i + 1 < bytes.count ? alphabet[Int(n >> 6 & 63)] : UInt8(ascii: "="))
        out.append(i + 2 < bytes.count ? alphabet[Int(n & 63)] : UInt8(ascii: "="))
        i += 3
    }
    return String(decoding: out, as: UTF8.self)
}

/// Text as the lines a reader shows: (quote depth, line). `flowed`: RFC 3676 with DelSp=no (a
/// line ending in a space goes on in the next of the same depth; one space after the quote
/// marks is stuffing); else each line as written, its quote marks and one space after them
/// read as a flowed reader reads them.
func lines(_ text: String, flowed: Bool) -> [(depth: Int, text: String)] {
    var out: [(depth: Int, text: String)] = []
    var open = false
    var source = text.split(separator: "\n", omittingEmptySubsequences: false)
    if source.last == "" { source.removeLast() }
    for raw in source {
        var line = raw
        var depth = 0
        while line.first == ">" {
            depth += 1
            line = line.dropFirst()
        }
        if (flowed || depth > 0) && line.first == " " { line = line.dropFirst() }
        if open, let last = out.last, last.depth == depth {
            out[out.count - 1].text += line
        } else {
            out.append((depth, String(line)))
        }
        open = flowed && line.last == " " && line != "-- "
    }
    return out
}

func same(_ a: [(depth: Int, text: String)], _ b: [(depth: Int, text: String)]) -> Bool {
    a.count == b.count && zip(a, b).allSatisfy { $0.depth == $1.depth && $0.text == $1.text }
}

func show(_ l: [(depth: Int, text: String)]) -> String { l.map { "\($0.depth)|\($0.text.debugDescription)" }.joined(separator: "\n") }

/// The text mail-compose means to send: line ends as LF, each line's trailing spaces and tabs
/// removed (a signature's "-- " kept), a final line end (an empty text is one empty line).
func meant(_ text: String) -> String {
    let lf = String(decoding: Array(text.utf8).split(separator: 0x0D, omittingEmptySubsequences: false)
        .enumerated().map { i, piece in i == 0 ? Array(piece) : (piece.first == 0x0A ? Array(piece) : [0x0A] + piece) }
        .joined(), as: UTF8.self)
    var lines = lf.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
    if lines.last == "" { lines.removeLast() }
    if lines.isEmpty { return "\n" }
    return lines.map { line in
        if line == "-- " { return line + "\n" }
        var s = Substring(line)
        while s.last == " " || s.last == "\t" { s.removeLast() }
        return String(s) + "\n"
    }.joined()
}

func writeOnce(_ input: [UInt8]) {
    let f = Fields(input)
    let control = f.bytes(0) + [UInt8](repeating: 0, count: 8)
    let kind = Int(control[0] % 5)  // new, reply, reply to all, forward inline, forward attached
    let flags = control[1]

    // the original: from someone else, to some (me among them or not), cc some
    func box(_ i: Int) -> Box {
        Box(name: f.string(10 + 2 * i), address: localPart(f.string(11 + 2 * i), i) + "@" + (flags & 0x40 != 0 && i % 2 == 1 ? "例え.jp" : "example.org"))
    }
    let from = box(0)
    var to = (0..<Int(control[2] % 4)).map { box(1 + $0) }
    let cc = (0..<Int(control[3] % 3)).map { box(5 + $0) }
    if flags & 0x04 != 0 { to.insert(Box(name: "", address: me), at: to.count / 2) }
    var w = JSONWriter()
    w.beginObject()
    for (key, value) in [("id", "o1@example.org"), ("message_id", "o1@example.org"), ("date", "2026-03-02T01:14:58Z"),
                         ("subject", f.string(1)), ("text", f.string(5))] {
        w.key(key)
        w.string(value)
    }
    func boxes(_ key: String, _ list: [Box]) {
        w.key(key)
        w.beginArray()
        for b in list {
            w.beginObject()
            w.key("name")
            w.string(b.name)
            w.key("address")
            w.string(b.address)
            w.endObject()
        }
        w.endArray()
    }
    w.key("from")
    w.beginObject()
    w.key("name")
    w.string(from.name)
    w.key("address")
    w.string(from.address)
    w.endObject()
    boxes("to", to)
    boxes("cc", cc)
    boxes("bcc", [])
    boxes("reply_to", [])
    w.endObject()
    let originals = MemoryOriginals()
    guard let original = try? Original(w.bytes) else { fail("the original's record does not read") }
    originals.byID[original.id] = original

    // the request
    var r = JSONWriter()
    r.beginObject()
    switch kind {
    case 1, 2:
        r.key("reply")
        r.string(original.id)
        if kind == 2 {
            r.key("all")
            r.bool(true)
        }
    case 3, 4:
        r.key("forward")
        r.string(original.id)
        if kind == 4 {
            r.key("as_attachment")
            r.bool(true)
        }
    default: break
    }
    let text = f.string(6)
    r.key("text")
    r.string(text)
    if flags & 0x01 != 0 {
        r.key("subject")
        r.string(f.string(7))
    }
    let quote = (kind == 1 || kind == 2) && flags & 0x08 != 0
    if quote {
        r.key("quote")
        r.bool(true)
    }
    for (i, key) in ["to", "cc", "bcc"].enumerated() where !f.bytes(2 + i).isEmpty {
        r.key(key)
        r.string(f.string(2 + i))
    }
    r.endObject()
    guard let request = try? ComposeRequest.parse(r.bytes, addresses: addressReader) else { return }
    guard !(request.to + request.cc + request.bcc).contains(where: { $0.address.contains("=?") }) else { return }  // as above
    let composed: Composer.Composed
    do { composed = try composer(originals).compose(request) } catch { return }

    // what the rules say it holds
    let prefixes = SubjectPrefixes.builtIn
    func withoutPrefixes(_ s: String, _ kind: SubjectPrefixes.Kind) -> String {
        var rest = Substring(s)
        while let p = prefixes.prefix(of: rest), p.kind == kind { rest = p.rest }
        var t = rest
        while let c = t.first, c == " " || c == "\t" { t.removeFirst() }
        while let c = t.last, c == " " || c == "\t" { t.removeLast() }
        return String(t)
    }
    let subject: String
    if let given = request.subject {
        subject = given
    } else if kind == 1 || kind == 2 {
        let s = withoutPrefixes(original.subject, .reply)
        subject = s.isEmpty ? "Re:" : "Re: " + s
    } else if kind >= 3 {
        let s = withoutPrefixes(original.subject, .forward)
        subject = s.isEmpty ? "Fwd:" : "Fwd: " + s
    } else {
        subject = ""
    }
    func mine(_ a: String) -> Bool { normalizer.normalize(a) == normalizer.normalize(me) }
    var expected: [[Mailbox]] = [request.to, request.cc, request.bcc]
    if kind == 1 || kind == 2 {
        let sender = [Mailbox(name: from.name, address: from.address)]
        let others = (kind == 2 ? to : []).filter { !mine($0.address) }.map { Mailbox(name: $0.name, address: $0.address) }
        let copies = (kind == 2 ? cc : []).map { Mailbox(name: $0.name, address: $0.address) }
        expected = [sender + others + request.to, copies + request.cc, request.bcc]
    }
    if kind != 0 {  // no address twice, compared as participant-hash compares them
        var seen = Set<String>()
        expected = expected.map { $0.filter { seen.insert(normalizer.normalize($0.address) ?? $0.address.lowercased()).inserted } }
    }

    // what mime-parse reads
    let record = parsed(composed.bytes)
    let message = String(decoding: composed.bytes.prefix(4000), as: UTF8.self)
    // (white space at a header's ends is not kept: mime-parse trims it, as most readers do)
    let gotSubject = trimmingEnds(record["subject"]?.stringValue ?? "")
    if gotSubject != trimmingEnds(referenceSubject(subject)) {
        fail("subject \(subject.debugDescription) read back as \(gotSubject.debugDescription), not \(referenceSubject(subject).debugDescription)\n\(message)")
    }
    for (i, key) in ["to", "cc", "bcc"].enumerated() {
        let got = record[key]?.arrayValue ?? []
        let want = expected[i]
        let gotAddresses = got.map { $0["address"]?.stringValue ?? "" }
        if gotAddresses != want.map(\.address) {
            fail("\(key): \(want.map(\.address)) read back as \(gotAddresses)\n\(message)")
        }
        for (g, m) in zip(got, want) where (g["name"]?.stringValue ?? "") != referenceName(m.name) {
            fail("\(key): the name \(m.name.debugDescription) read back as \((g["name"]?.stringValue ?? "").debugDescription), not \(referenceName(m.name).debugDescription)\n\(message)")
        }
    }
    if kind == 1 || kind == 2 {
        if record["in_reply_to"]?.arrayValue?.compactMap(\.stringValue) != [original.id] { fail("In-Reply-To is not the original's\n\(message)") }
    }
    let gotText = lines(record["text"]?.stringValue ?? "", flowed: record["text_format"]?.stringValue == "flowed")
    // a forward's text comes before the forwarded message's (when there is one)
    let wantText = (kind >= 3 || quote) && text.isEmpty ? [] : lines(referenceText(meant(text)), flowed: false)
    let matches = kind >= 3 || quote ? gotText.count >= wantText.count && same(Array(gotText.prefix(wantText.count)), wantText) : same(gotText, wantText)
    if !matches {
        fail("the text read back as\n\(show(gotText))\nnot\n\(show(wantText))\n\(message)")
    }
    if quote {  // the text, "On DATE, NAME wrote:", then each line of the original's one level deeper
        var quoted = meant(original.text).split(separator: "\n", omittingEmptySubsequences: false).dropLast()
        if original.text.isEmpty { quoted = [] }
        let block = quoted.map { $0.isEmpty || $0.first == ">" ? ">" + $0 : "> " + $0 }.joined(separator: "\n")
        let wantQuote = quoted.isEmpty ? [] : lines(referenceText(meant(block)), flowed: false)
        let between = gotText.dropFirst(wantText.count).dropLast(wantQuote.count)
        if !(gotText.count >= wantText.count + wantQuote.count && same(Array(gotText.suffix(wantQuote.count)), wantQuote)
            && between.contains(where: { $0.text.hasPrefix("On ") })) {
            fail("the quoted original read back as\n\(show(gotText))\nnot ending in\n\(show(wantQuote))\n\(message)")
        }
    }
}

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzOnce(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    let input = Array(UnsafeBufferPointer(start: data, count: size))
    switch targetName {
    case "mail-compose-request": readRequests(input)
    case "mail-compose": writeOnce(input)
    default: fail("set MAILPIPE_FUZZ_TARGET to mail-compose or mail-compose-request")
    }
    return 0
}

/// SwiftPM links an executable's main under this name, and libFuzzer brings a main of its own
/// (the link allows both): either way the command line goes to libFuzzer's driver.
@_cdecl("mail_compose_fuzz_main")
func fuzzMain(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> CInt {
    var argc = argc
    var argv = argv
    return LLVMFuzzerRunDriver(&argc, &argv) { data, size in fuzzOnce(data, size) }
}
