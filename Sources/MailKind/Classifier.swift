import MailSubject
import UTF8Text

/// What kind of mail a message is, for a client that shows people as chats and the rest as cards.
public enum MailKind: String, Sendable {
    case personal, newsletter, notification, list, automated
}

/// What care mail is about: a patient's appointment, or a prescription to collect or reorder.
public enum Care: String, Sendable {
    case appointment, prescription
}

public struct Verdict: Equatable, Sendable {
    public var kind: MailKind
    /// The signals that decided it, named (see newsletter-detect(1)).
    public var reasons: [String]
    public var unsubscribe: Unsubscribe?
    /// Set when the mail is a notification about a patient's care (reason `care_mail`).
    public var care: Care?
    /// What automated mail is; nil for every other kind.
    public var automatedKind: AutomatedKind?
    /// The person a service acted for, and what it did (a notification's); nil for other mail.
    public var actedBy: ActedBy?
    public var serviceAction: ServiceAction?
    public var isNewsletter: Bool { kind == .newsletter }
}

/// Weighs a message's signals. The order of the questions matters: an auto-reply is automated
/// whatever else it carries; a post to a discussion list is `list` even with the list's
/// unsubscribe footer; what is left is personal unless it carries bulk signals, and bulk mail is
/// a notification when it is about one transaction (an order, a parcel, a password), else a
/// newsletter.
struct Classifier {
    let rules: MailKindRules
    var subjectPrefixes = SubjectPrefixes.builtIn

    func classify(_ m: MessageFacts) -> Verdict {
        let unsubscribe = Unsubscribe(listUnsubscribe: m.values("list-unsubscribe"),
                                      listUnsubscribePost: m.values("list-unsubscribe-post"))
        func verdict(_ kind: MailKind, _ reasons: [String]) -> Verdict {
            Verdict(kind: kind, reasons: reasons, unsubscribe: unsubscribe)
        }
        let autoSubmitted = ASCII.lowercased(m.header("auto-submitted") ?? "").trimmed
        let precedence = ASCII.lowercased(m.header("precedence") ?? "").trimmed
        let local = m.localPart

        let lowerSubject = ASCII.lowercased(Array(m.subject.utf8))

        // A draft is mine, not sent yet, whatever it quotes or answers.
        if m.isDraft { return verdict(.personal, ["draft"]) }

        // Reports of the mail system, automated replies and bounces.
        var automated: [String] = []
        var kinds: Set<AutomatedKind> = []
        func found(_ kind: AutomatedKind, _ reason: String) {
            automated.append(reason)
            kinds.insert(kind)
        }
        let conversational = m.isReply || subjectPrefixes.isReplyOrForward(m.subject)
        if autoSubmitted.hasPrefix("auto-replied") { found(.autoReply, "auto_submitted_auto_replied") }
        if let h = rules.autoReplyHeaders.first(where: m.has) { found(.autoReply, "auto_reply_header:" + h) }
        if precedence == "auto_reply" { found(.autoReply, "precedence_auto_reply") }
        // Exchange's out-of-office and rule replies: sent by an inbox rule, and asking for no reply.
        if m.has("x-ms-exchange-inbox-rules-loop"),
           ByteSearch.contains(ASCII.lowercased(m.header("x-auto-response-suppress") ?? ""), "all") {
            found(.autoReply, "exchange_auto_reply")
        }
        if rules.autoReplySubjects.tagMatch(of: lowerSubject) != nil || rules.autoReplySubjectEndings.suffixMatch(of: lowerSubject) != nil {
            found(.autoReply, "auto_reply_subject")
        }
        let contentType = ASCII.lowercased(m.header("content-type") ?? "")
        if rules.bounceLocalParts.contains(local) || (local == "postmaster" && rules.bounceSubjects.firstMatch(in: lowerSubject) != nil)
            || ByteSearch.contains(contentType, "report-type=delivery-status") {
            found(.bounce, "delivery_status_notification")
        }
        if ByteSearch.contains(contentType, "report-type=disposition-notification") { found(.readReceipt, "disposition_notification") }
        // what mime-parse read: a delivery report or a receipt, with report fields or from its words
        switch m.reportType {
        case "failed", "delayed", "delivered": found(.bounce, "delivery_report")
        case "read", "not_read": found(.readReceipt, "read_receipt")
        default: break
        }
        if let report = systemReport(m, lowerSubject: lowerSubject, conversational: subjectPrefixes.isReplyOrForward(m.subject)) { found(report.kind, report.reason) }
        // One kind for what says several: a report's own kind before the auto-reply headers
        // bounces and receipts carry too.
        if let kind = [AutomatedKind.tlsReport, .dmarcReport, .bounce, .readReceipt, .autoReply].first(where: kinds.contains) {
            var v = verdict(.automated, automated)
            v.automatedKind = kind
            return v
        }

        // Bulk signals: any strong one, or two weak ones, and it is not from a person.
        var strong: [String] = []
        var weak: [String] = []
        // Gmail files group mail among colleagues under Forums too: that says nothing here.
        let category = ["CATEGORY_PROMOTIONS", "CATEGORY_SOCIAL", "CATEGORY_UPDATES"].filter(m.labels.contains)
        strong += category.map { "gmail_" + ASCII.lowercased($0) }
        if m.has("list-unsubscribe") { strong.append("list_unsubscribe") }
        if unsubscribe?.oneClick == true { strong.append("list_unsubscribe_post") }
        if precedence == "bulk" || precedence == "junk" { strong.append("precedence_" + precedence) }
        if m.has("feedback-id") { strong.append("feedback_id") }
        let espHeaders = m.headerNames.filter(rules.bulkHeaders.contains)
        strong += espHeaders.map { "bulk_header:" + $0 }
        if autoSubmitted.hasPrefix("auto-generated") || autoSubmitted.hasPrefix("auto-notified") { strong.append("auto_submitted_auto_generated") }
        let noreply = rules.noreplyLocalParts.contains { ByteSearch.contains(local, $0) }
        if noreply { strong.append("noreply_sender") }
        let newsletterSender = matchesLocalPart(local, rules.newsletterLocalParts)
        let notificationSender = matchesLocalPart(local, rules.notificationLocalParts)
        if newsletterSender { weak.append("newsletter_sender") }
        if notificationSender { weak.append("notification_sender") }
        if m.has("x-auto-response-suppress") { weak.append("x_auto_response_suppress") }
        if isVERP(m.header("return-path")) { weak.append("verp_return_path") }
        let unsubscribeLink = rules.unsubscribePhrases.firstMatch(in: m.bodyTail) != nil
        if unsubscribeLink { weak.append("unsubscribe_link") }
        let newsletterPhrase = rules.newsletterPhrases.firstMatch(in: m.bodyTail) != nil
        if newsletterPhrase { weak.append("newsletter_phrase") }

        // Discussion lists: a posting address or list software, and no sign of a campaign. (Old
        // list managers mark every post Precedence: bulk, so that is no sign of one here.)
        let campaign = !espHeaders.isEmpty || m.has("feedback-id") || precedence == "junk"
            || m.labels.contains("CATEGORY_PROMOTIONS") || noreply || newsletterSender
        var listSignals: [String] = []
        if let post = m.header("list-post"), !ASCII.lowercased(post).trimmed.hasPrefix("no") { listSignals.append("list_post") }
        for h in rules.discussionListHeaders.sorted() where h != "list-post" && m.has(h) { listSignals.append("list_header:" + h) }
        if precedence == "list" { listSignals.append("precedence_list") }
        if !m.senderAddress.isEmpty && m.senderAddress != m.fromAddress
            && rules.isListSoftware(localPart: MessageFacts.localPart(m.senderAddress)) {
            listSignals.append("list_sender")
        }
        if let listID = m.header("list-id"), listSignals.isEmpty, m.isReply || !sameOrganization(listID: listID, domain: m.domain) {
            listSignals.append(m.isReply ? "list_id_reply" : "list_id_other_sender")
        }
        if !listSignals.isEmpty && !campaign {
            return verdict(.list, listSignals + (m.has("list-id") ? ["list_id"] : []))
        }
        if m.has("list-id") { strong.append("list_id") }

        let transactionalSubject = rules.transactionalPhrases.firstMatch(in: lowerSubject) != nil
        // People write about orders and invoices too, but machines do not reply or forward.
        if transactionalSubject && !conversational { weak.append("transactional_subject") }
        if m.labels.contains("SENT") { return verdict(.personal, ["sent"]) }

        // A service acting for a person: a share, a comment, a calendar answer.
        if let (person, action) = serviceNotification(m, lowerSubject: lowerSubject) {
            var v = verdict(.notification, ["service_for_person", "service_action:" + action.rawValue] + strong + weak)
            v.actedBy = person
            v.serviceAction = action
            return v
        }
        // care words in the text count only with a sign of machine mail beside them: not read
        // in mail that has none (most personal mail)
        let signs = strong.count + weak.count + (m.hasShipments ? 1 : 0)
        let care = conversational ? nil : self.care(m, newsletterPhrase: newsletterPhrase, readText: signs > 0)
        // A tracking number alone is no sign of machine mail (a friend writes one too): with one
        // weak sign it is enough, as two weak signs are. So is an appointment or a prescription
        // read from the text; a subject that names one ("Appointment reminder") is enough alone.
        guard !strong.isEmpty || care?.bySubject == true
                || weak.count + (m.hasShipments ? 1 : 0) + (care != nil ? 1 : 0) >= 2 else { return verdict(.personal, []) }

        // Bulk: one transaction, or a mailing?
        var notification = 0, newsletter = 0
        let reasons = strong + weak + (transactionalSubject && conversational ? ["transactional_subject"] : [])
            + (m.hasShipments ? ["shipments"] : []) + (m.hasCalendar ? ["calendar_invitation"] : [])
        if transactionalSubject { notification += 3 }
        if m.hasShipments { notification += 3 }
        if m.hasCalendar { notification += 3 }
        if notificationSender { notification += 2 }
        if m.labels.contains("CATEGORY_UPDATES") { notification += 2 }
        if strong.contains("auto_submitted_auto_generated") { notification += 2 }
        if m.labels.contains("CATEGORY_PROMOTIONS") { newsletter += 3 }
        if m.labels.contains("CATEGORY_SOCIAL") { newsletter += 1 }
        if newsletterSender { newsletter += 2 }
        if newsletterPhrase { newsletter += 2 }
        if precedence == "bulk" { newsletter += 2 }
        if unsubscribeLink { newsletter += 1 }
        if !espHeaders.isEmpty { newsletter += 1 }
        if strong.contains("list_unsubscribe_post") { newsletter += 1 }
        if m.has("list-id") { newsletter += 1 }
        if m.has("list-unsubscribe") { newsletter += 1 }
        // A patient's appointment or prescription is never a mailing, whatever its booking
        // system adds (a no-reply sender, an ESP's headers, List-Unsubscribe, Precedence: bulk).
        if let care {
            var v = verdict(.notification, reasons + ["care_mail"])
            v.care = care.kind
            return v
        }
        return verdict(notification > newsletter ? .notification : .newsletter, reasons)
    }

    /// Whether a mail is about one patient's appointment or prescription: a prescription
    /// event-extract read from its text, or care words in its subject; else, in mail with no
    /// sign of a clinic's or a pharmacy's own mailing (its newsletter, opening hours, flu
    /// clinics, offers), an appointment event-extract read or care words at the start of its
    /// text. A subject that says it is a mailing ("Praxis-Newsletter") outweighs them all.
    func care(_ m: MessageFacts, newsletterPhrase: Bool, readText: Bool = true) -> (kind: Care, bySubject: Bool)? {
        let subject = ASCII.lowercased(Array(m.subject.utf8))
        guard !rules.careNewsletterPhrases.occurs(in: subject), !rules.careNewsletterSubjects.occurs(in: subject) else { return nil }
        if !m.eventKinds.isEmpty, m.eventKinds.contains("prescription") { return (.prescription, false) }
        if rules.carePrescriptionPhrases.occurs(in: subject) || rules.carePrescriptionSubjects.occurs(in: subject) {
            return (.prescription, true)
        }
        if rules.careAppointmentPhrases.occurs(in: subject) || rules.careAppointmentSubjects.occurs(in: subject) {
            return (.appointment, true)
        }
        guard readText else { return nil }
        // an appointment read from the text is a booking word, a date and a time; words alone
        // count only without a newsletter's footer
        let appointment = !m.eventKinds.isEmpty && m.eventKinds.contains("appointment")
        var found: Care? = appointment ? .appointment : nil
        if found == nil, !newsletterPhrase {
            if rules.carePrescriptionPhrases.occurs(in: m.bodyHead) {
                found = .prescription
            } else if rules.careAppointmentPhrases.occurs(in: m.bodyHead) {
                found = .appointment
            }
        }
        // a clinic's own mailing names its clinics' times and says "your appointment" too: its
        // sender and its words leave it out
        guard let found, !m.labels.contains("CATEGORY_PROMOTIONS"), !matchesLocalPart(m.localPart, rules.careNewsletterLocalParts),
              !rules.careNewsletterPhrases.occurs(in: m.bodyHead) else { return nil }
        return (found, false)
    }

    /// A sender local part that names its job: `news`, `news-tw`, `weekly.digest`.
    private func matchesLocalPart(_ local: String, _ words: Set<String>) -> Bool {
        if words.contains(local) { return true }
        let parts = local.split(whereSeparator: { $0 == "." || $0 == "-" || $0 == "_" || $0 == "+" })
        guard parts.count > 1 else { return false }
        return words.contains(String(parts[0])) || words.contains(String(parts[parts.count - 1]))
    }

    /// A VERP return path encodes the recipient or a message id in its local part:
    /// `bounces+1234-abcd-me=example.com@em.example.net`.
    private func isVERP(_ returnPath: String?) -> Bool {
        guard let rp = returnPath, let at = rp.lastIndex(of: "@") else { return false }
        let local = rp[..<at]
        if local.contains("=") { return true }
        return ByteSearch.contains(ASCII.lowercased(String(local)), "bounce") && local.contains(where: \.isNumber)
    }

    /// Whether a List-Id (`"Name" <id.list-id.example.com>`) belongs to the sender's domain.
    private func sameOrganization(listID: String, domain: String) -> Bool {
        guard !domain.isEmpty else { return true }
        var id = ASCII.lowercased(listID)
        if let open = id.lastIndex(of: "<"), let close = id.lastIndex(of: ">"), open < close {
            id = String(id[id.index(after: open)..<close])
        }
        return registrableSuffix(id) == registrableSuffix(domain)
    }

    /// The last two labels of a domain, or three under a two-letter country code with a short
    /// second level (`example.com.tw`): close enough to say two names belong together.
    private func registrableSuffix(_ domain: String) -> String {
        let labels = domain.split(separator: ".")
        guard labels.count > 2 else { return domain }
        let n = labels[labels.count - 1].count == 2 && labels[labels.count - 2].count <= 3 ? 3 : 2
        return labels.suffix(n).joined(separator: ".")
    }
}

extension String {
    var trimmed: String {
        guard let first = firstIndex(where: { !$0.isWhitespace }), let last = lastIndex(where: { !$0.isWhitespace }) else { return "" }
        return String(self[first...last])
    }
}
