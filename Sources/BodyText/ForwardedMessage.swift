import CivilTime
import JSONLines
import MailSubject
import UTF8Text

/// A message that a mail forwards: attached whole (message/rfc822, as mime-parse writes its
/// `message`) or written into the text below a forward's header block (Gmail's "----------
/// Forwarded message ---------", Outlook's From/Sent/To/Subject, Apple Mail's "Begin forwarded
/// message:", Thunderbird's "-------- Forwarded Message --------", in the languages of
/// reply-patterns.json). text-extract writes it as `forwarded_message` (mailpipe(5)).
public struct ForwardedMessage: Equatable, Sendable {
    public struct Person: Equatable, Sendable {
        public var name: String?
        public var address: String?

        public init(name: String?, address: String?) {
            self.name = name
            self.address = address
        }
    }

    public var from: Person?
    public var to: [Person] = []
    /// RFC 3339 in UTC; nil when the header block has no date it can be read from.
    public var date: String?
    public var subject: String?
    /// What the forwarded message says, as plain text (its HTML rendered when it has only HTML).
    public var text: String = ""
    /// Its attachments, as mime-parse's objects.
    public var attachments: [JSONValue] = []
    /// "attachment" (a message/rfc822 part) or "inline" (a header block in the text).
    public var source: String

    public init(source: String) { self.source = source }

    /// The object text-extract writes.
    public func write(_ w: inout JSONWriter) {
        func person(_ p: Person) {
            w.beginObject()
            w.field("name", p.name)
            w.field("address", p.address)
            w.endObject()
        }
        w.beginObject()
        w.key("from")
        if let from { person(from) } else { w.null() }
        w.key("to")
        w.beginArray()
        for p in to { person(p) }
        w.endArray()
        w.field("date", date)
        w.field("subject", subject)
        w.field("text", text)
        w.key("attachments")
        w.beginArray()
        for a in attachments { w.value(a) }
        w.endArray()
        w.field("source", source)
        w.endObject()
    }

    /// A `forwarded_message` object as text-extract wrote it.
    public init?(json v: JSONValue) {
        guard case .object = v, let source = v["source"]?.stringValue else { return nil }
        self.source = source
        func person(_ p: JSONValue?) -> Person? {
            guard let p, case .object = p else { return nil }
            return Person(name: p["name"]?.stringValue, address: p["address"]?.stringValue)
        }
        from = person(v["from"])
        to = v["to"]?.arrayValue?.compactMap(person) ?? []
        date = v["date"]?.stringValue
        subject = v["subject"]?.stringValue
        text = v["text"]?.stringValue ?? ""
        attachments = v["attachments"]?.arrayValue ?? []
    }
}

/// Finds the message a record forwards. Holds the reply patterns' matcher (ICU regexes): one
/// per thread, as the Extractor that owns it.
final class ForwardReader {
    private let m: ReplyMatcher
    private let dates: ForwardDate
    private let subjects = SubjectPrefixes.builtIn
    /// How many forwards down a forward of a forward with nothing of its own is followed.
    static let maxDepth = 8

    init(matcher: ReplyMatcher, patterns: ReplyPatterns) {
        m = matcher
        dates = ForwardDate(patterns: patterns)
    }

    /// The message the record forwards: its first message/rfc822 attachment that mime-parse
    /// read, else a forward written into its text; followed down while a forwarded message only
    /// forwards another. nil when it forwards none.
    /// `body`: the record's text as `Extractor.plainText` makes it, when the caller has it.
    func read(record: JSONRecord, body known: [UInt8]?? = nil) -> ForwardedMessage? {
        // a bounce, a read receipt or an abuse report returns the message it is about, and a
        // digest holds a list's posts: none of them forwards
        if let report = record.rawValue("report"), report.first == UInt8(ascii: "{") { return nil }
        // the forwarder's zone, for a header block's date without one (the headers are read only then)
        var offset: Int? { Self.zoneOffset(ofDateHeader: record.value("headers")?["date"]?.arrayValue?.first?.stringValue) }
        var attachments: [JSONValue] = []
        // most mail has no attachment, and most attachments are no message
        if let raw = record.rawValue("attachments"), raw.count > 2 { attachments = record.value("attachments")?.arrayValue ?? [] }
        var found: ForwardedMessage?
        if let attached = Self.attached(attachments) {
            // ARF's abuse reports too, which mime-parse's `report` does not read
            if let type = record.value("headers")?["content-type"]?.arrayValue?.first?.stringValue?.lowercased(),
               type.contains("multipart/digest") || type.contains("multipart/report") { return nil }
            found = attached
        } else if let body = known ?? Extractor.plainText(text: record.stringBytes("text"), format: record.string("text_format"),
                                                          html: record.stringBytes("html")) {
            found = inline(body, subject: record.string("subject"), zoneOffset: { offset })
            found?.attachments = attachments.filter { !Self.isMessage($0) }
        }
        guard var message = found else { return nil }
        for _ in 0..<Self.maxDepth {
            guard let inner = innerForward(of: message, zoneOffset: { offset }) else { break }
            message = inner
        }
        return message
    }

    /// The message forwarded by a forwarded message that says nothing of its own.
    private func innerForward(of message: ForwardedMessage, zoneOffset: () -> Int?) -> ForwardedMessage? {
        let text = Array(message.text.utf8)
        let lines = TextLines(text)
        if let attached = Self.attached(message.attachments), (0..<lines.count).allSatisfy(lines.isBlank) { return attached }
        guard let first = (0..<lines.count).first(where: { !lines.isBlank($0) }),
              let (marker, level) = marker(lines, at: first, forwardSubject: { isForward(message.subject) }) else { return nil }
        var inner = block(lines, from: marker, level: level, zoneOffset: zoneOffset)
        inner?.attachments = message.attachments
        return inner
    }

    static func isMessage(_ a: JSONValue) -> Bool {
        guard let type = a["content_type"]?.stringValue else { return false }
        return type == "message/rfc822" || type == "message/global"
    }

    /// The first message/rfc822 attachment that mime-parse read (it has `message`).
    static func attached(_ attachments: [JSONValue]) -> ForwardedMessage? {
        guard let m = attachments.first(where: { isMessage($0) && $0["message"].map { if case .object = $0 { true } else { false } } == true })?["message"]
        else { return nil }
        var f = ForwardedMessage(source: "attachment")
        func person(_ p: JSONValue?) -> ForwardedMessage.Person? {
            guard let p, case .object = p else { return nil }
            return ForwardedMessage.Person(name: p["name"]?.stringValue, address: p["address"]?.stringValue)
        }
        f.from = person(m["from"])
        f.to = m["to"]?.arrayValue?.compactMap(person) ?? []
        f.date = m["date"]?.stringValue
        f.subject = m["subject"]?.stringValue
        let text = m["text"]?.stringValue.map { Array($0.utf8) }, html = m["html"]?.stringValue.map { Array($0.utf8) }
        f.text = Extractor.plainText(text: text, format: nil, html: html).map { String(decoding: $0, as: UTF8.self) } ?? ""
        f.attachments = m["attachments"]?.arrayValue ?? []
        return f
    }

    /// A forward written into `body`: its first forward marker, or an Outlook header block in a
    /// mail whose subject says it forwards, and the header block under it.
    func inline(_ body: [UInt8], subject: String?, zoneOffset: () -> Int?) -> ForwardedMessage? {
        guard !body.isEmpty else { return nil }
        let lines = TextLines(body)
        var forwardSubject: Bool?
        for i in 0..<lines.count {
            guard let (start, level) = marker(lines, at: i, forwardSubject: {
                if forwardSubject == nil { forwardSubject = isForward(subject) }
                return forwardSubject!
            }) else { continue }
            if level > 0 && !opensQuote(lines, at: i) { continue }
            return block(lines, from: start, level: level, zoneOffset: zoneOffset)
        }
        return nil
    }

    /// A quoted marker counts where a client quotes the forward it writes (Gmail's HTML): as
    /// the first line of its quote, after no attribution ("On … wrote:" above it is a reply's).
    private func opensQuote(_ lines: TextLines, at i: Int) -> Bool {
        var k = i - 1
        while k >= 0, lines.isBlank(k) || (lines.isQuote(k) && dequoted(lines, k, level: 1).isEmpty) { k -= 1 }
        guard k >= 0 else { return true }
        if lines.isQuote(k) { return false }
        let end = lines.trimmedEnd(lines.lines[k])
        return !(lines.hasSuffix([0x3A], lines.lines[k].lowerBound..<end) || lines.hasSuffix(Array("：".utf8), lines.lines[k].lowerBound..<end))
    }

    /// Where the header block of a forward starts when line `i` opens one, and how deep it is
    /// quoted: the line after a marker, or line `i` itself when it is the From of an Outlook
    /// block (a subject that says "forward" is needed then: a reply has the same block).
    private func marker(_ lines: TextLines, at i: Int, forwardSubject: () -> Bool) -> (start: Int, level: Int)? {
        // every line is asked: its bytes first (a colon, or a rule's dash at its end), then the
        // patterns' cues, read from the bytes when they are ASCII
        let trimmed = lines.trimmed(i)
        guard let last = trimmed.last, lines.bytes[last] == UInt8(ascii: "-") || lines.contains(0x3A, in: trimmed)
                || lines.contains(0xBC, in: trimmed) else { return nil }
        if let cues = lines.asciiCues(trimmed, index: m.cues), !m.forwarded.mayMatch(cues),
           !(m.originalMessage.mayMatch(cues) || m.headerFields[0].mayMatch(cues)) || !forwardSubject() {
            return nil
        }
        let level = quoteLevel(lines, i)
        let line = dequoted(lines, i, level: level)
        guard !line.isEmpty else { return nil }
        let text = PatternText(line, cues: m.cues)
        if m.forwarded.matchesWhole(text) { return (i + 1, level) }
        guard forwardSubject() else { return nil }
        if m.originalMessage.matchesWhole(text) { return (i + 1, level) }
        if m.fieldNumber(text) == 1 { return (i, level) }
        return nil
    }

    private func isForward(_ subject: String?) -> Bool { subject.map { subjects.prefix(of: $0[...])?.kind == .forward } ?? false }

    private func quoteLevel(_ lines: TextLines, _ i: Int) -> Int {
        var level = 0
        for k in lines.lines[i] {
            let c = lines.bytes[k]
            if c == 0x3E { level += 1 } else if c != 0x20 && c != 0x09 { break }
        }
        return level
    }

    /// Line `i` without `level` quote marks (each with the space after it) and trimmed.
    private func dequoted(_ lines: TextLines, _ i: Int, level: Int) -> [UInt8] {
        var range = lines.lines[i]
        var left = level
        while left > 0, let k = range.first(where: { lines.bytes[$0] != 0x20 && lines.bytes[$0] != 0x09 }), lines.bytes[k] == 0x3E {
            range = (k + 1)..<range.upperBound
            if range.first.map({ lines.bytes[$0] == 0x20 }) == true { range = (range.lowerBound + 1)..<range.upperBound }
            left -= 1
        }
        return Array(lines.bytes[lines.trimmed(range)])
    }

    private enum Field: Int { case from = 1, sent, to, subject, cc }

    /// The header block from line `start` (rules and blank lines before it skipped) and the
    /// text under it; nil when it has no From nor Subject.
    private func block(_ lines: TextLines, from start: Int, level: Int, zoneOffset: () -> Int?) -> ForwardedMessage? {
        var k = start
        func line(_ i: Int) -> [UInt8] { dequoted(lines, i, level: level) }
        func field(_ bytes: [UInt8]) -> (Field, [UInt8])? {
            guard bytes.contains(0x3A) || bytes.contains(0xBC) else { return nil }
            guard let n = m.fieldNumber(PatternText(bytes, cues: m.cues)), let kind = Field(rawValue: n) else { return nil }
            return (kind, Self.value(afterColon: bytes))
        }
        while k < lines.count, line(k).isEmpty || Self.isRule(line(k)) { k += 1 }
        var values: [Field: [UInt8]] = [:]
        var last: Field?
        while k < lines.count {
            let bytes = line(k)
            if let (kind, value) = field(bytes) {
                if values[kind] == nil { values[kind] = value }
                last = kind
                k += 1
            } else if bytes.isEmpty {
                // Apple Mail's and Outlook's HTML put a blank line between fields at times
                var next = k + 1
                while next < lines.count, line(next).isEmpty { next += 1 }
                guard next < lines.count, next - k <= 2, let (kind, _) = field(line(next)), values[kind] == nil else { break }
                k = next
            } else if last != nil, Self.isOtherField(bytes) {
                k += 1  // Reply-To:, Resent-Date: and the like
            } else if let f = last, f == .to || f == .cc, bytes.contains(0x40) {
                values[f, default: []] += [0x20] + bytes  // a long list wrapped onto more lines
                k += 1
            } else {
                break
            }
        }
        guard values[.from] != nil || values[.subject] != nil, values.count >= 2 else { return nil }
        while k < lines.count, line(k).isEmpty { k += 1 }
        var text: [UInt8] = []
        var end = lines.count
        while end > k, line(end - 1).isEmpty { end -= 1 }
        for i in k..<end {
            if !text.isEmpty { text.append(0x0A) }
            text += level == 0 ? Array(lines.bytes[lines.lines[i]]) : line(i)
        }
        var f = ForwardedMessage(source: "inline")
        let string = { (b: [UInt8]) in String(decoding: b, as: UTF8.self) }
        f.from = values[.from].flatMap { Self.people(string($0), single: true).first }
        f.to = values[.to].map { Self.people(string($0), single: false) } ?? []
        f.subject = values[.subject].map(string)
        f.date = values[.sent].flatMap { dates.read(string($0), zoneOffset: zoneOffset()) }.map(CivilDate.rfc3339)
        f.text = string(text)
        return f
    }

    /// A header field of another name: an ASCII name of letters, digits and hyphens, a colon,
    /// a space.
    private static func isOtherField(_ b: [UInt8]) -> Bool {
        guard let colon = b.firstIndex(of: 0x3A), colon >= 2, colon <= 40, colon + 1 < b.count, b[colon + 1] == 0x20,
              b[0] & 0xDF >= 0x41, b[0] & 0xDF <= 0x5A else { return false }
        return b[..<colon].allSatisfy { ($0 & 0xDF >= 0x41 && $0 & 0xDF <= 0x5A) || ($0 >= 0x30 && $0 <= 0x39) || $0 == 0x2D }
    }

    private static func isRule(_ b: [UInt8]) -> Bool {
        b.count >= 5 && b.allSatisfy { $0 == UInt8(ascii: "-") || $0 == UInt8(ascii: "_") || $0 == UInt8(ascii: "=") }
    }

    /// What follows a field's colon (ASCII or full-width), without the `*` of bold and the
    /// white space around it.
    static func value(afterColon b: [UInt8]) -> [UInt8] {
        var i = 0
        while i < b.count {
            if b[i] == 0x3A { i += 1; break }
            if b[i] == 0xEF, i + 2 < b.count, b[i + 1] == 0xBC, b[i + 2] == 0x9A { i += 3; break }
            i += 1
        }
        var rest = b[i...].drop { $0 == 0x20 || $0 == 0x09 || $0 == UInt8(ascii: "*") }
        while let last = rest.last, last == 0x20 || last == 0x09 { rest = rest.dropLast() }
        return Array(rest)
    }

    /// The people of a From or To value: `Name <a@b>`, `"Name" <a@b>`, `Name [mailto:a@b]`,
    /// `Name <mailto:a@b>`, `a@b`, in a list split at commas and semicolons between addresses.
    /// A From without an address is its name.
    static func people(_ value: String, single: Bool) -> [ForwardedMessage.Person] {
        let chars = Array(value)
        var out: [ForwardedMessage.Person] = []
        var nameStart = 0
        var i = 0
        while i < chars.count {
            guard chars[i] == "@" else { i += 1; continue }
            var lo = i, hi = i + 1
            while lo > 0, isAddressCharacter(chars[lo - 1]) { lo -= 1 }
            while hi < chars.count, isAddressCharacter(chars[hi]) { hi += 1 }
            var address = String(chars[lo..<hi])
            while address.hasSuffix(".") { address.removeLast() }
            var nameEnd = lo
            // the name ends where the bracket around the address opens
            var j = lo - 1
            while j >= nameStart, chars[j] == " " { j -= 1 }
            if j >= nameStart, chars[j] == "<" || chars[j] == "[" || chars[j] == "(" { nameEnd = j }
            if nameEnd >= 7, String(chars[(nameEnd - 7)..<nameEnd]).lowercased() == "mailto:" { nameEnd -= 7 }
            if nameEnd > nameStart, chars[nameEnd - 1] == "<" || chars[nameEnd - 1] == "[" { nameEnd -= 1 }
            var name = String(chars[nameStart..<max(nameStart, nameEnd)])
            name = name.trimmingCharacters(in: " \t,;\"'")
            if name.lowercased() == address.lowercased() { name = "" }
            if !address.isEmpty, address.first != "@", address.last != "@" {
                out.append(.init(name: name.isEmpty ? nil : name, address: address))
                if single { return out }
            }
            // past the closing bracket and the separator
            var next = hi
            while next < chars.count, chars[next] == ">" || chars[next] == "]" || chars[next] == ")" || chars[next] == " " { next += 1 }
            while next < chars.count, chars[next] == "," || chars[next] == ";" || chars[next] == " " { next += 1 }
            nameStart = next
            i = next
        }
        if out.isEmpty, single {
            let name = value.trimmingCharacters(in: " \t,;\"'")
            if !name.isEmpty { out.append(.init(name: name, address: nil)) }
        }
        return out
    }

    private static func isAddressCharacter(_ c: Character) -> Bool {
        guard c.isASCII else { return false }
        return c.isLetter || c.isNumber || "._%+-!#$&'*/=?^`{|}~@".contains(c)
    }

    /// The zone of a Date header ("+0100", "-0500", "GMT"), in seconds east of UTC.
    static func zoneOffset(ofDateHeader header: String?) -> Int? {
        guard let header else { return nil }
        let words = header.split(whereSeparator: { $0 == " " || $0 == "\t" })
        for w in words.reversed() {
            if (w.first == "+" || w.first == "-"), w.count == 5, let v = Int(w.dropFirst()) {
                return (w.first == "-" ? -1 : 1) * ((v / 100) * 3600 + (v % 100) * 60)
            }
            if ["GMT", "UT", "UTC", "Z"].contains(w.uppercased()) { return 0 }
        }
        return nil
    }
}

extension String {
    func trimmingCharacters(in set: String) -> String {
        var s = Substring(self)
        while let f = s.first, set.contains(f) || f.isWhitespace { s = s.dropFirst() }
        while let l = s.last, set.contains(l) || l.isWhitespace { s = s.dropLast() }
        return String(s)
    }
}
