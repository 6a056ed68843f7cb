import Events
import JSONLines

/// What conversation-group keeps of one message: enough to summarize its conversation, not
/// its body (unless the whole record is embedded).
struct MessageSummary {
    var id: String
    var date: String  // RFC 3339 UTC: sorts as text
    var labels: [String]
    /// The message is Gmail's (it has a Gmail id or thread id): its labels are its mailbox state.
    var fromGmail: Bool
    var fromMe: Bool
    var from: JSONValue  // the {name, address} object, or null
    var snippet: String
    var isNewsletter: Bool
    var isGroup: Bool
    var shipments: [JSONValue]
    var events: [JSONValue]
    var names: [(address: String, name: String)]
    var record: [UInt8]?  // with --embed
    /// newsletter-detect's `automated` (an auto-reply): shown as a note, never unread.
    var isAutomated = false
    /// mime-parse's `report`: a read receipt or a bounce, which is no message of a conversation.
    var report: Report?
    /// An RFC 9078 reaction (mime-parse's `reaction`, with an In-Reply-To): its emoji (none when
    /// taken back) and the id of the message it reacts to. No message of a conversation either.
    var reaction: (emoji: [String], of: String)?

    /// What a conversation lists of a report: its type, the original's id, and for each
    /// recipient the address, the status and the server's words.
    struct Report {
        var type: String
        var of: String?
        var recipients: [(address: String?, status: String?, diagnostic: String?)]

        init?(_ value: JSONValue?) {
            guard let value, let type = value["type"]?.stringValue else { return nil }
            self.type = type
            of = value["original_message_id"]?.stringValue
            recipients = (value["recipients"]?.arrayValue ?? []).map {
                ($0["address"]?.stringValue, $0["status"]?.stringValue, $0["diagnostic"]?.stringValue)
            }
        }
    }

    var isUnread: Bool { !isAutomated && labels.contains("UNREAD") }
    /// In INBOX, or without any label and not Gmail's: mail from procmail, fetchmail, a maildir
    /// or a plain mbox carries no mailbox state, and what was delivered is in the inbox.
    var isInInbox: Bool { labels.contains("INBOX") || (labels.isEmpty && !fromGmail) }
    /// Takeout marks a message that left the inbox "Archived"; trash and spam have left it too.
    var isMarkedArchived: Bool { labels.contains("Archived") || labels.contains("TRASH") || labels.contains("SPAM") }
}

/// One conversation: its messages' summaries, and what a client's list shows of it.
struct Conversation {
    let id: String
    var participants: [String]
    var messages: [MessageSummary] = []
    /// The read receipts and bounces of its messages (in the notices conversation: those whose
    /// message is not in the input).
    var reports: [MessageSummary] = []
    /// The reactions to its messages (and to messages not in the mail: kept, shown on none).
    var reactions: [MessageSummary] = []

    init(id: String, participants: [String]) {
        self.id = id
        self.participants = participants
    }

    /// Visibility as an inbox shows it: any message in INBOX makes the conversation visible
    /// (a newer message in INBOX brings an archived one back); one whose messages have all
    /// left INBOX is archived; one of only messages the user sent stays visible until one of
    /// them is marked archived (Takeout's "Archived", trash or spam).
    var archived: Bool {
        if messages.isEmpty { return !reports.contains(where: \.isInInbox) }
        if messages.contains(where: \.isInInbox) { return false }
        if messages.allSatisfy(\.fromMe) { return messages.contains(where: \.isMarkedArchived) }
        return true
    }

    /// The oldest and newest message's date; a conversation of reports alone, theirs.
    var firstDate: String { (messages.isEmpty ? reports : messages).map(\.date).min() ?? "" }
    var lastDate: String { (messages.isEmpty ? reports : messages).map(\.date).max() ?? "" }

    /// The messages oldest first (those without a date first); messages of the same second in
    /// the order of their ids, so that the order does not depend on the input's (a store adds
    /// them in any order, parallel runs merge in any order).
    var ordered: [MessageSummary] {
        messages.sorted { a, b in a.date != b.date ? a.date < b.date : a.id < b.id }
    }

    /// The display name seen most often for each participant.
    func bestNames() -> [(address: String, name: String?)] {
        // one pass over the names: a mail to 100,000 people must not be read once per person
        var counts: [String: [String: Int]] = [:]
        for m in messages {
            for n in m.names where !n.name.isEmpty { counts[n.address, default: [:]][n.name, default: 0] += 1 }
        }
        return participants.map { p in
            let best = counts[p]?.max { a, b in a.value < b.value || (a.value == b.value && a.key > b.key) }?.key
            return (p, best)
        }
    }

    /// The conversation's events once its mail is applied as iTIP says: those not over at `now`,
    /// and the cancelled ones.
    func upcomingAndCancelledEvents(now: Int) -> [EventStore.Tracked] {
        let mail = messages.map {
            EventMail(messageID: $0.id, date: $0.date, conversationID: id, sender: $0.from["address"]?.stringValue?.lowercased(),
                      events: $0.events.compactMap(Event.init(json:)))
        }
        return EventStore(applying: mail).events
            .filter { $0.event.status == "cancelled" || EventGroup.isUpcoming($0.event, now: now) }
            .sorted { EventGroup.sortKey($0) < EventGroup.sortKey($1) }
    }

    func write(_ w: inout JSONWriter, embed: Bool, now: Int) {
        let ordered = ordered
        let last = ordered.last
        w.beginObject()
        w.field("conversation_id", id)
        w.key("participants")
        w.beginArray()
        for (address, name) in bestNames() {
            w.beginObject()
            w.field("name", name)
            w.field("address", address)
            w.endObject()
        }
        w.endArray()
        w.field("is_group", messages.contains(where: \.isGroup))
        w.field("is_newsletter", !messages.isEmpty && messages.allSatisfy(\.isNewsletter))
        w.field("message_count", messages.count)
        w.field("unread_count", messages.filter(\.isUnread).count)
        w.field("first_date", firstDate.isEmpty ? nil : firstDate)
        w.field("last_date", lastDate.isEmpty ? nil : lastDate)
        w.field("snippet", last?.snippet)
        w.key("last_sender")
        w.value(last?.from ?? .null)
        var labels: [String] = []
        for m in ordered { for l in m.labels where !labels.contains(l) { labels.append(l) } }
        w.field("labels", strings: labels)
        w.key("shipments")
        w.beginArray()
        var seen = Set<String>()
        for m in ordered {
            for s in m.shipments {
                let key = s["tracking_number"]?.stringValue ?? "\(s)"
                if seen.insert(key).inserted { w.value(s) }
            }
        }
        w.endArray()
        w.key("events")
        w.beginArray()
        for t in messages.contains(where: { !$0.events.isEmpty }) ? upcomingAndCancelledEvents(now: now) : [] {
            w.beginObject()
            t.event.writeFields(&w)
            w.field("message_ids", strings: t.messageIDs)
            w.field("updated", t.updated)
            w.endObject()
        }
        w.endArray()
        w.key("reports")
        w.beginArray()
        for r in reports.sorted(by: { a, b in a.date != b.date ? a.date < b.date : a.id < b.id }) {
            guard let report = r.report else { continue }
            for recipient in report.recipients.isEmpty ? [(nil, nil, nil)] : report.recipients {
                w.beginObject()
                w.field("message_id", r.id)
                w.field("type", report.type)
                w.field("of", report.of)
                w.field("recipient", recipient.address)
                w.field("date", r.date.isEmpty ? nil : r.date)
                w.field("status", recipient.status)
                w.field("diagnostic", recipient.diagnostic)
                w.endObject()
            }
        }
        w.endArray()
        w.key("reactions")
        writeReactions(&w)
        w.field("archived", archived)
        if embed {
            w.key("messages")
            w.beginArray()
            for m in ordered { w.raw(m.record ?? []) }
            w.endArray()
        } else {
            w.field("message_ids", strings: ordered.map(\.id))
        }
        w.endObject()
    }
}
