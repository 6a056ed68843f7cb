import CivilTime
import ICalendar

/// Instants as the wall clock of one time zone shows them. The zone's offset is asked of
/// libical once per quarter hour of UTC (offsets change on quarter hours), so a mailbox of a
/// million messages asks it far fewer times.
public struct LocalClock {
    public let zone: String
    private var offsets: [Int: Int] = [:]

    public init?(zone: String) {
        guard ICalendarReader.isKnownZone(zone) else { return nil }
        self.zone = zone
    }

    /// The local day number (days since 1970-01-01) and seconds since local midnight.
    public mutating func local(_ epoch: Int) -> (days: Int, seconds: Int) {
        let quarter = epoch >= 0 ? epoch / 900 : (epoch - 899) / 900
        let offset: Int
        if let known = offsets[quarter] {
            offset = known
        } else {
            if let t = ICalTime.local(epoch: epoch, zone: zone) {
                offset = CivilDate.days(year: t.year, month: t.month, day: t.day) * 86400 + t.hour * 3600 + t.minute * 60 + t.second - epoch
            } else {
                offset = 0
            }
            if offsets.count > 1 << 20 { offsets.removeAll() }
            offsets[quarter] = offset
        }
        return CivilDate.split(epoch + offset)
    }

    static let weekdays = ["Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat"]
    static let months = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]

    /// "Tue 10 Mar 2026": a day as a separator between a conversation's days shows it.
    public static func dayText(days: Int) -> String {
        let (y, m, d) = CivilDate.date(days: days)
        return "\(weekdays[((days % 7) + 11) % 7]) \(d) \(months[m - 1]) \(y)"
    }

    /// "10 Mar 2026".
    public static func shortDayText(days: Int) -> String {
        let (y, m, d) = CivilDate.date(days: days)
        return "\(d) \(months[m - 1]) \(y)"
    }

    /// "09:05".
    public static func clockText(seconds: Int) -> String {
        let h = seconds / 3600, m = seconds % 3600 / 60
        return (h < 10 ? "0" : "") + String(h) + ":" + (m < 10 ? "0" : "") + String(m)
    }
}
