import JSONLines

extension ParcelGroup.Observation {
    /// The id of the parcel `ParcelGroup.group` puts this observation in: its carrier and
    /// number; with only a pickup code, the first by id of the numbered parcels whose mail
    /// gave the same carrier and code (`numbersWithCode(codeKey)` gives their ids), else the
    /// code's own parcel.
    func parcelID(numbersWithCode: (String) throws -> [String]) rethrows -> String {
        if let numberKey { return numberKey }
        return try numbersWithCode(codeKey!).min() ?? "pickup:" + codeKey!
    }
}

extension ParcelGroup {
    /// The id of the parcel a message's shipment belongs to, as `group` gathers them (see
    /// `Observation.parcelID`); nil for a shipment that names neither a number nor a pickup code.
    public static func parcelID(of shipment: JSONValue, numbersWithCode: (String) throws -> [String]) rethrows -> String? {
        try observation(shipment, messageID: "", date: "", conversationID: nil, order: 0)?.parcelID(numbersWithCode: numbersWithCode)
    }
}

/// parcel-group's records in memory (chat-render --parcels), found by the shipments of the mail.
public struct ParcelRecords {
    private var byID: [String: JSONValue] = [:]
    /// carrier:code of a numbered parcel's pickup → the ids of those parcels.
    private var numbersByCode: [String: [String]] = [:]

    public init(_ parcels: [JSONValue]) {
        for p in parcels {
            guard let id = p["parcel_id"]?.stringValue else { continue }
            byID[id] = p
            // a record has a shipment's fields; it names the latest of its parcel's pickup codes only
            let facts = ParcelGroup.observation(p, messageID: "", date: "", conversationID: nil, order: 0)
            if facts?.numberKey != nil, let code = facts?.codeKey { numbersByCode[code, default: []].append(id) }
        }
    }

    /// The record of the parcel a shipment belongs to.
    public func parcel(of shipment: JSONValue) -> JSONValue? {
        ParcelGroup.parcelID(of: shipment) { numbersByCode[$0] ?? [] }.flatMap { byID[$0] }
    }
}
