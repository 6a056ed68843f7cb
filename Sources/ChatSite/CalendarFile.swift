import Events
import Hashing

/// The site's calendar as a file a phone's calendar subscribes to: `calendar.ics` at the site's
/// root, written with the calendar's pages (EventGroup.publishedCalendar).
enum CalendarFile {
    static let name = "calendar.ics"
    static let productID = "-//mailpipe//chat-render//EN"

    static func bytes(_ calendar: [EventStore.Tracked]) -> [UInt8] {
        Array(EventGroup.publishedCalendar(calendar, productID: productID, uid: uid).utf8)
    }

    /// A UID for an event that has none, the same at every render: from the first mail about it
    /// and what it is (a later mail that moves or cancels a booking keeps it).
    static func uid(_ t: EventStore.Tracked) -> String {
        let e = t.event
        let key = [e.source, t.messageIDs.first ?? "", e.summary ?? "", t.messageIDs.isEmpty ? e.start ?? e.startLocal ?? "" : ""]
        return SHA256.hex(Array(key.joined(separator: "\u{0}").utf8)).prefix(32) + "@mailpipe"
    }
}
