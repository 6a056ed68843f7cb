import CivilTime
import ICalendar

/// Instants as the wall clock of one time zone shows them. The zone's offset is asked of
/// libical for the first and last second of each UTC day: when they agree (every day but the
/// few a zone changes its offset on) the day is known; on the others, once per quarter hour
/// (offsets change on quarter hours). A mailbox of years asks it a few thousand times.
public struct LocalClock {
    public let zone: String
    private var dayOffsets: [Int: Int] = [:]
    private var quarterOffsets: [Int: Int] = [:]
    private static let changesThatDay = Int.min

    public init?(zone: String) {
        guard ICalendarReader.isKnownZone(zone) else { return nil }
        self.zone = zone
    }

    /// The local day number (days since 1970-01-01) and seconds since local midnight.
    public mutating func local(_ epoch: Int) -> (days: Int, seconds: Int) {
        let day = epoch >= 0 ? epoch / 86400 : (epoch - 86399) / 86400
        if dayOffsets[day] == nil {
            let first = offsetAt(day * 86400), last = offsetAt(day * 86400 + 86399)
            if dayOffsets.count > 1 << 20 { dayOffsets.removeAll() }
            dayOffsets[day] = first == last ? first : Self.changesThatDay
        }
        var offset = dayOffsets[day]!
        if offset == Self.changesThatDay {
            let quarter = epoch >= 0 ? epoch / 900 : (epoch - 899) / 900
            if let known = quarterOffsets[quarter] {
                offset = known
            } else {
                offset = offsetAt(epoch)
                quarterOffsets[quarter] = offset
            }
        }
        return CivilDate.split(epoch + offset)
    }

    private func offsetAt(_ epoch: Int) -> Int {
        guard let t = ICalTime.local(epoch: epoch, zone: zone) else { return 0 }
        return CivilDate.days(year: t.year, month: t.month, day: t.day) * 86400 + t.hour * 3600 + t.minute * 60 + t.second - epoch
    }
}
