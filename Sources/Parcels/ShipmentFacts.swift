import CivilTime
import JSONLines
import UTF8Text
import UnicodeServices

/// What a notice says beyond its parcel's number and status: duty to pay, an amount to pay on
/// delivery, the shop's order number and the shop (see carrier-detect(1)).
public struct ShipmentFacts: Equatable, Sendable {
    /// A customs or duty notice: what to pay (nil when not stated) and by when.
    public struct Customs: Equatable, Sendable {
        public var amount: Money?
        /// `YYYY-MM-DD`.
        public var payBy: String?
    }

    public var customs: Customs?
    public var cashOnDelivery: Money?
    public var orderNumber: String?
    public var shop: String?

    public init() {}
}

/// Reads a notice's customs, cash on delivery, order number and shop by the words of
/// `shipment-facts.json`.
final class ShipmentFactReader {
    let words: ShipmentFactWords
    let money: MoneyReader
    private let customsWords, customsHold, customsFee, payBy, cod, codNot, paymentMethod, total, notShop: WordFinder
    private let orderLabels: WordFinder
    private let monthNames: WordFinder

    /// The carriers' names and sender domains: a carrier's mail names no shop.
    private let carrierNames: WordFinder
    private let carrierDomains: [String]
    private let shopWords: WordFinder

    init(words: ShipmentFactWords, specs: CarrierSpecs) {
        self.words = words
        carrierNames = WordFinder(specs.words.values.flatMap { $0 })
        carrierDomains = specs.senderDomains.values.flatMap { $0 }
        shopWords = WordFinder(words.shopWords)
        money = MoneyReader(words: words)
        customsWords = WordFinder(words.customs)
        customsHold = WordFinder(words.customsHold)
        customsFee = WordFinder(words.customsFee)
        payBy = WordFinder(words.payBy)
        cod = WordFinder(words.cashOnDelivery)
        codNot = WordFinder(words.cashOnDeliveryNot)
        paymentMethod = WordFinder(words.paymentMethod)
        total = WordFinder(words.total)
        notShop = WordFinder(words.notShopWords)
        orderLabels = WordFinder(words.orderNumber)
        monthNames = WordFinder(words.months.map(\.name))
    }

    /// `senderName` and `senderDomain`: the mail's sender, or the forwarded notice's.
    func read(_ text: [UInt16], lowered: [UInt16], date: String?, senderName: String?, senderDomain: String) -> ShipmentFacts {
        // the mail's conventions for $, ¥ and 元, read only when it has something to pay
        let paying = customsWords.contains(in: lowered) || cod.contains(in: lowered)
        let context = paying ? money.context(text: text, senderDomain: senderDomain) : MoneyContext()
        var facts = ShipmentFacts()
        facts.customs = customs(lowered, date: date, context: context)
        facts.cashOnDelivery = cashOnDelivery(lowered, context: context)
        facts.orderNumber = orderNumber(text, lowered)
        facts.shop = shop(text, senderName: senderName, senderDomain: senderDomain)
        return facts
    }

    // MARK: customs

    /// A notice that names customs and asks for duty (an amount on a line with a fee word, after
    /// it, within 60 characters) or says the parcel is held there; the first date within 40
    /// characters after a pay-by word, on its line.
    private func customs(_ t: [UInt16], date: String?, context: MoneyContext) -> ShipmentFacts.Customs? {
        guard customsWords.contains(in: t) else { return nil }
        var amount: Money?
        for fee in customsFee.occurrences(in: t) {
            if let found = money.first(in: t, fee.range.upperBound..<lineEnd(t, from: fee.range.upperBound, limit: 60), context: context) {
                amount = found.money
                break
            }
        }
        guard amount != nil || customsHold.contains(in: t) else { return nil }
        var payBy: String?
        for word in self.payBy.occurrences(in: t) {
            let end = lineEnd(t, from: word.range.upperBound, limit: 40)
            if let d = firstDate(t, word.range.upperBound..<end, mailDate: date, currency: amount?.currency) {
                payBy = d
                break
            }
        }
        return ShipmentFacts.Customs(amount: amount, payBy: payBy)
    }

    // MARK: cash on delivery

    /// An amount right after a cash-on-delivery word on its line (nothing between that says it
    /// is a threshold or a fee: 貨到付款滿 NT$499 免運); else, when the payment method is cash
    /// on delivery alone (付款方式：貨到付款), the total to pay.
    private func cashOnDelivery(_ t: [UInt16], context: MoneyContext) -> Money? {
        let places = cod.occurrences(in: t)
        guard !places.isEmpty else { return nil }
        for place in places {
            let end = lineEnd(t, from: place.range.upperBound, limit: 24)
            guard let found = money.first(in: t, place.range.upperBound..<end, context: context) else { continue }
            if codNot.first(in: t, from: place.range.upperBound, to: found.range.lowerBound) != nil { continue }
            return found.money
        }
        let starts = Dictionary(places.map { ($0.range.lowerBound, $0.range.upperBound) }, uniquingKeysWith: { a, _ in a })
        let codAlone = paymentMethod.occurrences(in: t).contains { method in
            var i = method.range.upperBound
            while i < t.count && i - method.range.upperBound < 4 && isFillerBeforeValue(t[i]) { i += 1 }
            guard let end = starts[i] else { return false }
            let rest = t[end..<lineEnd(t, from: end, limit: 24)].drop { isFillerBeforeValue($0) }
            return rest.isEmpty || rest.first == 0x28 || rest.first == 0xFF08
        }
        guard codAlone else { return nil }
        for label in total.occurrences(in: t) {
            let end = lineEnd(t, from: label.range.upperBound, limit: 40)
            if let found = money.first(in: t, label.range.upperBound..<end, context: context) { return found.money }
        }
        return nil
    }

    // MARK: order number

    /// The first token with three digits or more right after an order-number word: `訂單編號：GY2026…`,
    /// `Order #MP-10442`, `ご注文番号：SZ-240417-009`.
    private func orderNumber(_ text: [UInt16], _ t: [UInt16]) -> String? {
        for label in orderLabels.occurrences(in: t) {
            var i = label.range.upperBound
            var skipped = 0
            while i < t.count && skipped < 4 && (isFillerBeforeValue(t[i]) || t[i] == 0x23 || t[i] == 0xFF03 || t[i] == 0x662F) {
                i += 1
                skipped += 1
            }
            var j = i
            while j < t.count && j - i < 40 && (isASCIIAlnumUnit(t[j]) || ((t[j] == 0x2D || t[j] == 0x5F) && j + 1 < t.count && isASCIIAlnumUnit(t[j + 1]))) { j += 1 }
            guard j - i >= 3, j - i < 40, t[i..<j].lazy.filter({ $0 &- 0x30 < 10 }).count >= 3 else { continue }
            return String(decoding: text[i..<j], as: UTF16.self)
        }
        return nil
    }

    // MARK: shop

    /// The shop named in a 【】 or 「」 bracket of the subject (the first line), else the sender's
    /// display name, when neither is a carrier's, a notice's or a person's (a free mail address).
    private func shop(_ text: [UInt16], senderName: String?, senderDomain: String) -> String? {
        let subject = text[..<(text.firstIndex(of: 0x0A) ?? text.count)]
        var i = subject.startIndex
        while i < subject.endIndex {
            let open = subject[i]
            guard open == 0x3010 || open == 0x300C, let close = subject[(i + 1)...].firstIndex(of: open == 0x3010 ? 0x3011 : 0x300D) else { i += 1; continue }
            let name = cleanShopName(String(decoding: subject[(i + 1)..<close], as: UTF16.self))
            if let name { return name }
            i = close + 1
        }
        var domain = senderDomain, senderName = senderName
        // a From header read as one name ("蝦皮購物 <info@mail.shopee.tw>"): its name and domain
        if let written = senderName, let open = written.firstIndex(of: "<"), let at = written[open...].firstIndex(of: "@"),
           let close = written[at...].firstIndex(of: ">") {
            senderName = String(written[..<open])
            if domain.isEmpty { domain = ASCII.lowercased(String(written[written.index(after: at)..<close])) }
        }
        guard let senderName, let name = cleanShopName(senderName),
              !words.freemailDomains.contains(where: { LinkHost.host(domain, isWithin: $0) }) else { return nil }
        // a carrier's own mail names no shop, unless the carrier is a shop too (momo, Amazon)
        if words.shopSenderDomains.contains(where: { LinkHost.host(domain, isWithin: $0) }) { return name }
        let lowered = Array(ASCII.lowercased(name).utf16)
        if shopWords.contains(in: lowered) { return name }
        if carrierDomains.contains(where: { LinkHost.host(domain, isWithin: $0) }) || carrierNames.contains(in: lowered) { return nil }
        return name
    }

    private func cleanShopName(_ written: String) -> String? {
        var name = written.trimmingSpaces
        for suffix in words.shopNameSuffixes {
            if ASCII.lowercased(name).hasSuffix(suffix), name.count > suffix.count {
                name = String(name.dropLast(suffix.count)).trimmingSpaces
            }
        }
        let lowered = Array(ASCII.lowercased(name).utf16)
        guard !name.isEmpty, name.count <= 40, !name.contains("@"), !notShop.contains(in: lowered),
              !words.notShopEndings.contains(where: { name.hasSuffix($0) }) else { return nil }
        return name
    }

    // MARK: dates

    /// The first date written in `t[range]`: 2026-04-29, 2026/04/29, ROC 115/04/29, 2026年4月25日,
    /// 4月25日, 20.04.2026, 14 March 2026, April 28, 2026, 14/03/2026 (day first unless the money
    /// is dollars, or a part is over 12). A date without a year is the one nearest the mail's date.
    func firstDate(_ t: [UInt16], _ range: Range<Int>, mailDate: String?, currency: String?) -> String? {
        var i = range.lowerBound
        while i < range.upperBound {
            if t[i] &- 0x30 < 10 && (i == 0 || !(t[i - 1] &- 0x30 < 10)) {
                if let d = numericDate(t, at: i, end: range.upperBound, mailDate: mailDate, currency: currency) { return d }
            }
            if let m = monthNames.occurrences(in: t, from: i, to: min(range.upperBound, i + 12)).first, m.range.lowerBound == i {
                // Month D[, YYYY]
                let month = words.months[m.index].month
                var j = m.range.upperBound
                if j < t.count && t[j] == 0x2E { j += 1 }
                while j < range.upperBound && t[j] == 0x20 { j += 1 }
                if let (d, after) = digits(t, j, max: 2) {
                    var k = after
                    while k < range.upperBound && (t[k] == 0x2C || t[k] == 0x20 || (t[k] | 0x20) == 0x73 || (t[k] | 0x20) == 0x74 || (t[k] | 0x20) == 0x6E || (t[k] | 0x20) == 0x64 || (t[k] | 0x20) == 0x68) && k - after < 4 { k += 1 }
                    let year = digits(t, k, max: 4).flatMap { $0.0 >= 1000 ? $0.0 : nil }
                    if let s = dated(year, month, d, mailDate) { return s }
                }
            }
            i += 1
        }
        return nil
    }

    private func numericDate(_ t: [UInt16], at i: Int, end: Int, mailDate: String?, currency: String?) -> String? {
        guard let (a, afterA) = digits(t, i, max: 4) else { return nil }
        let lengthA = afterA - i
        guard afterA < end else { return nil }
        let sep = t[afterA]
        // 2026年4月25日, 4月25日
        if sep == 0x5E74, let (m, afterM) = digits(t, afterA + 1, max: 2), afterM < t.count, t[afterM] == 0x6708, let (d, _) = digits(t, afterM + 1, max: 2) {
            return dated(lengthA == 3 ? a + 1911 : a, m, d, mailDate)
        }
        if sep == 0x6708, lengthA <= 2, let (d, _) = digits(t, afterA + 1, max: 2) { return dated(nil, a, d, mailDate) }
        guard sep == 0x2D || sep == 0x2F || sep == 0x2E, let (b, afterB) = digits(t, afterA + 1, max: 2) else {
            // 14 March 2026
            if lengthA <= 2, sep == 0x20 || sep == 0x2E {
                var j = afterA + 1
                while j < end && t[j] == 0x20 { j += 1 }
                if let m = monthNames.occurrences(in: t, from: j, to: min(end, j + 12)).first, m.range.lowerBound == j {
                    var k = m.range.upperBound
                    while k < t.count && (t[k] == 0x20 || t[k] == 0x2E || t[k] == 0x2C) && k - m.range.upperBound < 3 { k += 1 }
                    let year = digits(t, k, max: 4).flatMap { $0.0 >= 1000 ? $0.0 : nil }
                    return dated(year, words.months[m.index].month, a, mailDate)
                }
            }
            return nil
        }
        if lengthA >= 3 {
            // 2026-04-29, 2026/04/29, ROC 115/04/29
            guard afterB < t.count, t[afterB] == sep, let (c, _) = digits(t, afterB + 1, max: 2) else { return nil }
            return dated(lengthA == 3 ? a + 1911 : a, b, c, mailDate)
        }
        guard afterB < t.count, t[afterB] == sep, let (y, afterY) = digits(t, afterB + 1, max: 4), afterY - afterB - 1 == 4 else {
            return nil
        }
        // D.M.Y; D/M/Y or M/D/Y
        if sep == 0x2E || a > 12 { return dated(y, b, a, mailDate) }
        if b > 12 { return dated(y, a, b, mailDate) }
        return currency == "USD" ? dated(y, a, b, mailDate) : dated(y, b, a, mailDate)
    }

    private func digits(_ t: [UInt16], _ i: Int, max: Int) -> (Int, Int)? {
        var j = i
        while j < t.count && t[j] &- 0x30 < 10 && j - i < max + 1 { j += 1 }
        guard j > i, j - i <= max else { return nil }
        return (Int(String(decoding: t[i..<j], as: UTF16.self))!, j)
    }

    private func dated(_ year: Int?, _ month: Int, _ day: Int, _ mailDate: String?) -> String? {
        guard (1...12).contains(month), (1...31).contains(day) else { return nil }
        if let year {
            guard (1990...2100).contains(year) else { return nil }
            return CivilDate.dateText(days: CivilDate.days(year: year, month: month, day: day))
        }
        return mailDate.flatMap { nearestDate(month: month, day: day, to: $0) }
    }
}

@inline(__always) private func isASCIIAlnumUnit(_ c: UInt16) -> Bool { (c | 0x20) &- 0x61 < 26 || c &- 0x30 < 10 }

/// What stands between a label and its value: spaces, colons, `=`, `為`.
@inline(__always) func isFillerBeforeValue(_ c: UInt16) -> Bool {
    c == 0x20 || c == 0x09 || c == 0x3A || c == 0xFF1A || c == 0x3000 || c == 0xA0 || c == 0x3D || c == 0x70BA || c == 0x4E3A
}

extension String {
    var trimmingSpaces: String {
        String(self.drop { $0.isWhitespace }.reversed().drop { $0.isWhitespace }.reversed())
    }
}

extension Money {
    /// `{"amount": 1280, "currency": "TWD"}`.
    func write(into w: inout JSONWriter) {
        w.beginObject()
        w.key("amount")
        w.raw(Array(jsonNumber.utf8))
        w.field("currency", currency)
        w.endObject()
    }
}

extension ShipmentFacts {
    /// Its members, each written (null when not stated): `customs`, `cash_on_delivery`,
    /// `order_number`, `shop`.
    func write(into w: inout JSONWriter) {
        w.key("customs")
        if let c = customs {
            w.beginObject()
            w.key("amount")
            if let a = c.amount { w.raw(Array(a.jsonNumber.utf8)) } else { w.null() }
            w.field("currency", c.amount?.currency)
            w.field("pay_by", c.payBy)
            w.endObject()
        } else {
            w.null()
        }
        w.key("cash_on_delivery")
        if let m = cashOnDelivery { m.write(into: &w) } else { w.null() }
        w.field("order_number", orderNumber)
        w.field("shop", shop)
    }
}
