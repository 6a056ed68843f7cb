#if canImport(Glibc)
import Glibc
#endif
import CivilTime
import Conversations
import FileType
import ICalendar
import JSONLines
import MailParse
import MailSubject
import UnixFilter

/// Writes the message a request asks for: a reply, a chat's answer, a forward, an RSVP or a new
/// message, as RFC 5322 and MIME text with LF line ends. mail-compose(1) gives every rule.
public final class Composer {
    let originals: Originals?
    let addressing: Addressing
    let prefixes: SubjectPrefixes
    let zone: String
    /// The time messages are dated (--now); the clock's when nil.
    let fixedNow: Int?
    public var name: String?
    public var quote = false
    public var listReply = ListReply.sender
    private lazy var fileTypes = Result(catching: { try FileTypeDetector() })

    public struct Failure: Error, CustomStringConvertible {
        public var description: String
        init(_ d: String) { description = d }
    }

    /// A written message: its bytes, its Message-ID and, when it answers one, the Gmail thread
    /// of what it answers.
    public struct Composed {
        public var bytes: [UInt8]
        public var messageID: String
        public var threadID: String?
    }

    /// `me`: my addresses (the first is the one new mail comes from); `rules`: how addresses
    /// are compared (the store's, or participant-hash's flags).
    public init(originals: Originals?, me: [String], rules: AddressRules, prefixes: SubjectPrefixes, zone: String, now: Int?) {
        self.originals = originals
        addressing = Addressing(me: me, normalizer: AddressNormalizer(rules: rules))
        self.prefixes = prefixes
        self.zone = zone
        fixedNow = now
    }

    public func compose(_ request: ComposeRequest) throws -> Composed {
        switch request.kind {
        case .reply(let id, let all):
            let original = try message(id)
            return try reply(to: original, all: all, request)
        case .conversation(let id):
            guard let originals else { throw Failure("conversation: no store or records to read it from") }
            guard let original = try originals.newestMessage(conversation: id) else { throw Failure("conversation: no conversation \(id)") }
            return try reply(to: original, all: true, request)
        case .forward(let id, let asAttachment):
            return try forward(try message(id), asAttachment: asAttachment, request)
        case .rsvp(let id, let answer):
            return try rsvp(to: try message(id), answer: answer, request)
        case .new:
            let from = try sender(request, original: nil)
            return try write(from: from, to: Addressing.Recipients(to: request.to, cc: request.cc, bcc: request.bcc),
                             subject: request.subject ?? "", answering: nil, body: try body(request.text, attachments: request.attachments))
        }
    }

    private func message(_ id: String) throws -> Original {
        guard let originals else { throw Failure("no store or records to read message \(id) from") }
        guard let original = try originals.message(id: id) else { throw Failure("no message \(id)") }
        return original
    }

    // MARK: the kinds of message

    private func reply(to original: Original, all: Bool, _ request: ComposeRequest) throws -> Composed {
        var recipients = addressing.replyRecipients(original, all: all, list: request.listReply ?? listReply)
        recipients.to += request.to
        recipients.cc += request.cc
        recipients.bcc += request.bcc
        recipients = addressing.deduplicated(recipients)
        guard !recipients.isEmpty else { throw Failure("the message names no one to answer") }
        var text = request.text
        if request.quote ?? quote { text = withQuote(text, of: original) }
        return try write(from: try sender(request, original: original), to: recipients,
                         subject: request.subject ?? replySubject(original.subject), answering: original,
                         body: try body(text, attachments: request.attachments))
    }

    private func forward(_ original: Original, asAttachment: Bool, _ request: ComposeRequest) throws -> Composed {
        let subject = request.subject ?? forwardSubject(original.subject)
        let recipients = addressing.deduplicated(Addressing.Recipients(to: request.to, cc: request.cc, bcc: request.bcc))
        var parts: [MIMEPart]
        if asAttachment {
            parts = [MIMEPart.text(request.text), MIMEPart.message(rawMessage(original), name: nil)]
        } else {
            parts = [MIMEPart.text(request.text.isEmpty ? forwardedText(original) : request.text + "\n\n" + forwardedText(original))]
        }
        parts += try request.attachments.map(attachment)
        // answering nothing: a forward starts a thread of its own, on Gmail too
        return try write(from: try sender(request, original: original), to: recipients, subject: subject, answering: nil,
                         body: parts.count == 1 ? parts[0] : MIMEPart.multipart("mixed", parts))
    }

    private func rsvp(to original: Original, answer: ParticipationAnswer, _ request: ComposeRequest) throws -> Composed {
        let calendars = original.calendars
        guard !calendars.isEmpty else { throw Failure("not an invitation: the message has no calendar part") }
        // the attendee I am: the address the invitation came to first, then my others
        var candidates = addressing.me
        if let first = addressing.fromAddress(original), let i = candidates.firstIndex(of: first) { candidates.insert(candidates.remove(at: i), at: 0) }
        if let given = request.from?.address { candidates = [given] }
        guard !candidates.isEmpty else { throw Failure("rsvp: who am I? give --me ADDR (or the request's from)") }
        var reply: ITIPReply?, attendee = ""
        var firstError: Error?
        // the first calendar part that invites me (an invitation often comes twice: the
        // text/calendar alternative and an invite.ics file)
        answering: for invitation in calendars {
            for candidate in candidates {
                do {
                    reply = try ITIPReply.make(invitation: invitation, attendee: candidate, answer: answer, comment: request.comment, now: now)
                    attendee = candidate
                    break answering
                } catch {
                    if firstError == nil { firstError = error }
                }
            }
        }
        guard let reply else { throw Failure("rsvp: \(firstError.map { "\($0)" } ?? "not an invitation")") }
        let me = Mailbox(name: try request.from?.name ?? displayName(of: attendee), address: attendee)
        let organizer = Mailbox(name: reply.organizerName ?? "", address: reply.organizer)
        let verb = switch answer {
        case .accepted: "Accepted"
        case .declined: "Declined"
        case .tentative: "Tentative"
        }
        let summary = reply.summary ?? original.subject
        var text = "\(me.name.isEmpty ? me.address : me.name) has \(answer == .tentative ? "tentatively accepted" : answer.rawValue) the invitation: \(summary)\n"
        if let comment = request.comment, !comment.isEmpty { text += "\n\(comment)\n" }
        let body = MIMEPart.multipart("alternative", [MIMEPart.text(text), MIMEPart.calendar(reply.calendar, method: "REPLY")])
        return try write(from: me, to: Addressing.Recipients(to: [organizer]), subject: request.subject ?? "\(verb): \(summary)",
                         answering: original, body: body)
    }

    // MARK: parts

    private func body(_ text: String, attachments: [String]) throws -> MIMEPart {
        guard !attachments.isEmpty else { return MIMEPart.text(text) }
        return MIMEPart.multipart("mixed", [MIMEPart.text(text)] + (try attachments.map(attachment)))
    }

    private func attachment(_ path: String) throws -> MIMEPart {
        let bytes: [UInt8]
        var info = stat()
        // (a FIFO or a device would block the open or never end: a file is what is attached)
        if stat(path, &info) == 0 && (info.st_mode & S_IFMT) != S_IFREG {
            throw Failure("attachments: \(path): \((info.st_mode & S_IFMT) == S_IFDIR ? "is a directory" : "not a regular file")")
        }
        do {
            let input = try Input.open(path)
            defer { input.close() }
            guard !input.isDirectory else { throw Failure("attachments: \(path): is a directory") }
            bytes = try readWholeFile(fd: input.fd)
        } catch let e as InputError {
            throw Failure("attachments: \(path): \(e.description)")
        }
        let type = try fileTypes.get().mimeType(of: bytes)
        let name = path.split(separator: "/").last.map(String.init) ?? path
        if type == "message/rfc822" { return MIMEPart.message(bytes, name: name) }
        return MIMEPart.attachment(name: name, type: type, bytes: bytes)
    }

    /// The original's bytes as they came, when its record says where they are and they are
    /// still there (read back, they are the same message); else a message made from the
    /// record: its From, To, Cc, Subject, Date and ids, and its text.
    func rawMessage(_ original: Original) -> [UInt8] {
        if let source = original.source, let bytes = Self.read(source), !bytes.isEmpty {
            let message = Self.withoutMboxEnvelope(bytes)
            let converter = MessageConverter()
            if let json = try? JSONRecord(converter.record(for: RawMessage(bytes: message, source: MessageSource(path: source.path, offset: source.offset, length: source.length, format: "eml"))).json), json.string("id") == original.id {
                return message
            }
        }
        var headers: [String] = []
        if let from = original.from { headers.append(HeaderWriting.addresses("From", [from])) }
        if !original.to.isEmpty { headers.append(HeaderWriting.addresses("To", original.to)) }
        if !original.cc.isEmpty { headers.append(HeaderWriting.addresses("Cc", original.cc)) }
        headers.append(HeaderWriting.unstructured("Subject", original.subject))
        if let epoch = original.date.flatMap({ CivilDate.epoch(rfc3339: $0) }) { headers.append("Date: \(dateText(epoch))") }
        if let id = original.messageID, Self.isWritableID(id) { headers.append("Message-ID: <\(id)>") }
        let inReplyTo = original.inReplyTo.filter(Self.isWritableID), references = original.references.filter(Self.isWritableID)
        if !inReplyTo.isEmpty { headers.append(HeaderWriting.messageIDs("In-Reply-To", inReplyTo)) }
        if !references.isEmpty { headers.append(HeaderWriting.messageIDs("References", references)) }
        let part = MIMEPart.text(original.plainText)
        return MIMEPart(headers: headers + ["MIME-Version: 1.0"] + part.headers, body: part.body).bytes
    }

    private static func read(_ source: (path: String, offset: Int, length: Int)) -> [UInt8]? {
        let fd = open(source.path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { return nil }
        defer { close(fd) }
        if source.length <= 0 { return try? readWholeFile(fd: fd) }
        var bytes = [UInt8](repeating: 0, count: source.length)
        let n = bytes.withUnsafeMutableBytes { pread(fd, $0.baseAddress, source.length, off_t(source.offset)) }
        return n == source.length ? bytes : nil
    }

    /// An mbox message without its From_ line, its ">From " lines unquoted (mboxrd).
    static func withoutMboxEnvelope(_ bytes: [UInt8]) -> [UInt8] {
        guard bytes.starts(with: Array("From ".utf8)), let firstLineEnd = bytes.firstIndex(of: 0x0A) else { return bytes }
        var out: [UInt8] = []
        out.reserveCapacity(bytes.count)
        var lineStart = firstLineEnd + 1
        while lineStart < bytes.count {
            let end = bytes[lineStart...].firstIndex(of: 0x0A).map { $0 + 1 } ?? bytes.count
            var line = bytes[lineStart..<end]
            let quotes = line.prefix { $0 == UInt8(ascii: ">") }.count
            if quotes > 0, line.dropFirst(quotes).starts(with: Array("From ".utf8)) { line = line.dropFirst() }
            out += line
            lineStart = end
        }
        return out
    }

    /// The forwarded message's header block and text, below a line as Gmail and Thunderbird
    /// write it.
    private func forwardedText(_ original: Original) -> String {
        var lines = ["---------- Forwarded message ---------"]
        if let from = original.from { lines.append("From: \(Self.display(from))") }
        lines.append("Date: \(original.header("date").first ?? original.date.map { dateText(CivilDate.epoch(rfc3339: $0) ?? 0) } ?? "")")
        lines.append("Subject: \(original.subject)")
        if !original.to.isEmpty { lines.append("To: \(original.to.map(Self.display).joined(separator: ", "))") }
        if !original.cc.isEmpty { lines.append("Cc: \(original.cc.map(Self.display).joined(separator: ", "))") }
        return lines.joined(separator: "\n") + "\n\n" + original.plainText
    }

    /// "On DATE, NAME wrote:" and the original's text, each line after "> ", below the new text.
    private func withQuote(_ text: String, of original: Original) -> String {
        let when = original.date.flatMap { CivilDate.epoch(rfc3339: $0) }.map(dateText) ?? "an unknown date"
        let who = original.from.map(Self.display) ?? "someone"
        var quoted = original.plainText.replacingCRLF.split(separator: "\n", omittingEmptySubsequences: false)
        if quoted.last == "" { quoted.removeLast() }
        let block = quoted.map { $0.isEmpty || $0.first == ">" ? ">" + $0 : "> " + $0 }.joined(separator: "\n")
        return (text.isEmpty ? "" : text + (text.hasSuffix("\n") ? "\n" : "\n\n")) + "On \(when), \(who) wrote:\n" + block + "\n"
    }

    static func display(_ m: Mailbox) -> String { m.name.isEmpty ? m.address : "\(m.name) <\(m.address)>" }

    // MARK: subjects

    /// "Re: " once before the subject without the reply prefixes it starts with, in any of the
    /// languages subject-prefixes.json knows (a forward's "Fwd:" stays: it is news).
    func replySubject(_ subject: String) -> String {
        var rest = Substring(subject)
        while let p = prefixes.prefix(of: rest), p.kind == .reply { rest = p.rest }
        let s = String(rest).trimmingSpaces
        return s.isEmpty ? "Re:" : "Re: " + s
    }

    /// "Fwd: " once before the subject without the forward prefixes it starts with.
    func forwardSubject(_ subject: String) -> String {
        var rest = Substring(subject)
        while let p = prefixes.prefix(of: rest), p.kind == .forward { rest = p.rest }
        let s = String(rest).trimmingSpaces
        return s.isEmpty ? "Fwd:" : "Fwd: " + s
    }

    // MARK: the message

    private var now: Int { fixedNow ?? Int(time(nil)) }

    private func sender(_ request: ComposeRequest, original: Original?) throws -> Mailbox {
        if let from = request.from { return from }
        guard let address = addressing.fromAddress(original) else {
            throw Failure("who is it from? give --me ADDR (or the request's from)")
        }
        return Mailbox(name: try displayName(of: address), address: address)
    }

    private var knownNames: [String: String] = [:]

    /// --name, else the name I last wrote beside this address (as a mail program's identity
    /// keeps it), else none.
    private func displayName(of address: String) throws -> String {
        if let name { return name }
        if let known = knownNames[address] { return known }
        let found = try originals?.ownName(address: address) ?? ""
        knownNames[address] = found
        return found
    }

    /// The header and body of the message.
    private func write(from: Mailbox, to r: Addressing.Recipients, subject: String, answering original: Original?, body: MIMEPart) throws -> Composed {
        let messageID = Self.newMessageID(domain: from.address.split(separator: "@").last.map(String.init))
        var headers = [HeaderWriting.addresses("From", [from])]
        if !r.to.isEmpty { headers.append(HeaderWriting.addresses("To", r.to)) }
        if !r.cc.isEmpty { headers.append(HeaderWriting.addresses("Cc", r.cc)) }
        if !r.bcc.isEmpty { headers.append(HeaderWriting.addresses("Bcc", r.bcc)) }
        headers.append(HeaderWriting.unstructured("Subject", subject))
        headers.append("Date: \(dateText(now))")
        headers.append("Message-ID: <\(messageID)>")
        if let original, let id = original.messageID, Self.isWritableID(id) {
            headers.append("In-Reply-To: <\(id)>")
            headers.append(HeaderWriting.messageIDs("References", Self.references(answering: original, id: id)))
        }
        headers.append("MIME-Version: 1.0")
        headers.append("User-Agent: mail-compose (mailpipe \(mailpipeVersion))")
        let message = MIMEPart(headers: headers + body.headers, body: body.body)
        return Composed(bytes: message.bytes, messageID: messageID, threadID: original?.threadID)
    }

    /// The original's References (or its one In-Reply-To when it has none, RFC 5322 section
    /// 3.6.4) then its Message-ID; when that passes 20 ids, the first and the 19 newest, as
    /// RFC 5537 section 3.4.4 shortens it.
    static func references(answering original: Original, id: String) -> [String] {
        var ids = original.references.filter(isWritableID)
        if ids.isEmpty, original.inReplyTo.count == 1 { ids = original.inReplyTo.filter(isWritableID) }
        ids.removeAll { $0 == id }
        ids.append(id)
        if ids.count > 20 { ids = [ids[0]] + ids.suffix(19) }
        return ids
    }

    /// An id that can stand between angle brackets in a header: visible ASCII but the brackets
    /// (a hostile original's id cannot add a line to the header).
    static func isWritableID(_ id: String) -> Bool {
        !id.isEmpty && id.utf8.count < 900 && id.utf8.allSatisfy { $0 > 0x20 && $0 < 0x7F && $0 != UInt8(ascii: "<") && $0 != UInt8(ascii: ">") }
    }

    /// A new Message-ID: the time and 64 random bits, at my domain.
    static func newMessageID(domain: String?) -> String {
        var g = SystemRandomNumberGenerator()
        let host = domain.flatMap { ComposeRequest.isAddress("x@" + $0) ? $0 : nil } ?? "localhost"
        return "\(String(Int(time(nil)), radix: 36)).\(String(g.next(), radix: 36))@\(host)"
    }

    private static let weekdays = ["Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat"]
    private static let months = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]

    /// An instant as RFC 5322 writes it, in the zone's wall clock with its offset.
    func dateText(_ epoch: Int) -> String {
        let t = ICalTime.local(epoch: epoch, zone: zone) ?? ICalTime.local(epoch: epoch, zone: "UTC")!
        let days = CivilDate.days(year: t.year, month: t.month, day: t.day)
        let offset = (days * 86400 + t.hour * 3600 + t.minute * 60 + t.second - epoch) / 60
        let sign = offset < 0 ? "-" : "+"
        func two(_ n: Int) -> String { n < 10 ? "0\(n)" : "\(n)" }
        return "\(Self.weekdays[((days % 7) + 11) % 7]), \(t.day) \(Self.months[t.month - 1]) \(t.year) \(two(t.hour)):\(two(t.minute)):\(two(t.second)) \(sign)\(two(abs(offset) / 60))\(two(abs(offset) % 60))"
    }
}
