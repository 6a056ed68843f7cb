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
        for name in ["gmail_id", "thread_id", "from", "to", "cc", "mail_kind", "is_newsletter", "shipments", "events"] {
            if let raw = record.rawValue(name) {
                w.key(name)
                w.raw(raw)
            }
        }
        w.field("snippet", record.string("snippet") ?? Snippet.of(record.stringPrefix("text", maxBytes: 8192) ?? record.string("subject") ?? ""))
        w.field("participants", strings: key.participants)
        w.field("is_group", key.isGroup)
        w.field("from_me", key.fromMe)
        w.endObject()
        return w.bytes
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

    /// The conversation `id` of `messages` (in the order they were stored: it breaks ties of
    /// date), written as conversation-group writes it with `now`. Nil when there is no message.
    public static func derive(id: String, messages: [Message], rules: AddressRules, now: Int) -> Derived? {
        guard let first = messages.first else { return nil }
        let normalizer = AddressNormalizer(rules: rules)
        let participants = first.summary.value("participants")?.arrayValue?.compactMap(\.stringValue) ?? []
        var c = Conversation(id: id, participants: participants)
        var hasListMail = false
        for m in messages {
            if m.summary.string("mail_kind") == "list" { hasListMail = true }
            var s = ConversationGroup.summary(of: m.summary, id: m.summary.string("id") ?? "", normalizer: normalizer, embed: false)
            s.labels = m.labels
            c.messages.append(s)
        }
        var w = JSONWriter()
        c.write(&w, embed: false, now: now)
        return Derived(record: w.bytes, lastDate: c.lastDate.isEmpty ? nil : c.lastDate, messageCount: c.messages.count,
                       unreadCount: c.messages.filter(\.isUnread).count, archived: c.archived,
                       isGroup: c.messages.contains(where: \.isGroup),
                       isNewsletter: c.messages.allSatisfy(\.isNewsletter),
                       hasEvents: c.messages.contains { !$0.events.isEmpty }, lastFromMe: c.ordered.last?.fromMe ?? false, hasListMail: hasListMail)
    }
}
