import MailSubject
import UTF8Text

/// What a delivery report (RFC 3464), a read receipt (RFC 8098) or a bounce of the common
/// non-standard kinds says about a message sent earlier: the record's `report`.
struct Report: Equatable {
    struct Recipient: Equatable {
        var address: String
        var action: String?
        var status: String?
        var diagnostic: String?
    }

    /// `read`, `not_read`, `failed`, `delayed` or `delivered`.
    var type: String
    var originalMessageID: String?
    var recipients: [Recipient]
}

/// Finds the report in a parsed message, if it is one. The standard forms are read from their
/// fields; bounces that are plain text (Exim, qmail, sendmail, older Exchange and Gmail) and
/// Outlook's plain "Read:" receipts from their sender, subject and text.
struct ReportReader {
    let message: ParsedMessage
    let subject: String?
    let subjectPrefixes: SubjectPrefixes
    let from: Mailbox?
    /// The addresses the report was sent to: the original's sender, never a failed recipient.
    let to: [Mailbox]
    /// The text body as UTF-8, for reports that only say what happened in words; asked for
    /// only when the sender or subject looks like one.
    let text: () -> [UInt8]?

    func read(defects: inout [String]) -> Report? {
        if let container = Self.reportPart(message.root), var report = standard(container, defects: &defects) {
            if report.originalMessageID == nil { report.originalMessageID = originalFromAttachment() ?? originalFromThread() }
            return report
        }
        return guessed(defects: &defects)
    }

    // MARK: standard reports

    /// The first multipart/report in the tree, outside attached messages.
    private static func reportPart(_ part: MIMEPart) -> MIMEPart? {
        guard part.isMultipart else { return nil }
        if part.contentType.subtype == "report" { return part }
        for child in part.children {
            if let found = reportPart(child) { return found }
        }
        return nil
    }

    private func standard(_ container: MIMEPart, defects: inout [String]) -> Report? {
        var statusWithoutAction: (recipients: [Report.Recipient], originalID: String?)?
        for part in container.children {
            switch part.contentType.value {
            case "message/delivery-status", "message/global-delivery-status":
                // some servers label their text as a delivery-status part too: read them all
                let (recipients, originalID) = deliveryStatus(part, defects: &defects)
                let actions = recipients.compactMap(\.action)
                // one report, several recipients: it is as bad as its worst one
                if let type = ["failed", "delayed", "delivered", "relayed", "expanded"].first(where: actions.contains) {
                    return Report(type: type == "failed" || type == "delayed" ? type : "delivered", originalMessageID: originalID,
                                  recipients: recipients)
                }
                statusWithoutAction = statusWithoutAction ?? (recipients, originalID)
            case "message/disposition-notification", "message/global-disposition-notification":
                return dispositionNotification(part, defects: &defects)
            default:
                continue
            }
        }
        // fields without an action: what the subject or the text says, marked as guessed
        guard let (recipients, originalID) = statusWithoutAction, let guess = guessed(defects: &defects) else { return nil }
        return Report(type: guess.type, originalMessageID: originalID ?? guess.originalMessageID,
                      recipients: recipients.isEmpty ? guess.recipients : recipients)
    }

    /// RFC 3464: a block of per-message fields, then one block per recipient.
    private func deliveryStatus(_ part: MIMEPart, defects: inout [String]) -> (recipients: [Report.Recipient], originalID: String?) {
        var recipients: [Report.Recipient] = []
        var originalID: String?
        for block in Self.fieldBlocks(part.decodedBody(defects: &defects)) {
            // Gmail writes it with an X-
            let idField = block.first("original-message-id") ?? block.first("x-original-message-id")
            if let id = idField.flatMap({ MessageIDs.first($0.raw) }) { originalID = originalID ?? id }
            guard let address = Self.recipientAddress(block) else { continue }
            recipients.append(Report.Recipient(
                address: address,
                action: block.first("action").flatMap { Self.firstWord($0.raw) },
                status: block.first("status").flatMap { Self.firstWord($0.raw) },
                diagnostic: block.first("diagnostic-code").map { Self.afterType($0.raw).collapsingWhitespace }.flatMap { $0.isEmpty ? nil : $0 }))
        }
        return (recipients, originalID)
    }

    /// RFC 8098: `Disposition: manual-action/MDN-sent-manually; displayed`.
    private func dispositionNotification(_ part: MIMEPart, defects: inout [String]) -> Report? {
        guard let block = Self.fieldBlocks(part.decodedBody(defects: &defects)).first else { return nil }
        let disposition = block.first("disposition").map { Self.afterType($0.raw) }
            .flatMap { Self.firstWord(Array($0.utf8), stoppingAt: UInt8(ascii: "/")) }
        let address = Self.recipientAddress(block) ?? from?.address
        return Report(type: disposition == "displayed" ? "read" : "not_read",
                      originalMessageID: block.first("original-message-id").flatMap { MessageIDs.first($0.raw) },
                      recipients: address.map { [Report.Recipient(address: $0, action: disposition)] } ?? [])
    }

    /// The header-like blocks of a report body, separated by blank lines, read with the
    /// message header parser.
    private static func fieldBlocks(_ body: [UInt8]) -> [HeaderBlock] {
        var blocks: [HeaderBlock] = []
        body.withUnsafeBytes { b in
            var i = 0
            while i < b.count {
                let (contentEnd, next) = Bytes.lineEnd(b, from: i, to: b.count)
                if Bytes.trim(b, i..<contentEnd).isEmpty {
                    i = next
                    continue
                }
                let block = HeaderBlock(b, from: i, to: b.count)
                if !block.fields.isEmpty { blocks.append(block) }
                // a line that is not a field ends a block without being read: step over it
                i = block.bodyStart > i ? block.bodyStart : next
            }
        }
        return blocks
    }

    /// Original-Recipient (the address as the sender wrote it) when it is an RFC 822 one,
    /// else Final-Recipient.
    private static func recipientAddress(_ block: HeaderBlock) -> String? {
        for name in ["original-recipient", "final-recipient"] {
            guard let field = block.first(name) else { continue }
            let raw = field.raw
            if let semicolon = raw.firstIndex(of: UInt8(ascii: ";")) {
                let type = ASCII.lowercased(raw[..<semicolon]).filter { !Bytes.isWhitespace($0) }
                if type != Array("rfc822".utf8), name == "original-recipient" { continue }
            }
            let address = afterType(raw).trimmingCharacters(from: "<> \t")
            if address.contains("@") { return address }
        }
        return nil
    }

    /// A typed value's text after `type;` (`rfc822; a@x`, `smtp; 550 …`), trimmed.
    private static func afterType(_ raw: [UInt8]) -> String {
        let value = raw.firstIndex(of: UInt8(ascii: ";")).map { raw[($0 + 1)...] } ?? raw[...]
        return String(decoding: value, as: UTF8.self).trimmingCharacters(from: " \t")
    }

    /// The first word, lowercased (`failed`, `5.1.1` of `5.1.1 (bad mailbox)`).
    private static func firstWord(_ raw: [UInt8], stoppingAt stop: UInt8 = UInt8(ascii: " ")) -> String? {
        let word = raw.drop(while: Bytes.isWhitespace).prefix { !Bytes.isWhitespace($0) && $0 != stop && $0 != UInt8(ascii: "(") }
        return word.isEmpty ? nil : String(decoding: ASCII.lowercased(word), as: UTF8.self)
    }

    // MARK: the original message

    /// The Message-ID of the attached original (message/rfc822) or of its headers
    /// (text/rfc822-headers).
    private func originalFromAttachment() -> String? {
        var defects: [String] = []
        func search(_ part: MIMEPart) -> String? {
            if let embedded = part.embedded { return embedded.headers.first("message-id").flatMap { MessageIDs.first($0.raw) } }
            if part.contentType.value == "text/rfc822-headers" || part.contentType.value == "message/rfc822-headers"
                || part.contentType.value == "message/global-headers"
            {
                let headers = part.decodedBody(defects: &defects)
                return headers.withUnsafeBytes { HeaderBlock($0, from: 0, to: $0.count) }.first("message-id").flatMap { MessageIDs.first($0.raw) }
            }
            for child in part.children {
                if let id = search(child) { return id }
            }
            return nil
        }
        return search(message.root)
    }

    /// In-Reply-To, else the last of References: the bounce or receipt as a reply.
    private func originalFromThread() -> String? {
        if let id = message.headers.first("in-reply-to").flatMap({ MessageIDs.all($0.raw).first }) { return id }
        return message.headers.all("references").flatMap { MessageIDs.all($0.raw) }.last
    }

    private var hasAttachedOriginal: Bool {
        func search(_ part: MIMEPart) -> Bool {
            if part.embedded != nil || part.contentType.value == "text/rfc822-headers" { return true }
            return part.children.contains(where: search)
        }
        return search(message.root)
    }

    // MARK: reports guessed from their words

    private func guessed(defects: inout [String]) -> Report? {
        let subject = ASCII.lowercased(Array((subject ?? "").utf8))
        let fromDaemon = from.map(Self.isDeliverySystem) ?? false
        let subjectType = Self.bounceType(subject: subject)
        let receiptSubject = subject.starts(with: Array("read:".utf8)) || subject.starts(with: Array("not read:".utf8))
        // most mail stops here, before its text is looked at
        guard fromDaemon || subjectType != nil || receiptSubject else { return nil }
        let text = text() ?? []
        let lowerText = ASCII.lowercased(text)
        if receiptSubject, let receipt = plainReceipt(subject: subject, text: lowerText) {
            defects.append("guessed_report")
            return receipt
        }
        let explanationEnd = Self.quotedOriginalStart(lowerText)
        let explanation = Array(lowerText[..<explanationEnd])
        let textSaysBounce = Self.bouncePhrases.contains { ByteSearch.contains(explanation, $0) }
        // what only a mail system writes: a parcel "could not be delivered" has none of it
        let mailSystemTrace = hasAttachedOriginal || explanationEnd < lowerText.count || Self.enhancedStatus(in: explanation) != nil
        let type = subjectType ?? (Self.delayPhrases.contains { ByteSearch.contains(explanation, $0) } ? "delayed" : "failed")
        let recipients = recipientsInWords(Array(text[..<explanationEnd]), action: type)
        let isBounce: Bool
        if fromDaemon {
            // the postmaster also writes about quotas and spam: a bounce names whom it failed
            isBounce = subjectType != nil || (textSaysBounce && (!recipients.isEmpty || hasAttachedOriginal))
        } else {
            isBounce = subjectType != nil && !subjectPrefixes.isReplyOrForward(self.subject ?? "") && mailSystemTrace
                && (textSaysBounce || hasAttachedOriginal)
        }
        guard isBounce else { return nil }
        defects.append("guessed_report")
        let original = originalFromAttachment() ?? Self.quotedMessageID(text, lowerText) ?? originalFromThread()
        return Report(type: type, originalMessageID: original,
                      recipients: recipients)
    }

    /// Outlook's and Exchange's receipts of old: "Read: …" / "Not read: …" with a sentence
    /// saying the message was read or deleted, and no report fields.
    private func plainReceipt(subject: [UInt8], text: [UInt8]) -> Report? {
        // the receipt's own sentence, "Your message … was read on …", not a subject that starts with a verb
        guard ByteSearch.contains(text, Array("your message".utf8)) else { return nil }
        let read = subject.starts(with: Array("read:".utf8)) && ByteSearch.contains(text, Array("was read on".utf8))
        let notRead = subject.starts(with: Array("not read:".utf8))
            && (ByteSearch.contains(text, Array("without being read".utf8)) || ByteSearch.contains(text, Array("was not read".utf8)))
        guard read || notRead else { return nil }
        return Report(type: read ? "read" : "not_read",
                      originalMessageID: originalFromAttachment() ?? originalFromThread(),
                      recipients: from.map { [Report.Recipient(address: $0.address, action: read ? "displayed" : "deleted")] } ?? [])
    }

    /// MAILER-DAEMON, postmaster, "Mail Delivery System/Subsystem", Exchange's "System Administrator".
    private static func isDeliverySystem(_ m: Mailbox) -> Bool {
        let local = ASCII.lowercased(m.address.split(separator: "@").first.map(String.init) ?? "")
        if ["mailer-daemon", "mailerdaemon", "mail-daemon", "maildaemon", "postmaster"].contains(local) { return true }
        let name = ASCII.lowercased(m.name)
        return name.hasPrefix("mail delivery") || name == "system administrator" || name == "mail administrator"
    }

    /// What a bounce's subject says: checked in this order, as "Undelivered" contains
    /// "delivered" and sendmail's delay warning says it "could not send".
    private static func bounceType(subject: [UInt8]) -> String? {
        let delivered = ["delivered:", "relayed:", "delivery status notification (success)", "successful mail delivery report"]
        let delayed = ["delivery status notification (delay)", "delayed mail", "delivery delayed", "mail delivery delayed",
                       "warning: could not send message", "warning: message", "delayed:", "delivery is delayed"]
        let failed = ["undelivered mail", "mail delivery failed", "delivery status notification (failure)", "undeliverable",
                      "returned mail", "failure notice", "delivery failure", "delivery failed", "non-delivery", "nondeliverable",
                      "not delivered", "could not send message", "unzustellbar", "non remis", "no se puede entregar",
                      "message not delivered", "delivery notification: delivery has failed", "mail system error"]
        func matches(_ phrases: [String], prefixOnly: Bool = false) -> Bool {
            phrases.contains { p in
                prefixOnly ? subject.starts(with: Array(p.utf8)) : ByteSearch.contains(subject, Array(p.utf8))
            }
        }
        if matches(Array(delivered.prefix(2)), prefixOnly: true) || matches(Array(delivered.dropFirst(2))) { return "delivered" }
        if matches(delayed) { return "delayed" }
        if matches(failed) { return "failed" }
        return nil
    }

    private static let bouncePhrases: [[UInt8]] = [
        "created automatically by mail delivery software", "could not be delivered", "couldn't be delivered",
        "wasn't delivered", "was not delivered", "delivery has failed", "did not reach", "delivery to the following recipient",
        "failed permanently", "permanent error", "address(es) failed", "undeliverable", "unable to deliver",
        "not yet been delivered", "delivery temporarily suspended", "will retry", "could not be reached", "cannot be reached",
        "user unknown", "no such user", "mailbox unavailable", "recipient address rejected",
    ].map { Array($0.utf8) }

    private static let delayPhrases: [[UInt8]] = [
        "not yet been delivered", "delivery temporarily suspended", "will retry", "still trying", "is delayed", "delayed",
    ].map { Array($0.utf8) }

    /// Where the quoted original starts in a bounce's text (its end when it quotes none):
    /// "------ This is a copy of the message, including all the headers. ------" (Exim),
    /// "--- Below this line is a copy of the message." (qmail), "----- Original message -----"
    /// (Gmail, sendmail), "Original message headers:" (Exchange); without such a line, the
    /// original's first Received or Return-Path header.
    private static func quotedOriginalStart(_ lower: [UInt8]) -> Int {
        let markers = ["copy of the message", "original message", "original message headers:", "header of the original message",
                       "message headers follow", "undelivered message"]
        var best = lower.count
        lower.withUnsafeBytes { b in
            var i = 0
            while i < b.count {
                let (contentEnd, next) = Bytes.lineEnd(b, from: i, to: b.count)
                let line = Array(b[Bytes.trim(b, i..<contentEnd)])
                let framed = line.starts(with: Array("---".utf8)) || line.starts(with: Array("===".utf8))
                if framed || line == Array("original message headers:".utf8),
                   markers.contains(where: { ByteSearch.contains(line, Array($0.utf8)) })
                {
                    best = i
                    return
                }
                if Bytes.hasPrefix(b, at: i, Array("received: ".utf8)) || Bytes.hasPrefix(b, at: i, Array("return-path:".utf8)) {
                    best = i
                    return
                }
                i = next
            }
        }
        return best
    }

    /// A Message-ID header quoted in the text (a bounce that copies the original's headers).
    private static func quotedMessageID(_ text: [UInt8], _ lower: [UInt8]) -> String? {
        var from = quotedOriginalStart(lower)
        if from == lower.count { from = 0 }
        let name = Array("message-id:".utf8)
        var i = from
        while let hit = ByteSearch.firstIndex(of: name, in: lower, from: i) {
            i = hit + name.count
            guard hit == 0 || lower[hit - 1] == Bytes.lf || lower[hit - 1] == Bytes.space else { continue }
            // the value, on this line or, folded, on the next
            var end = text[i...].firstIndex(of: Bytes.lf) ?? text.count
            if text[i..<end].allSatisfy(Bytes.isWhitespace), end < text.count {
                end = text[(end + 1)...].firstIndex(of: Bytes.lf) ?? text.count
            }
            if let id = MessageIDs.all(Array(text[i..<end])).first { return id }
        }
        return nil
    }

    /// The failed (or delayed) addresses a bounce names in its words, each with the first
    /// enhanced status code (5.1.1) and SMTP reply line (550 …) that follow it.
    private func recipientsInWords(_ explanation: [UInt8], action: String) -> [Report.Recipient] {
        let own = Set(([from] + to.map(Optional.some)).compactMap { $0.map { ASCII.lowercased($0.address) } })
        var found: [(address: String, at: Int)] = []
        for (address, at) in Self.addresses(in: explanation) {
            let lower = ASCII.lowercased(address)
            let local = lower.split(separator: "@").first.map(String.init) ?? ""
            if own.contains(lower) || ["mailer-daemon", "postmaster", "mail-daemon", "mailerdaemon"].contains(local) { continue }
            if found.contains(where: { ASCII.lowercased($0.address) == lower }) { continue }
            found.append((address, at))
        }
        return found.enumerated().map { k, hit in
            let end = k + 1 < found.count ? found[k + 1].at : explanation.count
            let span = Array(explanation[hit.at..<end])
            return Report.Recipient(address: hit.address, action: action, status: Self.enhancedStatus(in: span),
                                    diagnostic: Self.smtpReplyLine(in: span) ?? Self.lineAfterAddress(in: span))
        }
    }

    /// Every word with an `@` and a dotted domain, where it starts.
    static func addresses(in text: [UInt8]) -> [(String, Int)] {
        func isLocal(_ c: UInt8) -> Bool {
            ASCII.isDigit(c) || (c | 0x20) &- 0x61 < 26 || c == UInt8(ascii: ".") || c == UInt8(ascii: "_") || c == UInt8(ascii: "-")
                || c == UInt8(ascii: "+") || c == UInt8(ascii: "=") || c == UInt8(ascii: "%")
        }
        func isDomain(_ c: UInt8) -> Bool { ASCII.isDigit(c) || (c | 0x20) &- 0x61 < 26 || c == UInt8(ascii: ".") || c == UInt8(ascii: "-") }
        var result: [(String, Int)] = []
        var i = 0
        while let at = text[i...].firstIndex(of: UInt8(ascii: "@")) {
            var lo = at
            while lo > 0, isLocal(text[lo - 1]) { lo -= 1 }
            var hi = at + 1
            while hi < text.count, isDomain(text[hi]) { hi += 1 }
            while lo < at, text[lo] == UInt8(ascii: ".") { lo += 1 }
            while hi > at + 1, text[hi - 1] == UInt8(ascii: ".") || text[hi - 1] == UInt8(ascii: "-") { hi -= 1 }
            if lo < at, text[(at + 1)..<hi].contains(UInt8(ascii: ".")) {
                result.append((String(decoding: text[lo..<hi], as: UTF8.self), lo))
            }
            i = max(hi, at + 1)
            if i >= text.count { break }
        }
        return result
    }

    /// The first `d.d.d` status code with a class of 2, 4 or 5 standing as its own word.
    static func enhancedStatus(in span: [UInt8]) -> String? {
        var i = 0
        while i + 5 <= span.count {
            let c = span[i]
            if c == UInt8(ascii: "2") || c == UInt8(ascii: "4") || c == UInt8(ascii: "5"), span[i + 1] == UInt8(ascii: "."),
               i == 0 || !(ASCII.isDigit(span[i - 1]) || span[i - 1] == UInt8(ascii: "."))
            {
                var j = i + 2
                var dots = 1
                var digitsSinceDot = 0
                while j < span.count, ASCII.isDigit(span[j]) || (span[j] == UInt8(ascii: ".") && digitsSinceDot > 0 && dots < 2) {
                    if span[j] == UInt8(ascii: ".") { dots += 1; digitsSinceDot = 0 } else { digitsSinceDot += 1 }
                    j += 1
                }
                let endsWord = j == span.count || !(ASCII.isDigit(span[j]) || (span[j] | 0x20) &- 0x61 < 26)
                if dots == 2, digitsSinceDot > 0, digitsSinceDot <= 3, endsWord {
                    return String(decoding: span[i..<j], as: UTF8.self)
                }
            }
            i += 1
        }
        return nil
    }

    /// The first line with words after the address's own line: what older bounces say
    /// instead of an SMTP reply ("The e-mail account does not exist…").
    static func lineAfterAddress(in span: [UInt8]) -> String? {
        span.split(separator: Bytes.lf).dropFirst().lazy
            .map { String(decoding: $0, as: UTF8.self).collapsingWhitespace }
            .first { $0.contains { $0.isLetter } }
    }

    /// The first line that holds an SMTP reply code (4xx or 5xx as a word), trimmed.
    static func smtpReplyLine(in span: [UInt8]) -> String? {
        for line in span.split(separator: Bytes.lf) {
            var k = line.startIndex
            while k + 3 <= line.endIndex {
                let c = line[k]
                let startsWord = k == line.startIndex || !(ASCII.isDigit(line[k - 1]) || line[k - 1] == UInt8(ascii: "."))
                if startsWord, c == UInt8(ascii: "4") || c == UInt8(ascii: "5"), ASCII.isDigit(line[k + 1]), ASCII.isDigit(line[k + 2]),
                   k + 3 == line.endIndex || line[k + 3] == Bytes.space || line[k + 3] == UInt8(ascii: "-")
                {
                    let trimmed = String(decoding: line, as: UTF8.self).trimmingCharacters(from: " \t\r#")
                    return trimmed.isEmpty ? nil : trimmed
                }
                k += 1
            }
        }
        return nil
    }

    /// HTML as lines of text, enough to read a bounce's words: tags out (block tags as line
    /// breaks), the entities that bounces use in addresses decoded.
    static func roughText(html: [UInt8]) -> [UInt8] {
        let blockTags = ["br", "p", "div", "tr", "li", "table", "h1", "h2", "h3", "pre", "/p", "/div", "/tr", "/li", "/table"]
        var out: [UInt8] = []
        out.reserveCapacity(html.count)
        var i = 0
        while i < html.count {
            let c = html[i]
            if c == UInt8(ascii: "<"), let close = html[i...].firstIndex(of: UInt8(ascii: ">")) {
                let name = ASCII.lowercased(html[(i + 1)..<close].prefix { !Bytes.isWhitespace($0) && $0 != UInt8(ascii: ">") })
                if blockTags.contains(where: { Array($0.utf8) == name || Array($0.utf8) + [UInt8(ascii: "/")] == name }) { out.append(Bytes.lf) }
                i = close + 1
                continue
            }
            if c == UInt8(ascii: "&") {
                let entities: [(String, UInt8)] = [("&lt;", UInt8(ascii: "<")), ("&gt;", UInt8(ascii: ">")), ("&amp;", UInt8(ascii: "&")),
                                                   ("&nbsp;", Bytes.space), ("&#64;", UInt8(ascii: "@")), ("&quot;", UInt8(ascii: "\""))]
                if let (entity, byte) = entities.first(where: { html[i...].starts(with: Array($0.0.utf8)) }) {
                    out.append(byte)
                    i += entity.utf8.count
                    continue
                }
            }
            out.append(c)
            i += 1
        }
        return out
    }
}
