import Events
import JSONLines
import UTF8Text

/// conversation-group's rules for a store that keeps each message and derives one conversation
/// at a time (mailstore): what it keeps of a message, and the conversation record its messages
/// make, written by the same code as conversation-group's.
public enum StoredConversation {
    /// The members of a record that its conversation reads (those of `ConversationGroup.summary`),
    /// with the participant key's fields: a small record, so that deriving a conversation does
    /// not read its messages' bodies. Labels are left out: the store keeps them apart, as they
    /// change after the message arrives.
    public static func summaryRecord(of record: JSONRecord, id: String, key: ParticipantKey) -> [UInt8] {
        var w = JSONWriter(capacity: 512)
        w.beginObject()
        w.field("id", id)
        w.field("date", record.string("date"))
        for name in ["gmail_id", "thread_id", "from", "to", "cc", "mail_kind", "is_newsletter", "shipments", "events", "report", "is_draft"] {
            if let raw = record.rawValue(name) {
                w.key(name)
                w.raw(raw)
            }
        }
        w.field("snippet", record.string("snippet") ?? Snippet.of(record.stringPrefix("text", maxBytes: 8192) ?? record.string("subject") ?? ""))
        if record.string("reaction") != nil {
            for name in ["reaction", "in_reply_to"] {
                if let raw = record.rawValue(name) {
                    w.key(name)
                    w.raw(raw)
                }
            }
        }
        w.field("participants", strings: key.participants)
        w.field("is_group", key.isGroup)
        w.field("from_me", key.fromMe)
        w.endObject()
        return w.bytes
    }

    /// What a record is to its conversation (conversation-group's rules): a `draft` is in none;
    /// a `report` (a read receipt, a bounce) is listed with the message it is about; a `reaction`
    /// (RFC 9078, with the In-Reply-To that names its message) is shown on the message it reacts
    /// to; nil for a message.
    public static func role(of record: JSONRecord) -> String? {
        if record.value("is_draft") == .bool(true) { return "draft" }
        if record.value("report")?["type"] != nil { return "report" }
        if record.string("reaction") != nil, reactsTo(record) != nil { return "reaction" }
        return nil
    }

    /// The id of the message a reaction reacts to: the first of its In-Reply-To.
    static func reactsTo(_ record: JSONRecord) -> String? {
        record.value("in_reply_to")?.arrayValue?.first?.stringValue
    }

    /// The id of the message whose conversation a record joins, wherever its participants put
    /// it: a report's original, a reaction's message, an auto-reply's (newsletter-detect's
    /// `automated`) In-Reply-To.
    public static func answers(_ record: JSONRecord, role: String?) -> String? {
        switch role {
        case "report": record.value("report")?["original_message_id"]?.stringValue
        case "reaction": reactsTo(record)
        case nil where record.string("mail_kind") == "automated": ConversationGroup.answered(record)
        default: nil
        }
    }

    /// The conversation a record is listed in (`role` and `answers` as above): a report or an
    /// auto-reply with the message it answers when that is in the mail (`holding(id)` is the
    /// conversation of message `id`, nil when no message has that id: reports and drafts are no
    /// conversation's messages); else a report in the notices conversation, anything else (a
    /// draft too, which no conversation lists) in the conversation of its participants, `key`.
    public static func placement(role: String?, answers: String?, key: String, holding: (String) throws -> String?) rethrows -> String {
        if let answers, let found = try holding(answers) { return found }
        return role == "report" ? ConversationGroup.noticesID : key
    }

    /// One message of a stored conversation: its summary record and its labels now.
    public struct Message {
        public var summary: JSONRecord
        public var labels: [String]
        public init(summary: JSONRecord, labels: [String]) {
            self.summary = summary
            self.labels = labels
        }
    }

    /// A conversation as conversation-group writes it, and the facts a store lists it by.
    public struct Derived {
        public var record: [UInt8]
        public var lastDate: String?
        public var messageCount: Int
        public var unreadCount: Int
        public var archived: Bool
        public var isGroup: Bool
        public var isNewsletter: Bool
        /// Its record names events, whose list depends on the time it is written at.
        public var hasEvents: Bool
        /// Its newest message is the user's.
        public var lastFromMe: Bool
        /// A message of it is a discussion list's (newsletter-detect's mail_kind "list").
        public var hasListMail: Bool
    }

    /// Conversation `id` as `derive` writes it once message `m` is added to its stored record
    /// `old` (with `hadListMail`, `hadEvents`: whether a message of it was a list's, or had
    /// events), when `m` comes after every message of it: the record from the old one and the
    /// new message, not from every message read again. Nil when the two could differ (then
    /// `derive`): `m` a report, a draft or a message with events, a shipment without a tracking
    /// number (in `m` or the old record), a stored event that cannot be read, a name of a participant other than the one shown (the one seen most often), a
    /// conversation whose participants `m` would set, or one `m` (not in the inbox) leaves
    /// archived or not without the old record saying which.
    public static func appending(_ m: Message, to old: JSONRecord, id: String, hadListMail: Bool, hadEvents: Bool,
                                 rules: AddressRules, now: Int) -> Derived? {
        guard id != ConversationGroup.noticesID, m.summary.value("is_draft") != .bool(true),
              let count = old.value("message_count")?.intValue, count > 0, let lastDate = old.string("last_date"),
              let ids = old.rawValue("message_ids"), ids.count >= 2,
              let events = hadEvents ? eventsStill(in: old, now: now) : old.rawValue("events").flatMap({ Array($0) == Array("[]".utf8) ? $0 : nil }),
              let participants = old.value("participants")?.arrayValue else { return nil }
        var s = ConversationGroup.summary(of: m.summary, id: m.summary.string("id") ?? "", normalizer: AddressNormalizer(rules: rules), embed: false)
        s.labels = m.labels
        let lastID = old.value("message_ids")?.arrayValue?.last?.stringValue ?? ""
        guard s.report == nil, s.reaction == nil, s.events.isEmpty, !s.date.isEmpty,
              s.date > lastDate || (s.date == lastDate && s.id > lastID),
              let shipments = appendingShipments(s.shipments, to: old) else { return nil }
        // the participants: those of the conversation's own messages, once one of them is keyed as it is
        let addresses = participants.map { $0["address"]?.stringValue ?? "" }
        let own = m.summary.value("participants")?.arrayValue?.compactMap(\.stringValue) ?? []
        if ParticipantKey.hash(addresses) != id && ParticipantKey.hash(own) == id && own != addresses { return nil }
        // each participant's name stays the one seen most often when the new message names them by it
        var shown: [String: String?] = [:]
        for p in participants { shown[p["address"]?.stringValue ?? ""] = p["name"]?.stringValue }
        for n in s.names where !n.name.isEmpty {
            if let name = shown[n.address], name != n.name { return nil }
        }
        var labels = old.value("labels")?.arrayValue?.compactMap(\.stringValue) ?? []
        // archived while no message is in the inbox (the labels, every message's, say one is)
        let wasArchived = old.value("archived") == .bool(true)
        guard s.isInInbox || labels.contains("INBOX") || wasArchived else { return nil }
        let archived = !s.isInInbox && !labels.contains("INBOX")
        let wasGroup = old.value("is_group") == .bool(true), wasNewsletter = old.value("is_newsletter") == .bool(true)
        let isGroup = wasGroup || s.isGroup, isNewsletter = wasNewsletter && s.isNewsletter
        let unread = (old.value("unread_count")?.intValue ?? 0) + (s.isUnread ? 1 : 0)
        for l in s.labels where !labels.contains(l) { labels.append(l) }

        var w = JSONWriter()
        w.beginObject()
        w.field("conversation_id", id)
        w.key("participants")
        w.raw(old.rawValue("participants")!)
        w.field("is_group", isGroup)
        w.field("is_newsletter", isNewsletter)
        w.field("message_count", count + 1)
        w.field("unread_count", unread)
        w.key("first_date")
        w.raw(old.rawValue("first_date") ?? ArraySlice("null".utf8))
        w.field("last_date", s.date)
        w.field("snippet", s.snippet)
        w.key("last_sender")
        w.value(s.from)
        w.field("labels", strings: labels)
        w.key("shipments")
        w.raw(shipments)
        w.key("events")
        w.raw(events)
        for name in ["reports", "reactions"] {
            w.key(name)
            w.raw(old.rawValue(name) ?? ArraySlice("[]".utf8))
        }
        w.field("archived", archived)
        w.key("message_ids")
        var list = Array(ids.dropLast())  // the ids, oldest first: the new one last
        if list.count > 1 { list.append(UInt8(ascii: ",")) }
        JSONWriter.appendString(s.id, to: &list)
        w.raw(list + [UInt8(ascii: "]")])
        w.endObject()
        return Derived(record: w.bytes, lastDate: s.date, messageCount: count + 1, unreadCount: unread, archived: archived,
                       isGroup: isGroup, isNewsletter: isNewsletter, hasEvents: hadEvents, lastFromMe: s.fromMe,
                       hasListMail: hadListMail || m.summary.string("mail_kind") == "list")
    }

    /// The events of a conversation's stored record that `derive` would list at `now` when the
    /// new message has none (the mail's events applied are as they were): those not over yet, and
    /// the cancelled ones. Nil when one cannot be read.
    private static func eventsStill(in old: JSONRecord, now: Int) -> ArraySlice<UInt8>? {
        guard let list = old.value("events")?.arrayValue else { return nil }
        var w = JSONWriter()
        w.beginArray()
        for e in list {
            guard let event = Event(json: e) else { return nil }
            if event.status == "cancelled" || EventGroup.isUpcoming(event, now: now) { w.value(e) }
        }
        w.endArray()
        return w.bytes[...]
    }

    /// The conversation's shipments once those of its newest message are added: each tracking
    /// number once, where it was first seen (as `derive` lists them). Nil for a shipment without
    /// a tracking number (`derive` tells those apart by all their fields).
    private static func appendingShipments(_ new: [JSONValue], to old: JSONRecord) -> ArraySlice<UInt8>? {
        let stored = old.rawValue("shipments") ?? ArraySlice("[]".utf8)
        guard !new.isEmpty else { return stored }
        guard let list = old.value("shipments")?.arrayValue else { return nil }
        var seen = Set<String>()
        for s in list {
            guard let number = s["tracking_number"]?.stringValue else { return nil }
            seen.insert(number)
        }
        var w = JSONWriter()
        for s in new {
            guard let number = s["tracking_number"]?.stringValue else { return nil }
            if seen.insert(number).inserted { w.value(s) }
        }
        guard !w.bytes.isEmpty else { return stored }
        return stored.dropLast() + (list.isEmpty ? [] : ArraySlice(",".utf8)) + w.bytes[...] + ArraySlice("]".utf8)
    }

    /// The conversation `id` of `messages` (in the order they were stored: it breaks ties of
    /// date), written as conversation-group writes it with `now`. Drafts among `messages` are left
    /// out; reports (read receipts, bounces) are listed as the conversation's `reports`, reactions
    /// as its `reactions`. Nil when there is no message, report or reaction.
    public static func derive(id: String, messages: [Message], rules: AddressRules, now: Int) -> Derived? {
        let normalizer = AddressNormalizer(rules: rules)
        var c = Conversation(id: id, participants: [])
        var hasListMail = false
        var keyed = false
        for m in messages where m.summary.value("is_draft") != .bool(true) {
            var s = ConversationGroup.summary(of: m.summary, id: m.summary.string("id") ?? "", normalizer: normalizer, embed: false)
            s.labels = m.labels
            if s.report != nil {
                c.reports.append(s)
                continue
            }
            if s.reaction != nil {
                c.reactions.append(s)
                continue
            }
            if !keyed {  // the participants of the conversation's own messages, not of an auto-reply placed in it
                let participants = m.summary.value("participants")?.arrayValue?.compactMap(\.stringValue) ?? []
                if c.messages.isEmpty { c.participants = participants }
                if ParticipantKey.hash(participants) == id {
                    c.participants = participants
                    keyed = true
                }
            }
            if m.summary.string("mail_kind") == "list" { hasListMail = true }
            c.messages.append(s)
        }
        guard !c.messages.isEmpty || !c.reports.isEmpty || !c.reactions.isEmpty else { return nil }
        var w = JSONWriter()
        c.write(&w, embed: false, now: now)
        return Derived(record: w.bytes, lastDate: c.lastDate.isEmpty ? nil : c.lastDate, messageCount: c.messages.count,
                       unreadCount: c.messages.filter(\.isUnread).count, archived: c.archived,
                       isGroup: c.messages.contains(where: \.isGroup),
                       isNewsletter: c.messages.allSatisfy(\.isNewsletter),
                       hasEvents: c.messages.contains { !$0.events.isEmpty }, lastFromMe: c.ordered.last?.fromMe ?? false, hasListMail: hasListMail)
    }
}
