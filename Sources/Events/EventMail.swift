import JSONLines

/// One message's events, as the calendar reads them. event-group, the store, a conversation's
/// summary and chat-render each make their calendar of these with `EventStore(applying:)`.
public struct EventMail {
    public var messageID: String
    /// The message's date (RFC 3339 in UTC, which sorts as text); nil when it has none.
    public var date: String?
    public var conversationID: String?
    /// The sender's address, lowercased: a booking or an appointment is known by who sent it.
    public var sender: String?
    public var events: [Event]

    public init(messageID: String, date: String?, conversationID: String?, sender: String?, events: [Event]) {
        self.messageID = messageID
        self.date = date == "" ? nil : date
        self.conversationID = conversationID
        self.sender = sender
        self.events = events
    }

    /// The events of a message record (`events`: its event-extract objects; those that are not
    /// events are left out).
    public init(record: JSONRecord, messageID: String, conversationID: String?, events: [JSONValue]) {
        self.init(messageID: messageID, date: record.string("date"), conversationID: conversationID,
                  sender: record.value("from")?["address"]?.stringValue?.lowercased(), events: events.compactMap(Event.init(json:)))
    }
}

extension EventStore {
    /// The events `mail` comes to, applied in date order: messages of the same second by their
    /// ids (so that the order the mail came in does not matter), a message's events in its order.
    public init(applying mail: [EventMail]) {
        self.init()
        let order = mail.indices.sorted { a, b in
            let (x, y) = (mail[a], mail[b])
            if x.date != y.date { return (x.date ?? "") < (y.date ?? "") }
            if x.messageID != y.messageID { return x.messageID < y.messageID }
            return a < b  // the same message twice (Takeout's copies): as it came
        }
        for m in order.map({ mail[$0] }) {
            for e in m.events { apply(e, messageID: m.messageID, date: m.date, conversationID: m.conversationID, sender: m.sender) }
        }
    }
}
