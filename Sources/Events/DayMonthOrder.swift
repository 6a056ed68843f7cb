import UTF8Text

/// Which comes first in a date written in digits alone (08/04/2026): the day in Britain and
/// Germany, the month in the US and Taiwan. A date is read one way only when a signal says
/// which, in this order (event-extract(1)): a weekday that fits one reading only, a date that
/// can be read one way only (24/03), the message's Content-Language, the sender's country
/// domain, the language of the text's words.
public enum DayMonthOrder: Sendable, Equatable {
    case dayFirst, monthFirst

    /// As `appointment-words.json` names it.
    init?(_ name: String) {
        switch name {
        case "day_first": self = .dayFirst
        case "month_first": self = .monthFirst
        default: return nil
        }
    }
}

extension AppointmentWords {
    /// The order a Content-Language value says: its region's ("en-GB", "zh-TW"), else its
    /// language's ("de", "zh-Hant"; "zh" when every Chinese agrees). "en" alone says nothing.
    func order(contentLanguage: String) -> DayMonthOrder? {
        // the first of a list ("de-DE, en")
        let tag = (contentLanguage.split(separator: ",").first.map { String($0) } ?? "").trimmingWhitespace.lowercased()
        let subtags = tag.split(separator: "-").map(String.init)
        guard let language = subtags.first, !language.isEmpty else { return nil }
        for region in subtags.dropFirst() where region.count == 2 || region.count == 3 && region.allSatisfy(\.isNumber) {
            if let order = countryOrders[region] { return order }
        }
        if let order = languageOrders[tag] { return order }
        let orders = Set(languageOrders.filter { $0.key.split(separator: "-").first.map(String.init) == language }.values)
        return orders.count == 1 ? orders.first : nil
    }

    /// The order the sender's country domain says (`.co.uk`, `.de`, `.us`); none for a generic
    /// one (`.com`, `.org`).
    func order(senderAddress: String) -> DayMonthOrder? {
        guard let at = senderAddress.lastIndex(of: "@") else { return nil }
        let domain = senderAddress[senderAddress.index(after: at)...].lowercased()
        guard let label = domain.split(separator: ".").last else { return nil }
        return countryOrders[String(label)]
    }

    /// The words that say the order of the language they are in: those of languages with an
    /// order, in no language with another order or none, and starting none of that language's
    /// words ("termin", "預約"; not "consultation", which English shares with French, nor
    /// Spanish "consulta", which starts it).
    func orderWords() -> [Word] {
        var orders: [[Character]: Set<DayMonthOrder?>] = [:]
        for (language, words) in languageWords {
            for w in words { orders[w, default: []].insert(languageOrders[language]) }
        }
        var byInitial: [Character: [(text: [Character], orders: Set<DayMonthOrder?>)]] = [:]
        for (text, found) in orders where !text.isEmpty { byInitial[text[0], default: []].append((text, found)) }
        return orders.compactMap { text, found in
            guard found.count == 1, let order = found.first!, !text.isEmpty else { return nil }
            let startsAnother = byInitial[text[0], default: []].contains { other in
                other.text.count > text.count && other.orders != [order] && Array(other.text.prefix(text.count)) == text
            }
            return startsAnother ? nil : Word(text: text, value: order == .dayFirst ? 1 : 2)
        }.sorted { $0.text.count > $1.text.count }
    }
}
