import CivilTime
import UnicodeServices

/// Where and until when a parcel waits at a Taiwan convenience store, when the mail says so.
public struct Pickup: Equatable, Sendable {
    public var store: String?
    /// The store's address, when the mail gives it.
    public var address: String?
    public var storeID: String?
    public var code: String?
    /// A date, `YYYY-MM-DD`: as written, or the message's date (in Taiwan) plus the days given.
    public var deadline: String?
}

/// Reads the pickup lines of Taiwan's store-pickup notices: 取件門市：中山門市（店號 123456）,
/// 取件驗證碼：1234, 取件期限：2026/03/09 or 請於 7 日內取件; the store also from running text
/// (已送達 7-ELEVEN 福美門市, 您的包裹已到 全家 中和福美店) and its address (門市地址：…), by the
/// words of `shipment-facts.json`.
final class PickupReader {
    private let stores: StoreReader
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

    init(words: ShipmentFactWords = .builtIn) {
        stores = StoreReader(words: words)
    }

    /// `lowered`: the text in ASCII lower case, when the caller has it.
    func read(_ text: [UInt16], lowered: [UInt16]? = nil, date: String?) -> Pickup? {
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
        let lowered = lowered ?? asciiLowered(text)
        pickup.store = stores.store(text, lowered)
        pickup.address = stores.address(text, lowered, storeKnown: pickup.store != nil)
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

/// A pickup store's name and address: after a store label (取件門市：, Pickup store:), else
/// a chain's name and a branch's in running text (7-ELEVEN 福美門市, 全家 中和福美店, OK mart 永和中正店).
/// What follows a label is no store when it greets (the "Hi jennyhughes_tw" or "周郁婷 您好" a
/// label left empty meets on the next line), holds an address's `@` or `_`, or has no letter.
final class StoreReader {
    private let words: ShipmentFactWords
    private let labels, chains, endings, storeAddressLabels, addressLabels, notAddressBefore, greetings: WordFinder

    init(words: ShipmentFactWords) {
        self.words = words
        labels = WordFinder(words.storeLabels)
        chains = WordFinder(words.storeChains)
        endings = WordFinder(words.storeNameEndings)
        storeAddressLabels = WordFinder(words.storeAddressLabels)
        addressLabels = WordFinder(words.addressLabels)
        notAddressBefore = WordFinder(words.notAddressBefore)
        greetings = WordFinder(words.greetings)
    }

    func store(_ text: [UInt16], _ lowered: [UInt16]) -> String? {
        for label in labels.occurrences(in: lowered) {
            guard let value = value(after: label.range.upperBound, text, lowered, cutAtStoreID: true), isStoreName(value, lowered) else { continue }
            return String(decoding: text[value], as: UTF16.self)
        }
        for chain in chains.occurrences(in: lowered) {
            if let name = branch(after: chain.range, lowered) { return String(decoding: text[chain.range.lowerBound..<name], as: UTF16.self) }
        }
        return nil
    }

    /// The address after a store-address label (門市地址：), or after a bare one (地址：) when the
    /// store is known and no word before it says whose (收件地址 is the customer's).
    func address(_ text: [UInt16], _ lowered: [UInt16], storeKnown: Bool) -> String? {
        var found = storeAddressLabels.occurrences(in: lowered).map(\.range)
        if storeKnown {
            found += addressLabels.occurrences(in: lowered).map(\.range).filter { r in
                !notAddressBefore.occurrences(in: lowered, from: max(0, r.lowerBound - 10), to: r.lowerBound).contains { $0.range.upperBound == r.lowerBound }
                    && !storeAddressLabels.occurrences(in: lowered, from: max(0, r.lowerBound - 8), to: r.upperBound).contains { $0.range.upperBound == r.upperBound }
            }
        }
        for r in found.sorted(by: { $0.lowerBound < $1.lowerBound }) {
            guard let value = value(after: r.upperBound, text, lowered, cutAtStoreID: false), value.count >= 4,
                  lowered[value].contains(where: { $0 &- 0x30 < 10 || $0 >= 0x3400 }) else { continue }
            return String(decoding: text[value], as: UTF16.self)
        }
        return nil
    }

    /// What a label labels: the rest of its line (or the next line when its own is empty) up to
    /// a bracket or a sentence's end, spaces trimmed.
    private func value(after start: Int, _ text: [UInt16], _ lowered: [UInt16], cutAtStoreID: Bool) -> Range<Int>? {
        var i = start
        while i < text.count && isFillerBeforeValue(text[i]) { i += 1 }
        if i < text.count && text[i] == 0x0A {
            i += 1
            while i < text.count && isFillerBeforeValue(text[i]) { i += 1 }
        }
        var end = i
        let stops: Set<UInt16> = [0x0A, 0x28, 0xFF08, 0x3002, 0xFF1B, 0x3B, 0x7C, 0x09, 0xFF0C, 0x3001]
        while end < text.count && end - i < 80 && !stops.contains(text[end]) && !(text[end] == 0x20 && end + 1 < text.count && text[end + 1] == 0x20) {
            // a store's name ends at a comma; an address has them (No. 12, Fumei Rd.)
            if cutAtStoreID && (text[end] == 0x2C || text[end] == 0x3A || text[end] == 0xFF1A) { break }
            if cutAtStoreID && text[end] == 0x5E97 && end + 1 < text.count && text[end + 1] == 0x865F { break }  // 店號
            end += 1
        }
        while end > i && (text[end - 1] == 0x20 || text[end - 1] == 0x3000 || text[end - 1] == 0x2E && cutAtStoreID) { end -= 1 }
        return end > i ? i..<end : nil
    }

    private func isStoreName(_ r: Range<Int>, _ lowered: [UInt16]) -> Bool {
        let v = lowered[r]
        guard r.count <= 40, !v.contains(0x40), !v.contains(0x5F), v.contains(where: { ($0 | 0x20) &- 0x61 < 26 || $0 >= 0x3040 }) else { return false }
        // "Hi jennyhughes_tw", and Chinese and Japanese greet after the name: "周郁婷 您好"
        return !greetings.occurrences(in: lowered, from: r.lowerBound, to: r.upperBound).contains {
            $0.range.lowerBound == r.lowerBound || $0.range.upperBound == r.upperBound
        }
    }

    /// The end of a branch's name after a chain's (福美門市 after 7-ELEVEN): at most twelve
    /// letters without a space, then one of `store_name_endings`; not a name of no branch
    /// (全家便利商店, 店到店).
    private func branch(after chain: Range<Int>, _ lowered: [UInt16]) -> Int? {
        var start = chain.upperBound
        if start < lowered.count && (lowered[start] == 0x20 || lowered[start] == 0x3000) { start += 1 }
        var k = start + 1
        while k <= min(lowered.count - 1, start + 14) {
            let c = lowered[k - 1]
            guard isWordCharacter(c) || (c >= 0x3040 && c < 0xA000) else { return nil }
            if let ending = endings.occurrences(in: lowered, from: k, to: min(lowered.count, k + 2)).first, ending.range.lowerBound == k {
                let name = Array(lowered[start..<ending.range.upperBound])
                let endingStart = k - start
                // a word of no branch anywhere in the name, but for the ending itself (福美門市)
                for word in words.notStoreNames.map({ Array($0.utf16) }) where !word.isEmpty && word.count <= name.count {
                    for p in 0...(name.count - word.count) where name[p..<(p + word.count)].elementsEqual(word) && !(p == endingStart && p + word.count == name.count) {
                        return nil
                    }
                }
                return ending.range.upperBound
            }
            k += 1
        }
        return nil
    }
}
