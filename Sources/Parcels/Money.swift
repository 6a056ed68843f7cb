/// An amount of money as a notice writes it: `NT$1,280`, `£8.00`, `12,50 €`, `3,200円`, `USD 45.20`.
public struct Money: Equatable, Sendable {
    /// Hundredths of the currency's unit (1280 NT$ is 128000).
    public var hundredths: Int
    /// ISO 4217.
    public var currency: String

    public init(hundredths: Int, currency: String) {
        self.hundredths = hundredths
        self.currency = currency
    }

    /// The amount as a JSON number: `1280`, `8`, `45.2`.
    public var jsonNumber: String {
        let whole = hundredths / 100, cents = hundredths % 100
        if cents == 0 { return String(whole) }
        return String(whole) + "." + (cents % 10 == 0 ? String(cents / 10) : (cents < 10 ? "0" : "") + String(cents))
    }
}

/// The conventions of a mail's money: where its `$`, `¥` and `元` point.
struct MoneyContext {
    /// A Taiwanese mail (a .tw sender, Traditional Chinese text, NT$): `$` is TWD.
    var taiwanese = false
    /// A mainland Chinese mail (a .cn sender, Simplified Chinese text without kana): `¥` and `元` are CNY.
    var mainland = false
}

/// Reads amounts of money, by the signs and codes of `shipment-facts.json`.
final class MoneyReader {
    private let words: ShipmentFactWords
    /// Every sign, code and word of a currency, in ASCII lower case: the currency, or nil for
    /// the ones that depend on the mail.
    private let signs: [(sign: [UInt16], ascii: Bool, currency: String?)]
    /// The signs that depend on the mail: 0 a dollar, 1 a yen, 2 a yuan.
    private let signKind: [String: Int]

    init(words: ShipmentFactWords) {
        self.words = words
        var signs: [(String, String?)] = words.currencies.map { ($0.key, $0.value) }
        var kinds: [String: Int] = [:]
        for (k, list) in [words.dollarSigns, words.yenSigns, words.yuanWords].enumerated() {
            for s in list { signs.append((s, nil)); kinds[s] = k }
        }
        signKind = kinds
        self.signs = signs.map { (Array($0.0.utf16), $0.0.utf8.allSatisfy { $0 < 0x80 }, $0.1) }.sorted { $0.sign.count > $1.sign.count }
    }

    /// The conventions of a mail from `senderDomain` whose text is `text`.
    func context(text: [UInt16], senderDomain: String) -> MoneyContext {
        var c = MoneyContext()
        var hant = 0, hans = 0, kana = false
        for u in text where u >= 0x3040 {
            if u < 0x3100 { kana = true; continue }
            if words.hantCharacters.contains(u) { hant += 1 } else if words.hansCharacters.contains(u) { hans += 1 }
        }
        let lowered = asciiLowered(text)
        let ntd = lowered.indices.contains { i in i + 3 <= lowered.count && lowered[i] == 0x6E && lowered[i + 1] == 0x74 && lowered[i + 2] == 0x24 }
        c.taiwanese = senderDomain.hasSuffix(".tw") || hant > hans || ntd
        c.mainland = !c.taiwanese && !kana && (senderDomain.hasSuffix(".cn") || hans > hant)
        return c
    }

    /// The first amount in `lowered[range]` (ASCII-lowercased text): (the money, where it is written).
    func first(in lowered: [UInt16], _ range: Range<Int>, context: MoneyContext) -> (money: Money, range: Range<Int>)? {
        var i = range.lowerBound
        while i < range.upperBound {
            if let found = amount(at: i, in: lowered, end: range.upperBound, context: context) { return found }
            i += 1
        }
        return nil
    }

    /// An amount that starts at `i`: a sign then a number, or a number then a sign.
    private func amount(at i: Int, in t: [UInt16], end: Int, context: MoneyContext) -> (money: Money, range: Range<Int>)? {
        if let (sign, currency) = sign(at: i, in: t, end: end) {
            var j = sign.upperBound
            while j < end && (t[j] == 0x20 || t[j] == 0xA0 || t[j] == 0x3000) && j - sign.upperBound < 2 { j += 1 }
            if let (digits, after) = number(at: j, in: t, end: end), let code = currency ?? resolve(sign, in: t, context),
               let value = Self.hundredths(digits, currency: code) {
                return (Money(hundredths: value, currency: code), i..<after)
            }
            return nil
        }
        guard t[i] &- 0x30 < 10, i == 0 || !(t[i - 1] &- 0x30 < 10 || t[i - 1] == 0x2C || t[i - 1] == 0x2E || isWordCharacter(t[i - 1])) else { return nil }
        guard let (digits, after) = number(at: i, in: t, end: end) else { return nil }
        var j = after
        while j < end && (t[j] == 0x20 || t[j] == 0xA0 || t[j] == 0x3000) && j - after < 2 { j += 1 }
        guard let (sign, currency) = sign(at: j, in: t, end: end), let code = currency ?? resolve(sign, in: t, context),
              let value = Self.hundredths(digits, currency: code) else { return nil }
        return (Money(hundredths: value, currency: code), i..<sign.upperBound)
    }

    private func sign(at i: Int, in t: [UInt16], end: Int) -> (Range<Int>, String?)? {
        for s in signs where i + s.sign.count <= end && t[i..<(i + s.sign.count)].elementsEqual(s.sign) {
            if s.ascii && s.sign.allSatisfy({ ($0 | 0x20) &- 0x61 < 26 }) {
                // a code (USD, NTD) is a word of its own
                if i > 0 && isWordCharacter(t[i - 1]) { continue }
                if i + s.sign.count < t.count && ((t[i + s.sign.count] | 0x20) &- 0x61 < 26) { continue }
            }
            return (i..<(i + s.sign.count), s.currency)
        }
        return nil
    }

    private func resolve(_ sign: Range<Int>, in t: [UInt16], _ context: MoneyContext) -> String? {
        switch signKind[String(decoding: t[sign], as: UTF16.self)] {
        case 0: return context.taiwanese ? "TWD" : "USD"
        case 1: return context.mainland ? "CNY" : "JPY"
        case 2: return context.mainland ? "CNY" : "TWD"
        default: return nil
        }
    }

    /// The digits, commas and points of a number at `i`, and where it ends.
    private func number(at i: Int, in t: [UInt16], end: Int) -> ([UInt16], Int)? {
        guard i < end, t[i] &- 0x30 < 10 else { return nil }
        var j = i
        while j < end && (t[j] &- 0x30 < 10 || ((t[j] == 0x2C || t[j] == 0x2E || t[j] == 0xFF0C) && j + 1 < end && t[j + 1] &- 0x30 < 10)) { j += 1 }
        guard j - i <= 16 else { return nil }
        return (t[i..<j].map { $0 == 0xFF0C ? 0x2C : $0 }, j)
    }

    /// "1,280" → 128000; "12,50" (a decimal comma) → 1250; "1.234,56" → 123456. A separator
    /// followed by three digits groups thousands, by one or two a fraction.
    static func hundredths(_ digits: [UInt16], currency: String) -> Int? {
        var whole: [UInt16] = digits, fraction: [UInt16] = []
        if let last = digits.lastIndex(where: { $0 == 0x2C || $0 == 0x2E }) {
            let after = digits.count - last - 1
            if after == 1 || after == 2 {
                whole = Array(digits[..<last])
                fraction = Array(digits[(last + 1)...])
            }
        }
        let wholeDigits = whole.filter { $0 &- 0x30 < 10 }
        guard !wholeDigits.isEmpty, wholeDigits.count <= 12, let w = Int(String(decoding: wholeDigits, as: UTF16.self)) else { return nil }
        var f = fraction.isEmpty ? 0 : Int(String(decoding: fraction, as: UTF16.self)) ?? 0
        if fraction.count == 1 { f *= 10 }
        return w * 100 + f
    }
}
