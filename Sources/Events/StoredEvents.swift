import JSONLines

/// event-group's merge for a store that keeps each message's events and derives the calendar
/// one event at a time (mailstore): which events depend on each other, and what they come to.
public enum StoredEvents {
    /// The events that must be merged together: everything said about one iCalendar UID (its
    /// series, changed occurrences, replies and cancellations), one sender's appointments read
    /// from text (a mail may move or cancel any of them), else the event itself.
    public static func group(of e: Event, messageID: String, sender: String?) -> String {
        if e.source == "icalendar", let uid = e.uid { return "uid\u{0}" + uid }
        if e.source == "text" { return EventStore.textSenderKey(e, messageID: messageID, sender: sender) }
        return EventStore.key(e, messageID: messageID, sender: sender)
    }

    /// An event of the calendar: event-group's record of it, and what it is listed by.
    public struct Derived {
        public var record: [UInt8]
        public var sortKey: String
        public var tracked: EventStore.Tracked
    }

    /// The events one group's mail comes to, applied as event-group applies them. `mail` must
    /// hold all of the group's events.
    public static func derive(_ mail: [EventMail]) -> [Derived] {
        EventStore(applying: mail).events.map {
            Derived(record: EventGroup.json($0, occurrence: nil), sortKey: EventGroup.sortKey($0), tracked: $0)
        }
    }

    /// An event back from event-group's record of it.
    public static func tracked(record v: JSONValue) -> EventStore.Tracked? {
        guard let e = Event(json: v) else { return nil }
        return EventStore.Tracked(event: e, messageIDs: v["message_ids"]?.arrayValue?.compactMap(\.stringValue) ?? [],
                                  updated: v["updated"]?.stringValue, conversationID: v["conversation_id"]?.stringValue)
    }

    /// event-group's records of the occurrences of `events` in `window` (read in `zone`).
    public static func occurrences(of events: [EventStore.Tracked], in window: Range<Int>, zone: String) -> [[UInt8]] {
        var group = EventGroup()
        group.zone = zone
        group.window = window
        let sorted = events.sorted { EventGroup.sortKey($0) < EventGroup.sortKey($1) }
        return group.occurrences(of: sorted, in: window).map { EventGroup.json($0.tracked, occurrence: $0) }
    }
}
