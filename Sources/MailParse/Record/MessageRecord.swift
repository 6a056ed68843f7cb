import UTF8Text
import Hashing
import JSONLines
import MailSubject
import UnicodeServices

/// Turns raw messages into message records (the JSON contract of mailpipe(5)).
/// One converter per thread: it caches charset converters.
public final class MessageConverter {
    let charsets = CharsetDecoder()
    let detectedTypes = DetectedTypes()
    let decoder: HeaderTextDecoder
    var parser: MIMEParser
    public var attachmentSaver: AttachmentKeeper?
    public var limits = RecordLimits() {
        didSet { parser.maxHeaderFields = limits.headerFields }
    }
    /// What marks a reply's or a forward's subject: such mail is not guessed to be a bounce.
    public var subjectPrefixes = SubjectPrefixes.builtIn

    /// Why attachments' `detected_type` is null: libmagic's database could not be loaded (nil
    /// until an attachment needed it, and when it loaded).
    public var fileTypeError: String? { detectedTypes.loadError }

    public init() {
        decoder = HeaderTextDecoder(charsets: charsets)
        parser = MIMEParser(decoder: decoder)
        parser.maxHeaderFields = limits.headerFields
    }

    /// The JSON record for one message, and the defects found in it.
    public func record(for raw: RawMessage) -> (json: [UInt8], defects: [String]) {
        let message = raw.payload.map { PayloadTree.build($0, decoder: decoder) } ?? parser.parse(raw.bytes)
        var defects = message.defects
        var w = JSONWriter(capacity: raw.bytes.count + 1024)
        let h = message.headers

        func text(_ name: String) -> String? {
            h.first(name).map { decoder.decode($0.raw, defects: &defects) }
        }
        func addresses(_ name: String) -> [Mailbox] {
            h.all(name).flatMap { AddressListParser.parse($0.raw, decoder: decoder, defects: &defects) }
        }

        let messageID = h.first("message-id").flatMap { MessageIDs.first($0.raw) }
        let id = messageID ?? "sha256:" + hexString(raw.bytes.withUnsafeBytes { SHA256.hash($0) })

        w.beginObject()
        w.field("id", id)
        w.field("message_id", messageID)
        w.field("in_reply_to", strings: h.first("in-reply-to").map { MessageIDs.all($0.raw) } ?? [])
        w.field("references", strings: h.all("references").flatMap { MessageIDs.all($0.raw) })

        var headerDate: Int?
        if let field = h.first("date") {
            headerDate = field.raw.withUnsafeBytes { MailDate.parse(bytes: $0) }
            if headerDate == nil { defects.append("invalid_date") }
        } else {
            defects.append("missing_date")
        }
        let date = Self.date(header: headerDate, raw: raw, headers: h, defects: &defects)
        w.field("date", date.map { MailDate.rfc3339($0.epoch) })
        w.field("date_source", date?.source)

        let from = addresses("from").first
        w.key("from")
        writeMailbox(from, &w)
        w.key("sender")
        writeMailbox(addresses("sender").first, &w)
        var to: [Mailbox] = []
        var recipientsLeft = limits.recipients
        for (key, header) in [("reply_to", "reply-to"), ("to", "to"), ("cc", "cc"), ("bcc", "bcc")] {
            w.key(key)
            w.beginArray()
            var list = addresses(header)
            if header != "reply-to" {
                if list.count > recipientsLeft {
                    list.removeSubrange(recipientsLeft...)
                    defects.append("too_many_recipients")
                }
                recipientsLeft -= list.count
            }
            if header == "to" { to = list }
            for m in list { writeMailbox(m, &w) }
            w.endArray()
        }
        let subject = text("subject")
        w.field("subject", subject)

        var labels = raw.labelIDs ?? h.first("x-gmail-labels").map { GmailLabels.fromHeader(decoder.decode($0.raw)) } ?? []
        for l in raw.flagLabels where !labels.contains(l) { labels.append(l) }
        w.field("labels", strings: labels)
        w.field("is_draft", labels.contains("DRAFT") || raw.isInDraftsFolder || h.first("x-mozilla-draft-info") != nil)
        w.field("thread_id", raw.threadID ?? h.first("x-gm-thrid").map { String(decoding: $0.raw, as: UTF8.self) })
        w.field("gmail_id", raw.gmailID)

        var selection = BodySelection(root: message.root)
        var bodies = BodyWriter(message: message, charsets: charsets, types: detectedTypes, defects: defects, limits: limits)
        let reaction = selection.reaction.flatMap { bodies.reaction($0) }
        if let part = selection.reaction, reaction == nil || (selection.text.isEmpty && selection.html.isEmpty) {
            selection.text.append(part)  // no reaction, or all the message says: its text too
        }
        let (plain, format, uuencoded, spans) = bodies.text(selection.text)
        w.key("text")
        if let plain { w.string(utf8: plain) } else { w.null() }
        w.field("text_format", plain == nil ? nil : format)
        w.key("text_parts")
        w.beginArray()
        for span in spans {
            w.beginObject()
            w.field("part", span.path)
            w.field("start", span.start)
            w.field("end", span.end)
            w.field("appended", selection.appended.contains(span.path))
            w.endObject()
        }
        w.endArray()
        let html = bodies.html(selection.html)
        w.key("html")
        if let html { w.string(utf8: html) } else { w.null() }
        w.field("reaction", reaction)

        w.key("attachments")
        w.beginArray()
        for part in selection.attachments { bodies.writeAttachment(part, saver: attachmentSaver, &w) }
        for file in uuencoded { bodies.writeUUEncoded(file, saver: attachmentSaver, &w) }
        w.endArray()

        w.key("calendar")
        w.beginArray()
        for part in selection.calendar { w.string(utf8: bodies.calendarText(part)) }
        w.endArray()
        w.key("calendar_methods")
        w.beginArray()
        for part in selection.calendar {
            if let method = part.contentType.parameters["method"] { w.string(method.uppercased()) } else { w.null() }
        }
        w.endArray()
        defects = bodies.defects

        let reader = ReportReader(message: message, subject: subject, subjectPrefixes: subjectPrefixes, from: from, to: to,
                                  text: { plain ?? html.map(ReportReader.roughText) })
        w.key("report")
        writeReport(reader.read(defects: &defects), &w)

        w.key("headers")
        writeHeaders(h, &w, defects: &defects)

        var seen = Set<String>()
        defects = defects.filter { seen.insert($0).inserted }
        w.field("defects", strings: defects)
        w.key("source")
        writeSource(raw.source, &w)
        w.endObject()
        return (w.bytes, defects)
    }

    /// The date 1980 starts: a Date before it cannot be right (clients with a clock at zero
    /// write 1970).
    static let earliestPlausibleDate = 315_532_800

    /// When the message arrived, as its mailbox says (mbox From_ line, Gmail's internalDate),
    /// else as its newest Received header says; nil when none of them is plausible.
    static func deliveryDate(raw: RawMessage, headers h: HeaderBlock) -> (epoch: Int, source: String)? {
        // git format-patch writes this date into every From_ line: it says nothing
        let formatPatchDate = 1_000_684_800
        if let e = envelopeDate(raw), e.epoch >= earliestPlausibleDate, e.epoch != formatPatchDate { return e }
        guard let received = h.first("received"), let semicolon = received.raw.lastIndex(of: UInt8(ascii: ";")),
              let epoch = received.raw[(semicolon + 1)...].withUnsafeBytes({ MailDate.parse(bytes: $0) }),
              epoch >= earliestPlausibleDate else { return nil }
        return (epoch, "received")
    }

    /// The record's date and where it came from: the Date header unless it is missing,
    /// unreadable, before 1980 or more than a day after delivery; then the delivery date.
    static func date(header: Int?, raw: RawMessage, headers h: HeaderBlock, defects: inout [String]) -> (epoch: Int, source: String)? {
        let delivery = deliveryDate(raw: raw, headers: h)
        if let header {
            if header >= earliestPlausibleDate, header <= (delivery?.epoch ?? header) + 86_400 { return (header, "date") }
            defects.append("impossible_date")
        }
        if let delivery { return delivery }
        if let header { return (header, "date") }  // wrong, but nothing says better
        return envelopeDate(raw)
    }

    /// The date the mailbox gives the message: Gmail's internalDate, or the mbox From_ line's.
    static func envelopeDate(_ raw: RawMessage) -> (epoch: Int, source: String)? {
        raw.envelopeDate.map { ($0, raw.source.format == "gmail-api" ? "internal_date" : "mbox") }
    }

    private func writeReport(_ report: Report?, _ w: inout JSONWriter) {
        guard let report else {
            w.null()
            return
        }
        w.beginObject()
        w.field("type", report.type)
        w.field("original_message_id", report.originalMessageID)
        w.key("recipients")
        w.beginArray()
        for r in report.recipients {
            w.beginObject()
            w.field("address", r.address)
            w.field("action", r.action)
            w.field("status", r.status)
            w.field("diagnostic", r.diagnostic)
            w.endObject()
        }
        w.endArray()
        w.endObject()
    }

    private func writeMailbox(_ m: Mailbox?, _ w: inout JSONWriter) {
        guard let m else {
            w.null()
            return
        }
        w.beginObject()
        w.field("name", m.name.isEmpty ? nil : m.name)
        w.field("address", m.address)
        w.endObject()
    }

    /// Every header, by lowercase name, values decoded, in the order names first appear.
    /// Most values are plain ASCII with no encoded word: those are written as they are.
    private func writeHeaders(_ h: HeaderBlock, _ w: inout JSONWriter, defects: inout [String]) {
        let fields = h.fields
        // the fields in the order of their name's hash, then their own: each name's lie
        // together, found by a binary search (a scan of the rest per name was quadratic in
        // the names, and a dictionary of names costs every message more than this)
        let byHash = fields.indices.sorted { (fields[$0].nameHash, $0) < (fields[$1].nameHash, $1) }
        var written = [Bool](repeating: false, count: fields.count)
        w.beginObject()
        for k in fields.indices where !written[k] {
            let name = fields[k].lowercasedName
            let hash = fields[k].nameHash
            var low = 0, high = byHash.count
            while low < high {
                let mid = (low + high) / 2
                if (fields[byHash[mid]].nameHash, byHash[mid]) < (hash, k) { low = mid + 1 } else { high = mid }
            }
            w.key(name)
            w.beginArray()
            for j in byHash[low...].prefix(while: { fields[$0].nameHash == hash }) where !written[j] && (j == k || fields[j].lowercasedName == name) {
                written[j] = true
                let raw = fields[j].raw
                if raw.withUnsafeBytes(Self.isPlainText) {
                    w.string(utf8: raw)
                } else {
                    w.string(decoder.decode(raw, defects: &defects))
                }
            }
            w.endArray()
        }
        w.endObject()
    }

    /// ASCII without an encoded word: needs no decoding.
    private static func isPlainText(_ b: UnsafeRawBufferPointer) -> Bool {
        guard UTF8Bytes.isASCII(b) else { return false }
        var i = 0
        while let q = Bytes.find(byte: UInt8(ascii: "?"), in: b, from: i) {
            if q > 0 && b[q - 1] == UInt8(ascii: "=") { return false }
            i = q + 1
        }
        return true
    }

    private func writeSource(_ s: MessageSource, _ w: inout JSONWriter) {
        w.beginObject()
        w.field("path", s.path)
        w.field("offset", s.offset)
        w.field("length", s.length)
        w.field("format", s.format)
        if let line = s.line { w.field("line", line) }
        if let flags = s.flags { w.field("flags", flags) }
        w.endObject()
    }
}
