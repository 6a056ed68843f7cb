import CivilTime
import JSONLines
import StructuredData
import UTF8Text

/// Shipments a sender declares in schema.org markup (`ParcelDelivery`, as Gmail reads it):
/// the carrier and the number are the sender's word, so they need no other evidence.
extension ParcelDetector {
    /// The deliveries with a tracking number, and the tracking links of those without one
    /// (for the link search, which knows the carriers' tracking pages).
    func markupShipments(_ items: [JSONValue]) -> (shipments: [Shipment], links: [String]) {
        var shipments: [Shipment] = []
        var links: [String] = []
        for item in items where SchemaOrg.types(item).contains("ParcelDelivery") {
            let link = SchemaOrg.text(item["trackingUrl"]).flatMap { $0.hasPrefix("http") ? $0 : nil }
            guard let written = SchemaOrg.text(item["trackingNumber"]) else {
                if let link { links.append(link) }
                continue
            }
            let number = String(written.unicodeScalars.filter { !$0.properties.isWhitespace && $0 != "-" }).uppercased()
            let company = item["carrier"] ?? item["provider"]
            let name = SchemaOrg.text(company?["name"]) ?? SchemaOrg.text(company)
            var status = ShipmentStatus()
            // deliveryStatus (a value, or a DeliveryEvent's), else the order's orderStatus
            let order = item["partOfOrder"]
            for value in [item["deliveryStatus"]?["name"], item["deliveryStatus"], order?["orderStatus"], item["orderStatus"]] {
                guard let written = SchemaOrg.text(value) else { continue }
                let name = written.split(separator: "/").last.map(String.init) ?? written
                if let s = specs.schemaOrgStatuses[name] { status.status = s; break }
            }
            if let until = SchemaOrg.text(item["expectedArrivalUntil"]) ?? SchemaOrg.text(item["expectedArrivalFrom"]) {
                let b = Array(until.utf8)
                if b.count >= 10, CivilDate.days(dateText: String(decoding: b[0..<10], as: UTF8.self)) != nil {
                    status.expectedDelivery = String(decoding: b[0..<10], as: UTF8.self)
                }
            }
            shipments.append(Shipment(carrier: carrier(named: name, link: link) ?? "unknown", format: "schema.org",
                                      trackingNumber: number, checkDigit: nil, confidence: 1, evidence: ["schema.org"],
                                      trackingURL: link, pickup: nil, status: status))
        }
        return (shipments, links)
    }

    /// The carrier a name in markup ("DHL Express", "United Parcel Service") or the host of its
    /// tracking link names, by the carriers' words and tracking hosts.
    private func carrier(named name: String?, link: String?) -> String? {
        if let name {
            let lowered = ASCII.lowercased(name)
            let units = Array(lowered.utf16)
            for (code, words) in specs.words.sorted(by: { $0.key < $1.key }) {
                if lowered == code || words.contains(where: { containsWord(units, Array($0.utf16)) }) { return code }
            }
        }
        if let link, let host = LinkParts.host(of: link) {
            for (code, hosts) in specs.trackingHosts.sorted(by: { $0.key < $1.key })
            where hosts.contains(where: { LinkHost.host(host, isWithin: $0) }) {
                return code
            }
        }
        return name.map { ASCII.lowercased($0).split(whereSeparator: { !$0.isLetter && !$0.isNumber }).joined(separator: "_") }
    }
}
