import CivilTime
import UnicodeServices

/// Where and until when a parcel waits at a Taiwan convenience store, when the mail says so.
public struct Pickup: Equatable, Sendable {
    public var store: String?
    public var storeID: String?
    public var code: String?
    /// A date, `YYYY-MM-DD`: as written, or the message's date (in Taiwan) plus the days given.
    public var deadline: String?
}

/// Reads the pickup lines of Taiwan's store-pickup notices: 取件門市：中山門市（店號 123456）,
/// 取件驗證碼：1234, 取件期限：2026/03/09 or 請於 7 日內取件.
final class PickupReader {
    private let store = try! TextPattern(#"(?:取件|取貨|領貨|到店|配達)(?:門市|店舖|店鋪|店家|門市名稱)\s*[:：]?\s*(?<store>[^\s（(，,。；;\n]{1,24})"#)
    private let storeID = try! TextPattern(#"店號\s*[:：]?\s*(?<id>[0-9]{5,7})"#)
    private let code = try! TextPattern(#"(?:取件|取貨|領貨)(?:驗證碼|代碼|序號|碼)\s*[:：]?\s*(?<code>[0-9A-Za-z-]{4,16})"#)
    private let absolute = try! TextPattern(#"(?:取件期限|取貨期限|取件截止日?|取貨截止日?|保管期限|最後取件日|請於)\s*[:：]?\s*(?<y>20[0-9]{2})\s*[/.\-年]\s*(?<m>[0-9]{1,2})\s*[/.\-月]\s*(?<d>[0-9]{1,2})"#)
    private let relative = try! TextPattern(#"請於\s*(?<n>[0-9]{1,2})\s*(?:日|天)內?[^，,。\n]{0,8}?(?:取件|取貨|領取)"#)

    func read(_ text: [UInt16], date: String?) -> Pickup? {
        /// The named groups of the pattern's first match, nil when it does not match.
        func first(_ p: TextPattern, _ names: String...) -> [String?]? {
            var out: [String?]?
            p.forEachMatch(in: text) { m in
                out = names.map { name in
                    p.group(named: name).flatMap { m.groups[$0] }.map { String(decoding: text[$0], as: UTF16.self) }
                }
                return false
            }
            return out
        }
        var pickup = Pickup()
        pickup.store = first(store, "store")?[0]
        pickup.storeID = first(storeID, "id")?[0]
        pickup.code = first(code, "code")?[0]
        if let ymd = first(absolute, "y", "m", "d"), let y = ymd[0], let m = Int(ymd[1] ?? ""), let d = Int(ymd[2] ?? "") {
            pickup.deadline = y + "-" + twoDigits(m) + "-" + twoDigits(d)
        } else if let n = Int(first(relative, "n")?[0] ?? ""), let date {
            pickup.deadline = taiwanDate(date, plusDays: n)
        }
        return pickup == Pickup() ? nil : pickup
    }
}

private func twoDigits(_ n: Int) -> String { n < 10 ? "0\(n)" : "\(n)" }

/// The calendar date in Taiwan (UTC+8) `days` after an RFC 3339 UTC time.
func taiwanDate(_ rfc3339: String, plusDays days: Int) -> String? {
    let b = Array(rfc3339.utf8)
    guard b.count >= 13, let y = Int(String(decoding: b[0..<4], as: UTF8.self)), let m = Int(String(decoding: b[5..<7], as: UTF8.self)),
          let d = Int(String(decoding: b[8..<10], as: UTF8.self)), let h = Int(String(decoding: b[11..<13], as: UTF8.self)) else { return nil }
    let (yy, mm, dd) = CivilDate.date(days: CivilDate.days(year: y, month: m, day: d) + days + (h + 8 >= 24 ? 1 : 0))
    return String(yy) + "-" + twoDigits(mm) + "-" + twoDigits(dd)
}
