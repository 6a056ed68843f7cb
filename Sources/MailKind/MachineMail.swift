import UTF8Text

/// What automated mail is (`automated_kind`, mailpipe(5)).
public enum AutomatedKind: String, Sendable {
    case bounce, autoReply = "auto_reply", readReceipt = "read_receipt", tlsReport = "tls_report", dmarcReport = "dmarc_report"
}

/// What a service did for a person (`service_action`).
public enum ServiceAction: String, Sendable {
    case share, comment, mention, calendarReply = "calendar_reply", accessRequest = "access_request"
}

/// The person a service acted for (`acted_by`): their name, and their address when the mail
/// gives it (never the service's own).
public struct ActedBy: Equatable, Sendable {
    public var name: String
    public var address: String?
}

extension Classifier {
    private static let tlsrpt = Array("tlsrpt".utf8)

    /// A report of the mail system other than a bounce or a receipt: an SMTP TLS report (RFC
    /// 8460) or a DMARC aggregate report, with the reason that says so.
    func systemReport(_ m: MessageFacts, lowerSubject subject: [UInt8], conversational: Bool) -> (kind: AutomatedKind, reason: String)? {
        if let h = rules.tlsReportHeaders.first(where: m.has) { return (.tlsReport, "tls_report_header:" + h) }
        if let contentType = m.header("content-type"), rules.tlsReportContentTypes.occurs(in: ASCII.lowercased(Array(contentType.utf8))) {
            return (.tlsReport, "tls_report_content_type")
        }
        let reportSubject = !conversational && rules.reportSubjects.occurs(in: subject)
        let dmarcSender = rules.dmarcLocalParts.occurs(in: Array(m.localPart.utf8))
        // Only these need the attachments read: most mail is neither. (mime-parse writes
        // content types in lowercase.)
        let tlsType = m.record?.rawValue("attachments")?.withUnsafeBufferPointer { ByteSearch.contains($0, Self.tlsrpt) } ?? false
        guard reportSubject || dmarcSender || tlsType else { return nil }
        let attachments = m.attachments
        if attachments.contains(where: { rules.tlsReportContentTypes.occurs(in: Array($0.type.utf8)) }) {
            return (.tlsReport, "tls_report_content_type")
        }
        if reportSubject, attachments.contains(where: { a in rules.tlsReportAttachmentEndings.contains { a.name.hasSuffix($0) } }) {
            return (.tlsReport, "tls_report_attachment")
        }
        let dmarcAttachment = attachments.contains { a in
            a.name.isEmpty ? rules.dmarcAttachmentTypes.contains(a.type) : rules.dmarcAttachmentEndings.contains { a.name.hasSuffix($0) }
        }
        if (reportSubject || dmarcSender) && dmarcAttachment { return (.dmarcReport, "dmarc_report") }
        return nil
    }

    /// A service acting for a person: a share, a comment, a mention, an access request or a
    /// calendar answer, sent by a service (or, for a calendar answer, by a calendar program's
    /// REPLY), with the person named. Nil for anything else, a person's own words about a file
    /// included.
    func serviceNotification(_ m: MessageFacts, lowerSubject subject: [UInt8]) -> (ActedBy, ServiceAction)? {
        let fromService = isServiceAddress(m.fromAddress)
        let senderService = !m.senderAddress.isEmpty && isServiceAddress(m.senderAddress)
        // (Exchange marks its meeting answers with Content-Class, whether or not it adds a text/calendar part)
        let calendarAnswer = m.calendarMethods.contains("reply")
            || ByteSearch.contains(ASCII.lowercased(m.header("content-class") ?? ""), "calendarmessage")
        if rules.calendarReplySubjects.tagMatch(of: subject) != nil,
           calendarAnswer || ((fromService || senderService) && ByteSearch.contains(m.fromAddress + " " + m.senderAddress, "calendar")) {
            // a calendar program answers from the person's own address, else a calendar service for them
            if !fromService, !m.fromAddress.isEmpty {
                let written = m.fromName.trimmed.trimmingQuotes
                let name = written.isEmpty || written.contains("@") ? MessageFacts.localPart(m.fromAddress) : written
                return (ActedBy(name: name, address: m.fromAddress), .calendarReply)
            }
            return actor(m, fromService: fromService, phraseAt: nil).map { ($0, .calendarReply) }
        }
        guard fromService || senderService else { return nil }
        // "accepted your invitation" is a calendar's only in mail about a calendar (else a network's)
        let aboutCalendar = calendarAnswer || m.hasCalendar || ByteSearch.contains(m.fromAddress + " " + m.senderAddress, "calendar")
        func found(_ action: ServiceAction, _ phraseAt: (text: String, index: Int)?) -> (ActedBy, ServiceAction)? {
            guard action != .calendarReply || aboutCalendar else { return nil }
            return actor(m, fromService: fromService, phraseAt: phraseAt).map { ($0, action) }
        }
        if let (action, at) = firstAction(in: m.subject) { return found(action, (m.subject, at)) }
        // the text's start, lowercased as the record holds it, says whether to read it
        guard rules.actionPhrases.occurs(in: m.bodyHead) else { return nil }
        let text = m.textHead
        if let (action, at) = firstAction(in: text) { return found(action, (text, at)) }
        // HTML only: the person comes from the sender's name
        if text.isEmpty, let (action, _) = firstAction(in: String(decoding: m.bodyHead, as: UTF8.self)) { return found(action, nil) }
        return nil
    }

    /// The person a service names, the first of: its From name as sent for them (`Alex Rivera
    /// (via Google Drive)`); the words before the action's in the text (`Sam Okafor
    /// (sam@example.net) invited you`), else in the subject (`Sam Okafor shared …`); Reply-To's
    /// name; the From name on a file service's domain (`Maria Garcia
    /// <no-reply@sharepointonline.com>`). A shop's or a network's own name (`Friendbook`) is
    /// never taken for a person's.
    private func actor(_ m: MessageFacts, fromService: Bool, phraseAt: (text: String, index: Int)?) -> ActedBy? {
        let named = nameBeforePhrase(m)
        func address(for name: String) -> String? {
            if !fromService, !m.fromAddress.isEmpty { return m.fromAddress }
            if let r = m.replyTo, !isServiceAddress(r.address), r.name.isEmpty || sameName(r.name, name) { return r.address }
            if let n = named, sameName(n.name, name) { return n.address }
            return nil
        }
        if let name = personSentFor(m.fromName, fromService: fromService) {
            return ActedBy(name: name, address: address(for: name))
        }
        if let named { return ActedBy(name: named.name, address: named.address ?? address(for: named.name)) }
        // "Spreadsheet shared with you" names a thing, "Sam shared “Photos” with you" a person
        if let phraseAt, !ASCII.lowercased(String(decoding: phraseAt.text.utf8.dropFirst(phraseAt.index).prefix(14), as: UTF8.self)).hasPrefix(" shared with "),
           let name = plausibleName(withoutAuxiliaries(lastSegment(prefix(phraseAt.text, phraseAt.index)))) {
            return ActedBy(name: name, address: address(for: name))
        }
        if let r = m.replyTo, !isServiceAddress(r.address), let name = plausibleName(r.name), !namesService(ASCII.lowercased(name)) {
            return ActedBy(name: name, address: r.address)
        }
        // a file service writes the person's name on its own address; a shop's no-reply name is the shop's
        if isServiceDomain(m.domain), let name = plausibleName(m.fromName), !namesService(ASCII.lowercased(name)) {
            return ActedBy(name: name, address: address(for: name))
        }
        return nil
    }

    /// The name (and address, when one is given in parentheses) written just before the first
    /// action phrase of the text: `Tom Becker (tom@example.com) is requesting access`.
    private func nameBeforePhrase(_ m: MessageFacts) -> ActedBy? {
        guard let (_, at) = firstAction(in: m.textHead) else { return nil }
        var line = Substring(prefix(m.textHead, at))
        if let nl = line.lastIndex(where: \.isNewline) { line = line[line.index(after: nl)...] }
        var text = withoutAuxiliaries(String(line))
        var address: String? = nil
        if text.hasSuffix(")"), let open = text.lastIndex(of: "(") {
            let inner = text[text.index(after: open)..<text.index(before: text.endIndex)]
            if inner.contains("@"), !inner.contains(" ") { address = ASCII.lowercased(String(inner)) }
            text = String(text[..<open])
        }
        guard let name = plausibleName(text) else { return nil }
        if let a = address, isServiceAddress(a) { address = nil }
        return ActedBy(name: name, address: address)
    }

    /// Words before an action's that are no part of a name: `Tom Becker has` (requested access).
    private func withoutAuxiliaries(_ text: String) -> String {
        var words = text.split(separator: " ")
        while let last = words.last, ["has", "have", "is", "hat", "ha", "a", "heeft", "just"].contains(ASCII.lowercased(String(last))) { words.removeLast() }
        return words.joined(separator: " ")
    }

    /// The action whose phrase comes first in a text, and where its phrase starts (a byte
    /// offset); the longer phrase when two start at one place.
    private func firstAction(in text: String) -> (ServiceAction, Int)? {
        let lowered = ASCII.lowercased(Array(text.utf8))
        guard rules.actionPhrases.occurs(in: lowered) else { return nil }
        var best: (ServiceAction, Int, Int)? = nil
        for (action, list) in [(ServiceAction.accessRequest, rules.accessRequestPhrases), (.mention, rules.mentionPhrases),
                               (.comment, rules.commentPhrases), (.share, rules.sharePhrases), (.calendarReply, rules.calendarReplyPhrases)] {
            for phrase in list.phrases {
                guard let at = ByteSearch.firstIndex(of: phrase, in: lowered, from: 0) else { continue }
                if best == nil || at < best!.1 || (at == best!.1 && phrase.count > best!.2) { best = (action, at, phrase.count) }
            }
        }
        return best.map { ($0.0, $0.1) }
    }

    /// Whether an address is a service's: a no-reply or notification sender, or a service's domain.
    func isServiceAddress(_ address: String) -> Bool {
        let local = MessageFacts.localPart(address)
        if rules.noreplyLocalParts.contains(where: { ByteSearch.contains(local, $0) }) { return true }
        if rules.notificationLocalParts.contains(local) { return true }
        return isServiceDomain(MessageFacts.domain(address))
    }

    private func isServiceDomain(_ domain: String) -> Bool {
        rules.serviceDomains.contains { domain == $0 || domain.hasSuffix("." + $0) }
    }

    /// A person's name in a sender's display name that says a service sent it for them:
    /// `Alex Rivera (via Google Drive)`, `Sam Okafor via Dropbox`, `Priya Nair (Google Docs)`.
    private func personSentFor(_ displayName: String, fromService: Bool) -> String? {
        let name = displayName.trimmed
        guard !name.isEmpty, !name.contains("@") else { return nil }
        if name.hasSuffix(")"), let open = name.lastIndex(of: "(") {
            let inner = ASCII.lowercased(String(name[name.index(after: open)..<name.index(before: name.endIndex)])).trimmed
            let viaWord = rules.serviceViaWords.contains { inner.hasPrefix($0 + " ") }
            if (viaWord && fromService) || namesService(inner) { return plausibleName(String(name[..<open])) }
            return nil
        }
        let lowered = ASCII.lowercased(name)
        for via in rules.serviceViaWords {
            guard let r = lowered.firstRange(of: " " + via + " ") else { continue }
            if namesService(String(lowered[r.upperBound...])) || fromService {
                return plausibleName(prefix(name, lowered.utf8.distance(from: lowered.startIndex, to: r.lowerBound)))
            }
        }
        return nil
    }

    /// Whether a (lowercase) name has a service's word in it: `google drive`, `sharepoint online`.
    private func namesService(_ lowered: String) -> Bool {
        lowered.split(whereSeparator: { !$0.isLetter && !$0.isNumber && $0 != "-" }).contains { rules.serviceNames.contains(String($0)) }
    }

    /// The part of a subject after its last separator: `Budget 2026 - Priya Nair` → `Priya Nair`.
    private func lastSegment(_ text: String) -> String {
        var rest = Substring(text)
        for separator in [" - ", " – ", ": ", " | "] {
            if let r = rest.ranges(of: separator).last { rest = rest[r.upperBound...] }
        }
        return String(rest)
    }

    /// The text as a person's name, when it can be one: one to six words, starting with no
    /// lowercase ASCII letter, not a word such as `Document` or `Your`.
    private func plausibleName(_ text: String) -> String? {
        let name = text.trimmed.trimmingQuotes
        let words = name.split(whereSeparator: \.isWhitespace)
        guard let first = words.first, words.count <= 6, name.utf8.count <= 80, !name.contains("@"),
              !(first.first.map { $0.isASCII && $0.isLowercase } ?? true),
              !rules.notANameWords.contains(ASCII.lowercased(String(first))),
              name.contains(where: \.isLetter) else { return nil }
        return name
    }

    /// The first `count` bytes of a text (ASCII lowercasing keeps byte offsets).
    private func prefix(_ text: String, _ count: Int) -> String {
        String(decoding: text.utf8.prefix(count), as: UTF8.self)
    }

    private func sameName(_ a: String, _ b: String) -> Bool {
        ASCII.lowercased(a.trimmed.trimmingQuotes) == ASCII.lowercased(b.trimmed.trimmingQuotes)
    }
}

extension String {
    var trimmingQuotes: String {
        let quotes: Set<Character> = ["\"", "'", "“", "”", "‘", "’"]
        guard let first = firstIndex(where: { !quotes.contains($0) }), let last = lastIndex(where: { !quotes.contains($0) }) else { return "" }
        return String(self[first...last])
    }
}
