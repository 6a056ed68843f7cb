/// Events as a calendar client keeps them after reading the mail about them in date order:
/// iTIP (RFC 5546) applied to the events of each message.
public struct EventStore {
    /// One event's current state and the mail about it.
    public struct Tracked: Sendable {
        public var event: Event
        /// Every message about the event, in the order they were applied (date order).
        public var messageIDs: [String] = []
        /// The date of the message that set the current state.
        public var updated: String?
        public var conversationID: String?

        /// Adds a message about the event, once: the same message read again (Takeout keeps a
        /// copy for each label) is the same mail.
        mutating func mention(_ messageID: String) {
            if messageIDs.last != messageID { messageIDs.append(messageID) }
        }
    }

    var tracked: [String: Tracked] = [:]
    var order: [String] = []
    /// The order messages were applied in, to keep merged lists of them in date order.
    private var position: [String: Int] = [:]

    /// Empty: the other modules make a store with `init(applying:)`, which orders the mail.
    init() {}

    /// The events, in the order they first appeared.
    public var events: [Tracked] { order.compactMap { tracked[$0] } }

    /// Applies one event of a message. Messages must come in date order (`init(applying:)`
    /// orders them); iTIP's SEQUENCE and DTSTAMP then decide between versions, so an older
    /// version read later changes nothing.
    mutating func apply(_ e: Event, messageID: String, date: String?, conversationID: String?, sender: String?) {
        let key = Self.key(e, messageID: messageID, sender: sender)
        if position[messageID] == nil { position[messageID] = position.count }
        guard e.source == "icalendar", e.uid != nil else {
            if e.source == "text", applyTextChange(e, key: key, messageID: messageID, date: date, conversationID: conversationID, sender: sender) {
                return
            }
            // a booking's later mail is its latest word (a changed or cancelled reservation)
            replace(key, with: e, messageID: messageID, date: date, conversationID: conversationID)
            return
        }
        switch e.method {
        case "CANCEL": cancel(e, key: key, messageID: messageID, date: date, conversationID: conversationID)
        case "REPLY": reply(e, key: key, messageID: messageID, date: date)
        case "COUNTER", "DECLINECOUNTER", "REFRESH":
            // a proposal or a question: the organizer's event stays as it is
            if !note(messageID, on: key) { note(messageID, on: Self.seriesKey(e)) }
        default:
            if let current = tracked[key]?.event, !Self.isNewer(e, than: current) {
                note(messageID, on: key)
            } else {
                replace(key, with: e, messageID: messageID, date: date, conversationID: conversationID)
            }
        }
    }

    static func key(_ e: Event, messageID: String, sender: String?) -> String {
        if e.source == "icalendar" {
            guard let uid = e.uid else { return "message\u{0}" + messageID + "\u{0}" + (e.summary ?? "") + (e.start ?? "") }
            return "uid\u{0}" + uid + "\u{0}" + (e.recurrenceID ?? "")
        }
        let when = e.start ?? e.startLocal ?? ""
        // a confirmation someone forwarded is its first sender's, as the one that came direct
        let sender = e.forwardedFrom.map { $0.address.lowercased() } ?? sender
        switch e.source {
        case "schema.org":
            // a booking: its sender, its number and the thing booked (each leg of a trip its
            // own event), so that a changed time or a cancellation replaces it
            if let number = e.reservationNumber { return [e.source, sender ?? "", number, e.summary ?? ""].joined(separator: "\u{0}") }
            return [e.source, sender ?? "", e.summary ?? "", when].joined(separator: "\u{0}")
        default:  // read from a text: its sender and when
            return [e.source, sender ?? "", when].joined(separator: "\u{0}")
        }
    }

    static func seriesKey(_ e: Event) -> String { "uid\u{0}" + (e.uid ?? "") + "\u{0}" }

    /// A higher SEQUENCE is newer; within one, a later DTSTAMP (a minor update). Without stamps
    /// to compare, the later message is.
    static func isNewer(_ e: Event, than current: Event) -> Bool {
        if e.sequence != current.sequence { return e.sequence > current.sequence }
        guard let a = e.dtstamp, let b = current.dtstamp else { return e != current }
        return a > b
    }

    mutating func replace(_ key: String, with e: Event, messageID: String, date: String?, conversationID: String?) {
        if tracked[key] == nil {
            order.append(key)
            tracked[key] = Tracked(event: e, conversationID: conversationID)
        }
        tracked[key]!.event = e
        tracked[key]!.mention(messageID)
        tracked[key]!.updated = date
        if tracked[key]!.conversationID == nil { tracked[key]!.conversationID = conversationID }
        if e.source == "icalendar", e.uid != nil, e.recurrenceID == nil {
            // an EXDATE of the series deletes the changed occurrence it names
            for x in e.recurrence?.exdates ?? [] { removeOccurrence(key + x, into: key) }
        }
    }

    /// Drops a changed occurrence; the mail about it is counted as the series'.
    private mutating func removeOccurrence(_ key: String, into series: String) {
        guard let removed = tracked.removeValue(forKey: key) else { return }
        let ids = Set(tracked[series]!.messageIDs).union(removed.messageIDs)
        tracked[series]!.messageIDs = ids.sorted { position[$0]! < position[$1]! }
        order.removeAll { $0 == key }
    }

    @discardableResult
    private mutating func note(_ messageID: String, on key: String) -> Bool {
        guard tracked[key] != nil else { return false }
        tracked[key]!.mention(messageID)
        return true
    }

    /// CANCEL: the whole event (and its changed occurrences), or with RECURRENCE-ID one
    /// occurrence, which becomes an EXDATE of the series. A cancellation applies unless it is
    /// older on both counts: organizers do not all raise SEQUENCE to cancel (Thunderbird's own
    /// test mail cancels a SEQUENCE:2 event with SEQUENCE:1, stamped later), and a later DTSTAMP
    /// is the organizer's latest word.
    private mutating func cancel(_ e: Event, key: String, messageID: String, date: String?, conversationID: String?) {
        func applies(to current: Event) -> Bool {
            if e.sequence > current.sequence { return true }
            guard let a = e.dtstamp, let b = current.dtstamp else { return true }
            return a >= b
        }
        let series = Self.seriesKey(e)
        if let occurrence = e.recurrenceID, var master = tracked[series], master.event.recurrence != nil {
            guard applies(to: master.event) || tracked[key].map({ applies(to: $0.event) }) == true else {
                note(messageID, on: series)
                return
            }
            if !master.event.recurrence!.exdates.contains(occurrence) { master.event.recurrence!.exdates.append(occurrence) }
            master.mention(messageID)
            master.updated = date
            tracked[series] = master
            removeOccurrence(key, into: series)
            return
        }
        guard var current = tracked[key] else {
            // a cancellation of an event never seen: kept, so the calendar can say so
            var stub = e
            stub.status = "cancelled"
            replace(key, with: stub, messageID: messageID, date: date, conversationID: conversationID)
            return
        }
        guard applies(to: current.event) else {
            note(messageID, on: key)
            return
        }
        current.event = Self.cancelled(current.event, by: e)
        current.mention(messageID)
        current.updated = date
        tracked[key] = current
        if e.recurrenceID == nil {
            for k in order where k != key && k.hasPrefix(series) {
                tracked[k]!.event = Self.cancelled(tracked[k]!.event, by: e)
                tracked[k]!.updated = date
            }
        }
    }

    /// The event as the calendar keeps it once cancelled: what it was, marked cancelled, with the
    /// cancellation's sequence and stamp (a CANCEL often carries little else).
    static func cancelled(_ event: Event, by cancel: Event) -> Event {
        var result = event
        result.status = "cancelled"
        result.method = "CANCEL"
        result.sequence = max(event.sequence, cancel.sequence)
        result.dtstamp = cancel.dtstamp ?? event.dtstamp
        return result
    }

    /// REPLY: an attendee's answer changes that attendee's status only. A reply to an older
    /// version (lower SEQUENCE) is obsolete; an answer from someone not invited adds them, as
    /// Thunderbird does with a party crasher. A reply to an event not in the mail is not an event.
    private mutating func reply(_ e: Event, key: String, messageID: String, date: String?) {
        let target = tracked[key] != nil ? key : Self.seriesKey(e)
        guard var current = tracked[target] else { return }
        current.mention(messageID)
        if e.sequence >= current.event.sequence {
            for answer in e.attendees {
                let address = answer.address.lowercased()
                if let k = current.event.attendees.firstIndex(where: { $0.address.lowercased() == address }) {
                    current.event.attendees[k].status = answer.status
                    if current.event.attendees[k].name == nil { current.event.attendees[k].name = answer.name }
                } else {
                    current.event.attendees.append(answer)
                }
            }
            current.updated = date
        }
        tracked[target] = current
    }
}
