import JSONLines
import UnixFilter
import UTF8Text

/// The words of plain-text confirmations, per language (`appointment-words.json`): built in,
/// extended by the user's files of the same shape.
public struct AppointmentWords: ExtensibleData, Sendable {
    struct Word: Sendable {
        var text: [Character]
        var value = 0  // a weekday (1 = Monday) or a month (1 = January)
    }

    var booking: [Word] = []
    var confirmed: [Word] = []
    var not: [Word] = []
    var weekdays: [Word] = []
    var months: [Word] = []
    var am: [Word] = []
    var pm: [Word] = []
    /// The booking words and month names in ASCII lower case as bytes, for the search before
    /// any decoding.
    var bookingBytes: [[UInt8]] = []
    var monthBytes: [[UInt8]] = []
    /// How each language (by its key, lowercased) and each country (by its code or top-level
    /// domain) writes a day and a month in digits, where it says.
    var languageOrders: [String: DayMonthOrder] = [:]
    var countryOrders: [String: DayMonthOrder] = [:]
    /// Each language's booking, confirmation, weekday and month words: what says a text is in it.
    var languageWords: [String: [[Character]]] = [:]

    public struct DataError: Error, CustomStringConvertible {
        public var description: String
    }

    public static let builtIn: AppointmentWords = {
        var words = AppointmentWords()
        do {
            try words.add(json: PackageResources.appointment_words_json)
        } catch {
            fatalError("built-in appointment words: \(error)")
        }
        return words
    }()

    public mutating func add(json: [UInt8]) throws {
        let root = try JSONValue.parse(json)
        guard case .object(let members) = root else { throw DataError(description: "expected a JSON object") }
        for (key, value) in members {
            switch key {
            case "comment": break
            case "countries":
                guard case .object(let orders) = value else { throw DataError(description: "'countries' must be an object") }
                for (key, codes) in orders {
                    guard let order = DayMonthOrder(key), let list = codes.arrayValue?.compactMap(\.stringValue),
                          list.count == codes.arrayValue?.count else {
                        throw DataError(description: "countries: expected 'day_first' or 'month_first' with a list of codes, not '\(key)'")
                    }
                    for code in list { countryOrders[code.lowercased()] = order }
                }
            case "languages":
                guard case .object(let languages) = value else { throw DataError(description: "'languages' must be an object") }
                for (name, language) in languages { try add(language: name, language) }
            default: throw DataError(description: "unknown key '\(key)'")
            }
        }
    }

    static func lowercasedBytes(_ w: Word) -> [UInt8] { ASCII.lowercased(Array(String(w.text).utf8)) }

    private mutating func add(language name: String, _ v: JSONValue) throws {
        guard case .object(let members) = v else { throw DataError(description: "\(name): expected an object") }
        func list(_ j: JSONValue) throws -> [Word] {
            guard let items = j.arrayValue, items.allSatisfy({ $0.stringValue != nil }) else {
                throw DataError(description: "\(name): expected a list of words")
            }
            return items.compactMap(\.stringValue).map { Word(text: Array($0.lowercased())) }
        }
        func numbered(_ j: JSONValue, count: Int, _ key: String) throws -> [Word] {
            guard let groups = j.arrayValue, groups.count == count else {
                throw DataError(description: "\(name): '\(key)' must list \(count) groups of names")
            }
            return try groups.enumerated().flatMap { k, g in try list(g).map { Word(text: $0.text, value: k + 1) } }
        }
        var own: [Word] = []
        for (key, value) in members {
            switch key {
            case "booking":
                let words = try list(value)
                booking += words
                bookingBytes += words.map(Self.lowercasedBytes)
                own += words
            case "confirmed":
                let words = try list(value)
                confirmed += words
                own += words
            case "not": not += try list(value)
            case "weekdays":
                let names = try numbered(value, count: 7, key)
                weekdays += names
                own += names
            case "months":
                let names = try numbered(value, count: 12, key)
                months += names
                monthBytes += names.map(Self.lowercasedBytes)
                own += names
            case "numeric_dates":
                guard let order = value.stringValue.flatMap(DayMonthOrder.init) else {
                    throw DataError(description: "\(name): 'numeric_dates' must be \"day_first\" or \"month_first\"")
                }
                languageOrders[name.lowercased()] = order
            case "am": am += try list(value)
            case "pm": pm += try list(value)
            default: throw DataError(description: "\(name): unknown key '\(key)'")
            }
        }
        languageWords[name.lowercased(), default: []] += own.map(\.text)
        // longest first, so that "tues" is read before "tue" and "de la tarde" whole
        for k in [\AppointmentWords.weekdays, \.months, \.am, \.pm] as [WritableKeyPath<AppointmentWords, [Word]>] {
            self[keyPath: k].sort { $0.text.count > $1.text.count }
        }
    }
}
