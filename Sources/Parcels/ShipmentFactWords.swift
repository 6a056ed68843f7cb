import JSONLines
import UnixFilter
import UTF8Text

/// The words carrier-detect reads a notice's other facts by (`shipment-facts.json`: money, customs,
/// cash on delivery, order numbers, shops, pickup stores and their addresses): built in,
/// extended by the user's files of the same shape. Every word is kept in ASCII lower case.
public struct ShipmentFactWords: ExtensibleData, Sendable {
    var currencies: [String: String] = [:]
    var dollarSigns: [String] = []
    var yenSigns: [String] = []
    var yuanWords: [String] = []
    var hantCharacters: Set<UInt16> = []
    var hansCharacters: Set<UInt16> = []
    /// Month names by month (1 = January).
    var months: [(name: String, month: Int)] = []
    var customs: [String] = []
    var customsHold: [String] = []
    var customsFee: [String] = []
    var payBy: [String] = []
    var cashOnDelivery: [String] = []
    var cashOnDeliveryNot: [String] = []
    var paymentMethod: [String] = []
    var total: [String] = []
    var orderNumber: [String] = []
    var storeLabels: [String] = []
    var storeChains: [String] = []
    var storeNameEndings: [String] = []
    var notStoreNames: [String] = []
    var greetings: [String] = []
    var storeAddressLabels: [String] = []
    var addressLabels: [String] = []
    var notAddressBefore: [String] = []
    var notShopWords: [String] = []
    var notShopEndings: [String] = []
    var shopNameSuffixes: [String] = []
    var shopSenderDomains: [String] = []
    /// Words that make a sender's name a shop's even when it names a carrier (momo購物網).
    var shopWords: [String] = []
    var freemailDomains: [String] = []

    public struct DataError: Error, CustomStringConvertible {
        public var description: String
    }

    public init() {}

    public static let builtIn: ShipmentFactWords = {
        var words = ShipmentFactWords()
        do {
            try words.add(json: PackageResources.shipment_facts_json)
        } catch {
            fatalError("built-in shipment facts: \(error)")
        }
        return words
    }()

    public mutating func add(json: [UInt8]) throws {
        let root = try JSONValue.parse(json)
        guard case .object(let members) = root else { throw DataError(description: "expected a JSON object") }
        func list(_ key: String, _ v: JSONValue) throws -> [String] {
            guard let items = v.arrayValue, items.allSatisfy({ $0.stringValue != nil }) else {
                throw DataError(description: "\(key): expected an array of strings")
            }
            return items.compactMap(\.stringValue).map(ASCII.lowercased).filter { !$0.isEmpty }
        }
        for (key, value) in members {
            switch key {
            case "comment": break
            case "currencies":
                guard case .object(let signs) = value else { throw DataError(description: "currencies: expected an object") }
                for (sign, code) in signs {
                    guard let code = code.stringValue, code.utf8.count == 3, code.utf8.allSatisfy({ $0 &- 0x41 < 26 }) else {
                        throw DataError(description: "currencies: '\(sign)' needs an ISO 4217 code (three capital letters)")
                    }
                    currencies[ASCII.lowercased(sign)] = code
                }
            case "zh_hant_characters", "zh_hans_characters":
                guard let s = value.stringValue else { throw DataError(description: "\(key): expected a string") }
                if key == "zh_hant_characters" { hantCharacters.formUnion(s.utf16) } else { hansCharacters.formUnion(s.utf16) }
            case "months":
                guard let groups = value.arrayValue, groups.count == 12 else { throw DataError(description: "months: expected 12 lists of names") }
                for (k, g) in groups.enumerated() { months += try list(key, g).map { ($0, k + 1) } }
            case "dollar_signs": dollarSigns += try list(key, value)
            case "yen_signs": yenSigns += try list(key, value)
            case "yuan_words": yuanWords += try list(key, value)
            case "customs_words": customs += try list(key, value)
            case "customs_hold_words": customsHold += try list(key, value)
            case "customs_fee_words": customsFee += try list(key, value)
            case "pay_by_words": payBy += try list(key, value)
            case "cash_on_delivery_words": cashOnDelivery += try list(key, value)
            case "cash_on_delivery_not": cashOnDeliveryNot += try list(key, value)
            case "payment_method_words": paymentMethod += try list(key, value)
            case "total_words": total += try list(key, value)
            case "order_number_words": orderNumber += try list(key, value)
            case "store_labels": storeLabels += try list(key, value)
            case "store_chains": storeChains += try list(key, value)
            case "store_name_endings": storeNameEndings += try list(key, value)
            case "not_store_names": notStoreNames += try list(key, value)
            case "greetings": greetings += try list(key, value)
            case "store_address_labels": storeAddressLabels += try list(key, value)
            case "address_labels": addressLabels += try list(key, value)
            case "not_address_before": notAddressBefore += try list(key, value)
            case "not_shop_words": notShopWords += try list(key, value)
            case "not_shop_endings": notShopEndings += try list(key, value)
            case "shop_name_suffixes": shopNameSuffixes += try list(key, value)
            case "shop_sender_domains": shopSenderDomains += try list(key, value)
            case "shop_words": shopWords += try list(key, value)
            case "freemail_domains": freemailDomains += try list(key, value)
            default: throw DataError(description: "unknown key '\(key)'")
            }
        }
    }
}

/// Where words occur in ASCII-lowercased UTF-16 text: an ASCII word only as a whole word.
struct WordFinder {
    private let words: [(word: [UInt16], ascii: Bool, index: Int)]
    private let byFirst: [UInt16: [Int]]
    /// Which code units start a word: most places are passed over with one bit test.
    private var starts = [UInt64](repeating: 0, count: 1024)

    /// `words` in ASCII lower case; of two at one place the longer is found.
    init(_ words: [String]) {
        let list: [(word: [UInt16], ascii: Bool, index: Int)] = words.enumerated()
            .map { (word: Array($0.element.utf16), ascii: $0.element.utf8.allSatisfy { $0 < 0x80 }, index: $0.offset) }
            .filter { !$0.word.isEmpty }.sorted { $0.word.count > $1.word.count }
        self.words = list
        var byFirst: [UInt16: [Int]] = [:]
        for (k, w) in list.enumerated() {
            byFirst[w.word[0], default: []].append(k)
            starts[Int(w.word[0] >> 6)] |= 1 << (w.word[0] & 63)
        }
        self.byFirst = byFirst
    }

    /// Each occurrence, left to right, as (range, index of the word in the list given);
    /// occurrences do not overlap.
    func occurrences(in text: [UInt16], from start: Int = 0, to end: Int? = nil) -> [(range: Range<Int>, index: Int)] {
        let end = min(end ?? text.count, text.count)
        var out: [(Range<Int>, Int)] = []
        var i = max(0, start)
        while i < end {
            let c = text[i]
            guard starts[Int(c >> 6)] & (1 << (c & 63)) != 0 else { i += 1; continue }
            var matched: (Int, Int)?
            for k in byFirst[c] ?? [] {
                let w = words[k]
                guard i + w.word.count <= end, text[i..<(i + w.word.count)].elementsEqual(w.word) else { continue }
                if w.ascii {
                    let before = i == 0 ? 0x20 : text[i - 1], after = i + w.word.count < text.count ? text[i + w.word.count] : 0x20
                    if isWordCharacter(before) && isWordCharacter(w.word[0]) || isWordCharacter(after) && isWordCharacter(w.word[w.word.count - 1]) { continue }
                }
                matched = (w.word.count, w.index)
                break
            }
            if let (length, index) = matched {
                out.append((i..<(i + length), index))
                i += length
            } else {
                i += 1
            }
        }
        return out
    }

    func first(in text: [UInt16], from start: Int = 0, to end: Int? = nil) -> Range<Int>? {
        occurrences(in: text, from: start, to: end).first?.range
    }

    func contains(in text: [UInt16]) -> Bool { first(in: text) != nil }
}

/// ASCII letters and digits, and the letters beyond ASCII of the languages that space their
/// words (an ASCII word is not found inside "Zollgebühren"'s neighbours).
@inline(__always) func isWordCharacter(_ c: UInt16) -> Bool {
    (c | 0x20) &- 0x61 < 26 || c &- 0x30 < 10 || (c >= 0xC0 && c < 0x250)
}

/// The text in ASCII lower case, position for position.
func asciiLowered(_ text: [UInt16]) -> [UInt16] { text.map { $0 &- 0x41 < 26 ? $0 | 0x20 : $0 } }

/// Where the line that `position` is on ends, looking at most `limit` characters on (a
/// hostile mail's one long line is not read over and over).
func lineEnd(_ text: [UInt16], from position: Int, limit: Int) -> Int {
    var end = min(position, text.count)
    let stop = min(text.count, position + limit)
    while end < stop && text[end] != 0x0A { end += 1 }
    return end
}
