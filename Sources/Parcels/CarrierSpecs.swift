import UnixFilter
import JSONLines
import UnicodeServices
import UTF8Text

/// One tracking-number format of one carrier, from a spec in tracking_number_data's format.
final class TrackingFormat {
    let carrier: String
    let id: String
    let name: String
    /// The spec's regex, to find numbers in text (it allows whitespace between characters).
    let search: TextPattern
    /// The same, anchored, to read the groups of a number with its whitespace removed.
    let verify: TextPattern
    /// Read when first needed: a built-in pattern is compiled when first used.
    private(set) lazy var serialGroup = verify.group(named: "SerialNumber")
    private(set) lazy var checkGroup = verify.group(named: "CheckDigit")
    /// The group each required lookup reads (nil when the pattern has no such group: the
    /// lookup then decides nothing), found when first needed, as the pattern is compiled.
    private(set) lazy var requiredGroups = required.map { verify.group(named: $0.groupName) }
    let checksum: Checksum?
    /// `serial_number_format.prepend_if`: when the serial matches, the content goes first.
    let prepend: (pattern: TextPattern, content: String)?
    /// The lookups that must find the number's group (`validation.additional.exists`).
    let required: [Lookup]
    let trackingURL: String?
    /// The fewest characters other than whitespace a number of this format has (0 when the
    /// pattern is beyond `minimumMatchLength`): regions shorter than that are not tried.
    let minimumLength: Int
    /// The fewest digits a number of this format has (`minimumDigitCount`, 0 when unknown):
    /// regions with fewer are not tried.
    let minimumDigits: Int

    struct Lookup {
        var name: String
        var groupName: String
        var exact: Set<String>
        var patterns: [TextPattern]

        func finds(_ value: [UInt16]) -> Bool {
            exact.contains(String(decoding: value, as: UTF16.self))
                || patterns.contains { $0.firstMatch(in: value) != nil }
        }
    }

    /// `checking`: each pattern compiled at once, so a mistake in a user's file is said;
    /// the built-in ones are compiled when first used.
    init(carrier: String, spec: JSONValue, checking: Bool = true) throws(CarrierSpecs.SpecError) {
        func pattern(_ source: String) throws(TextPattern.SyntaxError) -> TextPattern {
            checking ? try TextPattern(source) : TextPattern(known: source)
        }
        self.carrier = carrier
        name = spec["name"]?.stringValue ?? carrier
        id = spec["id"]?.stringValue ?? name
        let regex: String
        switch spec["regex"] {
        case .string(let s)?: regex = s
        case .array(let parts)?: regex = parts.compactMap(\.stringValue).joined()
        default: throw .init("\(carrier): format '\(name)' has no regex")
        }
        do {
            search = try pattern(regex)
            verify = try pattern("^(?:" + regex + ")$")
        } catch {
            throw .init("\(carrier): format '\(name)': \(error)")
        }
        minimumLength = minimumMatchLength(regex) ?? 0
        minimumDigits = minimumDigitCount(regex) ?? 0
        let validation = spec["validation"]
        if let c = validation?["checksum"], case .object = c {
            checksum = try Self.checksum(c, carrier: carrier)
        } else {
            checksum = nil
        }
        if let p = validation?["serial_number_format"]?["prepend_if"],
           let source = p["matches_regex"]?.stringValue, let content = p["content"]?.stringValue {
            do { prepend = (try pattern(source), content) } catch { throw .init("\(carrier): \(error)") }
        } else {
            prepend = nil
        }
        // Only the lookups a number must pass are read; the others (service names and the
        // like) describe a number but never decide whether it is one.
        let mustExist = validation?["additional"]?["exists"]?.arrayValue?.compactMap(\.stringValue) ?? []
        var required: [Lookup] = []
        for item in spec["additional"]?.arrayValue ?? [] {
            guard let lname = item["name"]?.stringValue, mustExist.contains(lname),
                  let gname = item["regex_group_name"]?.stringValue else { continue }
            var exact: Set<String> = []
            var patterns: [TextPattern] = []
            for entry in item["lookup"]?.arrayValue ?? [] {
                if let m = entry["matches"]?.stringValue { exact.insert(m) }
                if let r = entry["matches_regex"]?.stringValue {
                    do { patterns.append(try pattern(r)) } catch { throw .init("\(carrier): \(error)") }
                }
            }
            required.append(Lookup(name: lname, groupName: gname, exact: exact, patterns: patterns))
        }
        self.required = required
        trackingURL = spec["tracking_url"]?.stringValue
    }

    private static func checksum(_ c: JSONValue, carrier: String) throws(CarrierSpecs.SpecError) -> Checksum {
        let name = c["name"]?.stringValue ?? ""
        let ints = { (key: String) in c[key]?.arrayValue?.compactMap(\.intValue) ?? [] }
        switch name {
        case "mod10":
            return .mod10(evens: c["evens_multiplier"]?.intValue ?? 1, odds: c["odds_multiplier"]?.intValue ?? 1,
                          reverse: c["reverse"] == .bool(true))
        case "mod7": return .mod7
        case "luhn": return .luhn
        case "s10": return .s10(weights: ints("weightings").isEmpty ? [8, 6, 4, 2, 3, 5, 9, 7] : ints("weightings"))
        case "mod_37_36": return .mod37_36
        case "sum_product_with_weightings_and_modulo":
            return .weightedSum(weights: ints("weightings"), modulo1: c["modulo1"]?.intValue ?? 0, modulo2: c["modulo2"]?.intValue ?? 0)
        default: throw .init("\(carrier): unknown checksum '\(name)'")
        }
    }

    /// Whether a number (uppercase, no whitespace) is one of this format's, with the check
    /// digit when the format has one. Nil when the format does not match at all.
    func validate(_ number: [UInt16]) -> (valid: Bool, checkDigit: String?)? {
        guard let m = verify.wholeMatch(number) else { return nil }
        func text(_ g: Int?) -> [UInt16]? {
            guard let g, g < m.groups.count, let r = m.groups[g] else { return nil }
            return number[r].filter { $0 != 0x20 && $0 != 0x09 }
        }
        for (lookup, group) in zip(required, requiredGroups) where group != nil {
            guard let value = text(group), lookup.finds(value) else { return (false, nil) }
        }
        let check = text(checkGroup).map { String(decoding: $0, as: UTF16.self) }
        guard let checksum else { return (true, check) }
        guard var serial = text(serialGroup), let checkChars = text(checkGroup) else { return (false, check) }
        if let prepend, prepend.pattern.wholeMatch(serial) != nil {
            serial = Array(prepend.content.utf16) + serial
        }
        let ok = checksum.isValid(serial: serial.map { UInt8(truncatingIfNeeded: $0) }, check: checkChars.map { UInt8(truncatingIfNeeded: $0) })
        return (ok, check)
    }

    var hasChecksum: Bool { checksum != nil }
}

/// Every carrier and format carrier-detect knows, with the words around numbers it weighs.
public final class CarrierSpecs: ExtensibleData {
    var formats: [TrackingFormat] = []
    var words: [String: [String]] = [:]
    var senderDomains: [String: [String]] = [:]
    var trackingHosts: [String: [String]] = [:]
    var trackingLinks: [TrackingLinkTemplate] = []
    var labels: [String] = []
    var notLabels: [String] = []
    /// Words that label a tracking number in its carrier's own mail and another kind of number
    /// elsewhere (`item`: USPS and DHL say "your item", a shop lists its items' numbers).
    var ownMailLabels: [String] = []
    /// What notices say happened (statuses.json): phrases to a status, or to nil for the
    /// phrases that hide a status phrase inside them.
    var statusPhrases: [(phrase: String, status: String?)] = []
    /// The statuses and readings, surest first: of several a message states, the first wins.
    var statusPrecedence: [String] = ShipmentStatus.all
    /// Readings: named groups of phrases that state a status but take their own place in the
    /// precedence ("redelivery_booked" is in_transit, and outweighs the failed attempt it follows).
    var statusReadings: [String: String] = [:]
    /// Words that, earlier in a status phrase's clause, make it a condition or a plan ("if",
    /// "otherwise", "將", "場合"), and words that do so right after it ("いたします").
    var conditionsBefore: [String] = []
    var conditionsAfter: [String] = []
    /// Words that open a conditional sentence ("if", "若", "場合は、"): earlier anywhere in a
    /// status phrase's sentence, past its commas, they make it a condition.
    var conditionsInSentence: [String] = []
    /// The statuses whose phrases no condition word touches (a notice that it comes today is
    /// about what happens next by nature).
    var unconditionalStatuses: Set<String> = []
    /// Words that, in the clause of a "delivered" phrase, say where it waits to be collected
    /// (a store, a locker, a post office): the parcel is available_for_pickup.
    var pickupPlaces: [String] = []
    var expectedLabels: [String] = []
    var otherDateLabels: [String] = []
    var schemaOrgStatuses: [String: String] = [:]
    /// Minutes east of UTC of each carrier's country, for the local times its notices write.
    var utcOffsets: [String: Int] = [:]

    public struct SpecError: Error, CustomStringConvertible {
        public var description: String
        init(_ d: String) { description = d }
    }

    public init() {}

    /// The specs built into the program: tracking_number_data's couriers, Taiwan's, and the
    /// context file.
    public static func builtIn() -> CarrierSpecs {
        let specs = CarrierSpecs()
        do {
            for file in PackageResources.allFiles { try specs.add(json: file, checking: false) }
        } catch {
            fatalError("built-in carrier data: \(error)")
        }
        return specs
    }

    /// Adds one file: a courier spec (`courier_code`, `tracking_numbers`), a list of them
    /// (`couriers` as an array), or context (`labels`, `not_labels`, `own_mail_labels`, `couriers` as an object).
    public func add(json: [UInt8]) throws(SpecError) { try add(json: json, checking: true) }

    /// `checking: false` for the built-in files: their patterns are compiled when first used
    /// (a test compiles them all).
    func add(json: [UInt8], checking: Bool) throws(SpecError) {
        let root: JSONValue
        do { root = try JSONValue.parse(json) } catch { throw .init(error.description) }
        guard case .object(let members) = root else { throw .init("expected a JSON object") }
        if case .object(let readings)? = root["readings"] {
            for (name, status) in readings {
                guard let status = status.stringValue, ShipmentStatus.all.contains(status), !ShipmentStatus.all.contains(name) else {
                    throw .init("readings: '\(name)' needs a known status, and a name that is not a status")
                }
                statusReadings[name] = status
            }
        }
        if root["courier_code"] != nil {
            try addCourier(root, checking: checking)
            return
        }
        for (key, value) in members {
            switch (key, value) {
            case ("comment", _): break
            case ("couriers", .array(let couriers)):
                for c in couriers { try addCourier(c, checking: checking) }
            case ("couriers", .object(let contexts)):
                for (code, context) in contexts { try addContext(code, context) }
            case ("labels", .array(let items)): labels += items.compactMap(\.stringValue).map(ASCII.lowercased)
            case ("not_labels", .array(let items)): notLabels += items.compactMap(\.stringValue).map(ASCII.lowercased)
            case ("own_mail_labels", .array(let items)): ownMailLabels += items.compactMap(\.stringValue).map(ASCII.lowercased)
            case ("readings", _): break
            case ("statuses", .object(let byStatus)):
                for (status, phrases) in byStatus {
                    guard ShipmentStatus.all.contains(status) || statusReadings[status] != nil else {
                        throw .init("unknown status '\(status)' (one of \(ShipmentStatus.all.joined(separator: ", ")), or a reading)")
                    }
                    statusPhrases += (phrases.arrayValue ?? []).compactMap(\.stringValue).map { (ASCII.lowercased($0), status) }
                }
            case ("not_statuses", .array(let items)): statusPhrases += items.compactMap(\.stringValue).map { (ASCII.lowercased($0), nil) }
            case ("precedence", .array(let items)):
                let order = items.compactMap(\.stringValue)
                let names = ShipmentStatus.all + statusReadings.keys.sorted()
                guard Set(order) == Set(names), order.count == names.count else {
                    throw .init("precedence must list each status and reading once: \(names.joined(separator: ", "))")
                }
                statusPrecedence = order
            case ("conditions_before", .array(let items)): conditionsBefore += items.compactMap(\.stringValue).map(ASCII.lowercased)
            case ("conditions_in_sentence", .array(let items)): conditionsInSentence += items.compactMap(\.stringValue).map(ASCII.lowercased)
            case ("conditions_after", .array(let items)): conditionsAfter += items.compactMap(\.stringValue).map(ASCII.lowercased)
            case ("unconditional", .array(let items)):
                for status in items.compactMap(\.stringValue) {
                    guard ShipmentStatus.all.contains(status) || statusReadings[status] != nil else { throw .init("unconditional: unknown status '\(status)'") }
                    unconditionalStatuses.insert(status)
                }
            case ("pickup_places", .array(let items)): pickupPlaces += items.compactMap(\.stringValue).map(ASCII.lowercased)
            case ("expected_labels", .array(let items)): expectedLabels += items.compactMap(\.stringValue).map(ASCII.lowercased)
            case ("other_date_labels", .array(let items)): otherDateLabels += items.compactMap(\.stringValue).map(ASCII.lowercased)
            case ("schema_org", .object(let values)):
                for (value, status) in values {
                    guard let status = status.stringValue, ShipmentStatus.all.contains(status) else { throw .init("schema_org: '\(value)' needs a known status") }
                    schemaOrgStatuses[value] = status
                }
            default: throw .init("unknown key '\(key)'")
            }
        }
    }

    private func addCourier(_ courier: JSONValue, checking: Bool) throws(SpecError) {
        guard let code = courier["courier_code"]?.stringValue else { throw .init("a courier without courier_code") }
        for spec in courier["tracking_numbers"]?.arrayValue ?? [] {
            formats.append(try TrackingFormat(carrier: code, spec: spec, checking: checking))
        }
        try addContext(code, courier)
    }

    private func addContext(_ code: String, _ context: JSONValue) throws(SpecError) {
        func strings(_ key: String) -> [String] { context[key]?.arrayValue?.compactMap(\.stringValue).map(ASCII.lowercased) ?? [] }
        words[code, default: []] += strings("words")
        senderDomains[code, default: []] += strings("sender_domains")
        if let written = context["utc_offset"]?.stringValue {
            guard let minutes = utcOffsetMinutes(written) else { throw .init("\(code): utc_offset '\(written)' is not +HH:MM or -HH:MM") }
            utcOffsets[code] = minutes
        }
        trackingHosts[code, default: []] += strings("tracking_hosts")
        for written in context["tracking_links"]?.arrayValue?.compactMap(\.stringValue) ?? [] {
            guard let template = TrackingLinkTemplate(carrier: code, written) else {
                throw .init("\(code): tracking link '\(written)' needs a host and one %s, in the path or as a query value")
            }
            trackingLinks.append(template)
            trackingHosts[code, default: []].append(template.host)
        }
    }

}
