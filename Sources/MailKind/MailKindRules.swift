import JSONLines
import UnixFilter
import UTF8Text

/// The signals newsletter-detect looks for. The defaults are built in from mail-kind.json; a
/// user's file with the same keys adds to them.
public struct MailKindRules: Sendable, ExtensibleData {
    var bulkHeaders: Set<String> = []
    var discussionListHeaders: Set<String> = []
    var autoReplyHeaders: Set<String> = []
    var noreplyLocalParts: Set<String> = []
    var newsletterLocalParts: Set<String> = []
    var notificationLocalParts: Set<String> = []
    /// Patterns with `*` at one end: `owner-*`, `*-bounces`.
    var listSenderLocalParts: [String] = []
    var transactionalPhrases = PhraseList()
    var autoReplySubjects = PhraseList()
    var autoReplySubjectEndings = PhraseList()
    var bounceSubjects = PhraseList()
    var unsubscribePhrases = PhraseList()
    var newsletterPhrases = PhraseList()
    var careAppointmentPhrases = PhraseList()
    var careAppointmentSubjects = PhraseList()
    var carePrescriptionPhrases = PhraseList()
    var carePrescriptionSubjects = PhraseList()
    var careNewsletterPhrases = PhraseList()
    var careNewsletterSubjects = PhraseList()
    var careNewsletterLocalParts: Set<String> = []
    /// Local parts of delivery systems: their mail is a bounce (`mailer-daemon`, `mail-daemon`).
    var bounceLocalParts: Set<String> = []
    /// Header names (lowercase) of an SMTP TLS report, in the file's order.
    var tlsReportHeaders: [String] = []
    /// Content types (of the message or an attachment) of an SMTP TLS report.
    var tlsReportContentTypes = PhraseList()
    /// Subjects of the mail system's reports ("Report domain: … Submitter: …").
    var reportSubjects = PhraseList()
    /// Words in the local part of a DMARC report's sender (`dmarc`).
    var dmarcLocalParts = PhraseList()
    /// How a DMARC report's attachment's name ends (`.xml.gz`, `.zip`).
    var dmarcAttachmentEndings: [String] = []
    /// Content types of a DMARC report's attachment, for one without a name.
    var dmarcAttachmentTypes: Set<String> = []
    /// How a TLS report's attachment's name ends (`.json.gz`).
    var tlsReportAttachmentEndings: [String] = []
    /// Domains whose mail is a service's, not a person's (`docs.google.com`).
    var serviceDomains: Set<String> = []
    /// Words that make a sender's name a service's, not a person's (`google`, `dropbox`).
    var serviceNames: Set<String> = []
    /// Words that join a person's name to the service sending for them: `Alex Rivera (via Google Drive)`.
    var serviceViaWords: [String] = []
    /// The phrases of every service action together, to pass over most mail in one search.
    var actionPhrases = PhraseList()
    var sharePhrases = PhraseList()
    var commentPhrases = PhraseList()
    var mentionPhrases = PhraseList()
    var accessRequestPhrases = PhraseList()
    /// Words of a calendar service telling of a person's answer (`accepted your invitation`).
    var calendarReplyPhrases = PhraseList()
    /// Subject tags of a calendar answer (`accepted`, `declined`), matched as a tag: `Accepted: …`.
    var calendarReplySubjects = PhraseList()
    /// First words that show the words before a service's phrase are no person (`Document shared with you`).
    var notANameWords: Set<String> = []

    public struct FileError: Error, CustomStringConvertible {
        public var description: String
    }

    /// The rules built into the program.
    public static let builtIn: MailKindRules = {
        var rules = MailKindRules()
        do { try rules.add(json: PackageResources.mail_kind_json) } catch { fatalError("built-in mail-kind.json: \(error)") }
        return rules
    }()

    /// Adds the lists of one rules file (JSON, the keys of mail-kind.json).
    public mutating func add(json: [UInt8]) throws(FileError) {
        let lists: [(key: String, values: [String])]
        do { lists = try DataFiles.stringLists(json) } catch { throw FileError(description: error.description) }
        for (key, values) in lists {
            let words = values.map { ASCII.lowercased($0) }
            switch key {
            case "bulk_headers": bulkHeaders.formUnion(words)
            case "discussion_list_headers": discussionListHeaders.formUnion(words)
            case "auto_reply_headers": autoReplyHeaders.formUnion(words)
            case "noreply_local_parts": noreplyLocalParts.formUnion(words)
            case "newsletter_local_parts": newsletterLocalParts.formUnion(words)
            case "notification_local_parts": notificationLocalParts.formUnion(words)
            case "list_sender_local_parts": listSenderLocalParts += words
            case "bounce_subjects": words.forEach { bounceSubjects.add($0) }
            case "transactional_phrases": words.forEach { transactionalPhrases.add($0) }
            case "auto_reply_subjects": words.forEach { autoReplySubjects.add($0) }
            case "auto_reply_subject_endings": words.forEach { autoReplySubjectEndings.add($0) }
            case "unsubscribe_phrases": words.forEach { unsubscribePhrases.add($0) }
            case "newsletter_phrases": words.forEach { newsletterPhrases.add($0) }
            case "care_appointment_phrases": words.forEach { careAppointmentPhrases.add($0) }
            case "care_appointment_subjects": words.forEach { careAppointmentSubjects.add($0) }
            case "care_prescription_phrases": words.forEach { carePrescriptionPhrases.add($0) }
            case "care_prescription_subjects": words.forEach { carePrescriptionSubjects.add($0) }
            case "care_newsletter_phrases": words.forEach { careNewsletterPhrases.add($0) }
            case "care_newsletter_subjects": words.forEach { careNewsletterSubjects.add($0) }
            case "care_newsletter_local_parts": careNewsletterLocalParts.formUnion(words)
            case "bounce_local_parts": bounceLocalParts.formUnion(words)
            case "tls_report_headers": tlsReportHeaders += words.filter { !tlsReportHeaders.contains($0) }
            case "tls_report_content_types": words.forEach { tlsReportContentTypes.add($0) }
            case "report_subjects": words.forEach { reportSubjects.add($0) }
            case "dmarc_local_parts": words.forEach { dmarcLocalParts.add($0) }
            case "dmarc_attachment_endings": dmarcAttachmentEndings += words
            case "dmarc_attachment_types": dmarcAttachmentTypes.formUnion(words)
            case "tls_report_attachment_endings": tlsReportAttachmentEndings += words
            case "service_domains": serviceDomains.formUnion(words)
            case "service_names": serviceNames.formUnion(words)
            case "service_via_words": serviceViaWords += words
            case "share_phrases": words.forEach { sharePhrases.add($0); actionPhrases.add($0) }
            case "comment_phrases": words.forEach { commentPhrases.add($0); actionPhrases.add($0) }
            case "mention_phrases": words.forEach { mentionPhrases.add($0); actionPhrases.add($0) }
            case "access_request_phrases": words.forEach { accessRequestPhrases.add($0); actionPhrases.add($0) }
            case "calendar_reply_subjects": words.forEach { calendarReplySubjects.add($0) }
            case "calendar_reply_phrases": words.forEach { calendarReplyPhrases.add($0); actionPhrases.add($0) }
            case "not_a_name_words": notANameWords.formUnion(words)
            default: throw FileError(description: "unknown key '\(key)'")
            }
        }
    }
}


extension MailKindRules {
    /// Whether a local part is one list software sends from (`owner-*`, `*-bounces`).
    func isListSoftware(localPart: String) -> Bool {
        listSenderLocalParts.contains { pattern in
            if pattern.hasPrefix("*") { return localPart.hasSuffix(pattern.dropFirst()) }
            if pattern.hasSuffix("*") { return localPart.hasPrefix(pattern.dropLast()) }
            return localPart == pattern
        }
    }
}
