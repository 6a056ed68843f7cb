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
    private let store = TextPattern(known: #"(?:取件|取貨|領貨|到店|配達)(?:門市|店舖|店鋪|店家|門市名稱)\s*[:：]?\s*(?<store>[^\s（(，,。；;\n]{1,24})"#)
    private let storeID = TextPattern(known: #"店號\s*[:：]?\s*(?<id>[0-9]{5,7})"#)
    /// What labels a pickup code: one of `codeLabelStarts` followed by one of `codeLabelEnds`
    /// (取件驗證碼, 取貨代碼), or a bare 驗證碼 (also a login's one-time code: a mail with no
    /// number and no status is not a parcel's, which ParcelDetector checks).
    static let codeLabelStarts = ["取件", "取貨", "領貨"]
    static let codeLabelEnds = ["驗證碼", "代碼", "序號", "號碼", "密碼", "碼"]
    static let bareCodeLabel = "驗證碼"
    private let code = TextPattern(known: "(?:(?:" + codeLabelStarts.joined(separator: "|") + ")(?:" + codeLabelEnds.joined(separator: "|") + ")|"
                                        + bareCodeLabel + #")\s*[:：為]?\s*(?<code>[0-9A-Za-z-]{4,16})"#)
    // A pickup deadline: after a pickup-deadline label, or in "請於 DATE 前取件"; a date the
    // same mail gives for something else ("請於 2026/04/20 前至會員中心申請" a refund) is not one.
    // DATE: 2026/03/09, 2026年3月9日, ROC 115/03/09 or 民國115年3月9日, or 03/09 and 3月9日
    // (in the year that puts it nearest the mail's date).
    private static let date = #"(?:(?:民國\s*)?(?<y>[0-9]{3,4})\s*[/.\-年]\s*(?<m>[0-9]{1,2})\s*[/.\-月]\s*(?<d>[0-9]{1,2})|(?<m2>[0-9]{1,2})\s*[/月]\s*(?<d2>[0-9]{1,2}))(?![0-9/])\s*日?"#
    private let labelled = TextPattern(known: #"(?:取件期限|取貨期限|領取期限|領貨期限|取件截止日?|取貨截止日?|保管期限|最後取件日|最後取貨日|取件時限)\s*(?:[:：為为]|至)?\s*"# + PickupReader.date)
    private let before = TextPattern(known: #"(?:請於|请于|請在)\s*"# + PickupReader.date + #"\s*(?:前|以前|之前)?[^，,。；;\n]{0,12}?(?:取件|取貨|領取|領貨|取货)"#)
    private let due = TextPattern(known: #"(?:取件|取貨|領取)[^。\n]{0,20}?將於\s*"# + PickupReader.date + #"\s*(?:到期|截止)"#)
    private let relative = TextPattern(known: #"請於\s*(?<n>[0-9]{1,2})\s*(?:日|天)內?[^，,。\n]{0,8}?(?:取件|取貨|領取)"#)

    func read(_ text: [UInt16], date: String?) -> Pickup? {
        /// The named groups of the pattern's first match, nil when it does not match.
        func first(_ p: TextPattern, _ names: String...) -> [String?]? {
            var out: [String?]?
            p.forEachMatch(in: text) { m in
                out = names.map { name in
                    p.group(named: name).flatMap { $0 < m.groups.count ? m.groups[$0] : nil }.map { String(decoding: text[$0], as: UTF16.self) }
                }
                return false
            }
            return out
        }
        var pickup = Pickup()
        pickup.store = first(store, "store")?[0]
        pickup.storeID = first(storeID, "id")?[0]
        pickup.code = first(code, "code")?[0]
        for p in [labelled, before, due] {
            guard let g = first(p, "y", "m", "d", "m2", "d2") else { continue }
            if let written = g[0], var y = Int(written), let m = Int(g[1] ?? ""), let d = Int(g[2] ?? "") {
                if written.count == 3 { y += 1911 }
                pickup.deadline = dateText(y, m, d)
            } else if let m = Int(g[3] ?? ""), let d = Int(g[4] ?? ""), let date {
                pickup.deadline = nearestDate(month: m, day: d, to: date)
            }
            if pickup.deadline != nil { break }
        }
        if pickup.deadline == nil, let n = Int(first(relative, "n")?[0] ?? ""), let date {
            pickup.deadline = taiwanDate(date, plusDays: n)
        }
        return pickup == Pickup() ? nil : pickup
    }
}

private func twoDigits(_ n: Int) -> String { n < 10 ? "0\(n)" : "\(n)" }

private func dateText(_ y: Int, _ m: Int, _ d: Int) -> String? {
    guard (1990...2100).contains(y), (1...12).contains(m), (1...31).contains(d) else { return nil }
    return String(y) + "-" + twoDigits(m) + "-" + twoDigits(d)
}

/// A month and day without a year: in the year that puts it nearest the message's date (in Taiwan).
func nearestDate(month: Int, day: Int, to rfc3339: String) -> String? {
    guard let today = taiwanDate(rfc3339, plusDays: 0).flatMap(CivilDate.days(dateText:)), (1...12).contains(month), (1...31).contains(day) else { return nil }
    let year = CivilDate.date(days: today).year
    let best = [year - 1, year, year + 1].map { CivilDate.days(year: $0, month: month, day: day) }.min { abs($0 - today) < abs($1 - today) }!
    return CivilDate.dateText(days: best)
}

/// The calendar date in Taiwan (UTC+8) `days` after an RFC 3339 UTC time.
func taiwanDate(_ rfc3339: String, plusDays days: Int) -> String? {
    let b = Array(rfc3339.utf8)
    guard b.count >= 13, let y = Int(String(decoding: b[0..<4], as: UTF8.self)), let m = Int(String(decoding: b[5..<7], as: UTF8.self)),
          let d = Int(String(decoding: b[8..<10], as: UTF8.self)), let h = Int(String(decoding: b[11..<13], as: UTF8.self)) else { return nil }
    let (yy, mm, dd) = CivilDate.date(days: CivilDate.days(year: y, month: m, day: d) + days + (h + 8 >= 24 ? 1 : 0))
    return String(yy) + "-" + twoDigits(mm) + "-" + twoDigits(dd)
}
