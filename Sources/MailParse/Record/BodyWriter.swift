#if canImport(Glibc)
import Glibc
#endif
import Hashing
import JSONLines
import UnicodeServices
import UTF8Text

/// Decodes the parts a record shows: text and HTML bodies to UTF-8, attachments to their bytes
/// (for size, SHA-256 and saving). Collects the defects it meets.
struct BodyWriter {
    let message: ParsedMessage
    let charsets: CharsetDecoder
    let types: DetectedTypes
    var defects: [String]
    let limits: RecordLimits
    /// Bytes of text and HTML still to be kept of the record's forwarded messages together.
    var forwardedBytesLeft: Int

    init(message: ParsedMessage, charsets: CharsetDecoder, types: DetectedTypes, defects: [String], limits: RecordLimits = RecordLimits()) {
        self.message = message
        self.charsets = charsets
        self.types = types
        self.defects = defects
        self.limits = limits
        forwardedBytesLeft = limits.textBytes
    }

    /// The transfer-decoded bytes of a part.
    mutating func decodedBytes(_ part: MIMEPart) -> [UInt8] {
        part.decodedBody(defects: &defects)
    }

    /// A text part as UTF-8, through its charset. `defaultCharset` is the charset of a part
    /// that names none, when its format has one (iCalendar's is UTF-8, RFC 5545 §3.1.4). Only
    /// as much of the body is decoded as `limits.textBytes` needs; `readInPart` says when that
    /// was not all of it.
    mutating func decodedText(_ part: MIMEPart, defaultCharset: String? = nil) -> (utf8: [UInt8], readInPart: Bool) {
        let limit = limits.encodedTextBytes
        let readInPart = part.isCut(readingAtMost: limit)
        let bytes = part.decodedBody(defects: &defects, readingAtMost: limit)
        var label = part.contentType.parameters["charset"] ?? defaultCharset
        if label == nil, part.contentType.value == "text/html" { label = HTMLCharset.sniff(bytes) }
        let result = charsets.decode(bytes, label: label)
        switch result.problem {
        case .unknownCharset?: defects.append("unknown_charset")
        case .invalidBytes?:
            // a part read in part may end inside a character: only what is kept counts
            if !readInPart || Self.hasReplacementCharacter(result.utf8.prefix(limits.textBytes)) {
                defects.append("invalid_charset_bytes")
            }
        case .undeclared8Bit?: defects.append("undeclared_8bit")
        case .mislabelledUTF8?: defects.append("mislabelled_utf8")
        case nil: break
        }
        return (Self.normalizingLineEnds(result.utf8), readInPart)
    }

    /// The reaction an RFC 9078 reaction part holds (Reaction.read), nil when it holds none;
    /// a part too long to hold one is not decoded.
    mutating func reaction(_ part: MIMEPart) -> String? {
        guard !Reaction.isTooLong(part) else { return nil }
        return Reaction.read(decodedText(part, defaultCharset: "utf-8").utf8)
    }

    /// A calendar part as UTF-8, cut to `limits.textBytes`.
    mutating func calendarText(_ part: MIMEPart) -> [UInt8] {
        var (text, readInPart) = decodedText(part, defaultCharset: "utf-8")
        if cut(&text) || readInPart { defects.append("calendar_over_limit") }
        return text
    }

    /// Cuts `text` to `limits.textBytes` at a character's boundary; whether it was longer.
    func cut(_ text: inout [UInt8]) -> Bool {
        guard text.count > limits.textBytes else { return false }
        var end = limits.textBytes
        while end > 0 && text[end] & 0xC0 == 0x80 { end -= 1 }
        text.removeSubrange(end...)
        return true
    }

    static func hasReplacementCharacter(_ text: ArraySlice<UInt8>) -> Bool {
        text.withUnsafeBytes { Bytes.find([0xEF, 0xBF, 0xBD], in: $0, from: 0) != nil }
    }

    /// CRLF (and a lone CR) read as LF: clients and later stages see one kind of line end.
    static func normalizingLineEnds(_ text: [UInt8]) -> [UInt8] {
        text.withUnsafeBytes { b -> [UInt8] in
            guard let base = b.baseAddress, memchr(base, Int32(Bytes.cr), b.count) != nil else { return text }
            return [UInt8](unsafeUninitializedCapacity: b.count) { out, count in
                var o = 0
                var i = 0
                while i < b.count {
                    let cr = memchr(base + i, Int32(Bytes.cr), b.count - i).map { base.distance(to: UnsafeRawPointer($0)) } ?? b.count
                    (out.baseAddress! + o).update(from: (base + i).assumingMemoryBound(to: UInt8.self), count: cr - i)
                    o += cr - i
                    guard cr < b.count else { break }
                    out[o] = Bytes.lf
                    o += 1
                    i = cr + 1 < b.count && b[cr + 1] == Bytes.lf ? cr + 2 : cr + 1
                }
                count = o
            }
        }
    }

    /// Where one text part lies in the text body: UTF-8 byte offsets, `end` exclusive.
    struct TextSpan {
        var path: String
        var start: Int
        var end: Int
    }

    /// The text body: the text parts joined with a blank line between them (a paragraph break:
    /// each part is a block of its own), uuencoded files taken out of it; and where each part lies.
    mutating func text(_ parts: [MIMEPart]) -> (utf8: [UInt8]?, format: String, uuencoded: [UUEncode.File], spans: [TextSpan]) {
        guard !parts.isEmpty else { return (nil, "plain", [], []) }
        var out = [UInt8]()
        var files: [UUEncode.File] = []
        var spans: [TextSpan] = []
        var over = false
        for (k, part) in parts.enumerated() {
            var (text, readInPart) = decodedText(part)
            over = over || readInPart
            if text.withUnsafeBytes(UUEncode.mayHoldFiles) {
                let found = text.withUnsafeBytes { UUEncode.findAll($0) }
                for file in found.reversed() { text.removeSubrange(file.range) }
                files += found
            }
            if k == 0 {
                out = text  // the common case, one part: no copy
            } else if !text.isEmpty {
                Self.endParagraph(&out, before: text)
                out += text
            }
            spans.append(TextSpan(path: part.path, start: out.count - text.count, end: out.count))
            if out.count > limits.textBytes { break }
        }
        if cut(&out) || over { defects.append("text_over_limit") }
        spans = spans.filter { $0.start <= out.count }.map { TextSpan(path: $0.path, start: $0.start, end: min($0.end, out.count)) }
        let params = parts[0].contentType.parameters
        var format = "plain"
        if params["format"].map(ASCII.lowercased) == "flowed" {
            format = params["delsp"].map(ASCII.lowercased) == "yes" ? "flowed_delsp" : "flowed"
        }
        return (out, format, files, spans)
    }

    /// Ends non-empty text with a blank line, so that `next` is a paragraph of its own (one
    /// blank line: none is added when either side already has it).
    static func endParagraph(_ out: inout [UInt8], before next: [UInt8]) {
        guard !out.isEmpty else { return }
        if out.last != Bytes.lf { out.append(Bytes.lf) }
        if next.first != Bytes.lf, out.count < 2 || out[out.count - 2] != Bytes.lf { out.append(Bytes.lf) }
    }

    mutating func html(_ parts: [MIMEPart]) -> [UInt8]? {
        guard !parts.isEmpty else { return nil }
        var out = [UInt8]()
        var over = false
        for part in parts where out.count <= limits.textBytes {
            let (text, readInPart) = decodedText(part)
            out += text
            over = over || readInPart
        }
        if cut(&out) || over { defects.append("html_over_limit") }
        return out
    }

    mutating func writeAttachment(_ part: MIMEPart, saver: AttachmentKeeper?, _ w: inout JSONWriter, depth: Int = 0) {
        let content = attachmentContent(part, keeper: saver)
        w.beginObject()
        // a Gmail attachment held by reference has no bytes here
        let hasBytes = part.declaredSize == nil || content.size > 0
        w.field("filename", part.filename)
        w.field("content_type", part.contentType.value)
        w.field("detected_type", hasBytes ? types.type(of: content.head) : nil)
        w.field("size", part.declaredSize ?? content.size)
        w.field("content_id", part.contentID)
        w.field("disposition", part.disposition?.value)
        let sha256 = hasBytes ? content.sha256 : nil
        w.field("sha256", sha256)
        w.field("part", part.path)
        if let inner = part.embedded { writeSummary(inner, saver: saver, depth: depth + 1, &w) }
        if let saver {
            if let sha256, let data = content.whole {
                writeSaved(saver, name: part.filename, contentType: part.contentType.value, data: data, sha256: sha256, &w)
            } else {
                w.field("saved_as", nil)
            }
        }
        w.endObject()
    }

    /// What a record says of an attachment's decoded bytes, and the bytes when they may be kept.
    struct AttachmentContent {
        var size: Int
        var sha256: String
        /// At least the bytes libmagic looks at (DetectedTypes.bytesLooked).
        var head: [UInt8]
        /// All the bytes, unless they are more than the keeper keeps.
        var whole: [UInt8]?
    }

    /// Encoded bytes decoded at a time when a part is read in pieces.
    static let pieceSize = 1 << 20

    /// A part no larger than its keeper keeps is decoded whole; a larger one (an encoded body is
    /// never smaller than its content) a piece at a time, hashed as it goes, keeping its first
    /// bytes for libmagic and all of them only while they still fit the keeper's limit: a huge
    /// part costs at most that limit and a piece, not its size.
    mutating func attachmentContent(_ part: MIMEPart, keeper: AttachmentKeeper?) -> AttachmentContent {
        let keptAtMost = keeper == nil ? 0 : keeper!.largestKept
        guard let keptAtMost, part.decodedOverride == nil, part.body.count > max(keptAtMost, Self.pieceSize) else {
            let data = decodedBytes(part)
            return AttachmentContent(size: data.count, sha256: hexString(SHA256.hash(data)), head: data, whole: data)
        }
        let hash = SHA256()
        var size = 0
        var head: [UInt8] = []
        var whole: [UInt8]? = nil
        if keptAtMost > 0 {
            whole = []
            whole!.reserveCapacity(min(keptAtMost, part.body.count))  // no copies as it grows; pages are taken as they are written
        }
        part.decodeBody(inPiecesOf: Self.pieceSize, defects: &defects) { piece in
            hash.update(piece)
            size += piece.count
            if head.count < DetectedTypes.bytesLooked { head += piece.prefix(DetectedTypes.bytesLooked - head.count) }
            if whole != nil {
                if size <= keptAtMost { whole! += piece } else { whole = nil }
            }
        }
        return AttachmentContent(size: size, sha256: hexString(hash.finalize()), head: head, whole: whole)
    }

    mutating func writeUUEncoded(_ file: UUEncode.File, saver: AttachmentKeeper?, _ w: inout JSONWriter) {
        w.beginObject()
        w.field("filename", file.name.isEmpty ? nil : file.name)
        w.field("content_type", "application/octet-stream")
        w.field("detected_type", types.type(of: file.data))
        w.field("size", file.data.count)
        w.field("content_id", nil)
        w.field("disposition", "attachment")
        let sha256 = hexString(SHA256.hash(file.data))
        w.field("sha256", sha256)
        w.field("part", nil)
        if let saver { writeSaved(saver, name: file.name.isEmpty ? nil : file.name, contentType: "application/octet-stream", data: file.data, sha256: sha256, &w) }
        w.endObject()
    }

    private mutating func writeSaved(_ saver: AttachmentKeeper, name: String?, contentType: String, data: [UInt8], sha256: String, _ w: inout JSONWriter) {
        do {
            w.field("saved_as", try saver.keep(data, sha256: sha256, suggestedName: name, contentType: contentType))
        } catch {
            defects.append("attachment_not_saved")
            w.field("saved_as", nil)
        }
    }

    /// A forwarded message/rfc822: who sent it to whom, what it was about, its text and HTML
    /// (together with those of every other forwarded message of the record cut at
    /// `limits.textBytes`, `forwarded_over_limit`) and its attachments, the same objects as the
    /// record's. A message forwarded inside one is read the same way down to
    /// `limits.forwardedDepth`; deeper ones keep their headers' summary only.
    private mutating func writeSummary(_ m: ParsedMessage, saver: AttachmentKeeper?, depth: Int, _ w: inout JSONWriter) {
        let decoder = HeaderTextDecoder(charsets: charsets)
        var ignored: [String] = []
        w.key("message")
        w.beginObject()
        w.field("subject", m.headers.first("subject").map { decoder.decode($0.raw) })
        let from = m.headers.first("from").flatMap { AddressListParser.parse($0.raw, decoder: decoder, defects: &ignored).first }
        w.key("from")
        if let from { writeMailbox(from, &w) } else { w.null() }
        w.field("date", m.headers.first("date").flatMap { f in f.raw.withUnsafeBytes { MailDate.parse(bytes: $0) } }.map(MailDate.rfc3339))
        w.field("message_id", m.headers.first("message-id").flatMap { MessageIDs.first($0.raw) })
        w.key("to")
        w.beginArray()
        let to = m.headers.all("to").flatMap { AddressListParser.parse($0.raw, decoder: decoder, defects: &ignored) }
        for mailbox in to.prefix(limits.recipients) { writeMailbox(mailbox, &w) }
        w.endArray()
        guard depth <= limits.forwardedDepth else {
            w.field("text", nil)
            w.field("html", nil)
            w.key("attachments")
            w.beginArray()
            w.endArray()
            w.endObject()
            return
        }
        let selection = BodySelection(root: m.root)
        w.key("text")
        if let text = forwardedText(selection.text) { w.string(utf8: text) } else { w.null() }
        w.key("html")
        if let html = forwardedText(selection.html) { w.string(utf8: html) } else { w.null() }
        w.key("attachments")
        w.beginArray()
        for part in selection.attachments { writeAttachment(part, saver: saver, &w, depth: depth) }
        w.endArray()
        w.endObject()
    }

    /// The text (or HTML) of a forwarded message's parts, from what is left of the budget all
    /// forwarded messages of a record share.
    private mutating func forwardedText(_ parts: [MIMEPart]) -> [UInt8]? {
        guard !parts.isEmpty else { return nil }
        var out = [UInt8]()
        var over = false
        for part in parts {
            guard out.count < forwardedBytesLeft else {
                over = true
                break
            }
            let (text, readInPart) = decodedText(part)
            if !text.isEmpty { Self.endParagraph(&out, before: text) }
            out += text
            over = over || readInPart
        }
        if out.count > forwardedBytesLeft {
            var end = forwardedBytesLeft
            while end > 0 && out[end] & 0xC0 == 0x80 { end -= 1 }
            out.removeSubrange(end...)
            over = true
        }
        forwardedBytesLeft -= out.count
        if over { defects.append("forwarded_over_limit") }
        return out
    }

    private func writeMailbox(_ m: Mailbox, _ w: inout JSONWriter) {
        w.beginObject()
        w.field("name", m.name.isEmpty ? nil : m.name)
        w.field("address", m.address)
        w.endObject()
    }
}

/// The charset an HTML part declares in a `<meta>` when its Content-Type does not.
enum HTMLCharset {
    static func sniff(_ bytes: [UInt8]) -> String? {
        let head = Array(bytes.prefix(4096).map { Bytes.lower($0) })
        guard let at = head.withUnsafeBytes({ Bytes.find(Array("charset=".utf8), in: $0, from: 0) }) else { return nil }
        let text = String(decoding: head[(at + 8)...], as: UTF8.self)
        var name = ""
        for ch in text.drop(while: { $0 == "\"" || $0 == "'" || $0 == " " }) {
            if ch.isLetter || ch.isNumber || ch == "-" || ch == "_" || ch == ":" { name.append(ch) } else { break }
        }
        return name.isEmpty ? nil : name
    }
}
