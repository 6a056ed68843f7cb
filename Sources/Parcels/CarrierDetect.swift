import JSONLines
import StructuredData
import UnixFilter
import UTF8Text

/// carrier-detect's run: each record gets `shipments` (see mailpipe(5)).
public struct CarrierDetect {
    /// Carrier files (or folders of them) named on the command line, read after the user's.
    public var carrierFiles: [String] = []
    public var minimumConfidence = 0.5
    /// Files (or folders of them) of shipment-facts words named on the command line.
    public var factFiles: [String] = []

    public init() {}

    /// The built-in carriers, then `$XDG_CONFIG_HOME/mailpipe/carriers/*.json`, then each
    /// `--carriers` file.
    public func loadSpecs(_ diagnostics: Diagnostics) throws -> CarrierSpecs {
        try DataFiles.extend(CarrierSpecs.builtIn(), user: ["carriers"], extra: carrierFiles, diagnostics: diagnostics)
    }

    public func run(_ run: FilterRun) throws {
        try stage(run.diagnostics).run(run)
    }

    /// The built-in words of `shipment-facts.json`, then `$XDG_CONFIG_HOME/mailpipe/shipment-facts.json`
    /// and `shipment-facts/*.json`, then each `--facts` file.
    public func loadFactWords(_ diagnostics: Diagnostics) throws -> ShipmentFactWords {
        try DataFiles.extend(ShipmentFactWords.builtIn, user: ["shipment-facts.json", "shipment-facts"], extra: factFiles, diagnostics: diagnostics)
    }

    public func stage(_ diagnostics: Diagnostics) throws -> RecordStage {
        let detector = ParcelDetector(specs: try loadSpecs(diagnostics), facts: try loadFactWords(diagnostics))
        detector.minimumConfidence = minimumConfidence
        return RecordStage(name: "carrier-detect") { record in
            let shipments = try Self.shipments(in: record, detector)
            return record.updated([("shipments", Self.json(shipments))])
        }
    }

    struct NotAMessage: Error, CustomStringConvertible {
        var description: String { "no subject, text or html: not a mime-parse record" }
    }

    static func shipments(in record: JSONRecord, _ detector: ParcelDetector) throws -> [Shipment] {
        guard ["subject", "text", "html", "body_text"].contains(where: { record.member($0) != nil }) else { throw NotAMessage() }
        var declared = detector.markupShipments(SchemaOrg.markup(of: record).items)
        let found = shipments(inText: record, detector, links: declared.links)
        let declaredNumbers = Set(declared.shipments.map(\.trackingNumber))
        if !declared.shipments.isEmpty {
            // what the markup does not say, the text may: its status and time, its expected date
            let message = MessageText(subject: record.string("subject") ?? "", body: record.string("body_text") ?? record.string("text"),
                                      html: record.string("html").map { Array($0.utf8) })
            let lowered = message.text.map { $0 &- 0x41 < 26 ? $0 | 0x20 : $0 }
            for k in declared.shipments.indices {
                let clock = detector.clock(date: record.string("date"), mailOffset: mailOffset(record), carrier: declared.shipments[k].carrier)
                let told = detector.statusReader.read(text: message.text, lowered: lowered, clock: clock)
                var s = declared.shipments[k].status
                if s.status == nil { s.status = told.status }
                if s.status == told.status { s.time = told.time }
                if s.expectedDelivery == nil { s.expectedDelivery = told.expectedDelivery }
                declared.shipments[k].status = s
                declared.shipments[k].facts = detector.factReader.read(message.text, lowered: lowered, date: record.string("date"),
                                                                       senderName: record.value("from")?["name"]?.stringValue, senderDomain: senderDomain(record))
            }
        }
        var all = declared.shipments + found.filter { !declaredNumbers.contains($0.trackingNumber) }
        // a notice someone forwarded is the carrier's or the shop's: read with its sender and date
        for s in forwardedShipments(in: record, detector) {
            if let k = all.firstIndex(where: { $0.trackingNumber == s.trackingNumber && (s.trackingNumber != nil || $0.pickup?.code == s.pickup?.code) }) {
                all[k] = s
            } else {
                all.append(s)
            }
        }
        return all
    }

    /// The shipments in the message a mail forwards (text-extract's `forwarded_message`), each
    /// with `forwardedFrom`.
    static func forwardedShipments(in record: JSONRecord, _ detector: ParcelDetector) -> [Shipment] {
        guard let f = record.value("forwarded_message"), case .object = f, let text = f["text"]?.stringValue, !text.isEmpty else { return [] }
        let subject = f["subject"]?.stringValue ?? ""
        let raw = Array((subject + "\n" + text).utf8)[...]
        guard mayHoldTrackingNumber(raw) || detector.linksToTrackingPage(raw) || mayHoldPickupCode(raw) else { return [] }
        let from = f["from"]
        let address = from?["address"]?.stringValue
        var domain = ""
        if let address, let at = address.lastIndex(of: "@") { domain = ASCII.lowercased(String(address[address.index(after: at)...])) }
        let message = MessageText(subject: subject, body: text, html: nil)
        return detector.detect(message, senderDomain: domain, senderName: from?["name"]?.stringValue,
                               date: f["date"]?.stringValue ?? record.string("date"), mailOffset: mailOffset(record))
            .map { s in
                var s = s
                s.forwardedFrom = (from?["name"]?.stringValue, address)
                return s
            }
    }

    /// The zone of the message's Date header, in minutes east of UTC.
    static func mailOffset(_ record: JSONRecord) -> Int? {
        record.value("headers")?["date"]?.arrayValue?.first?.stringValue.flatMap(dateHeaderOffset)
    }


    /// The shipments found in the subject, text and links; `links` are more tracking links.
    static func shipments(inText record: JSONRecord, _ detector: ParcelDetector, links extraLinks: [String]) -> [Shipment] {
        func rawString(_ key: String) -> ArraySlice<UInt8>? {
            record.rawValue(key).flatMap { $0.first == UInt8(ascii: "\"") ? $0 : nil }
        }
        let bodyKey = rawString("body_text") != nil ? "body_text" : "text"
        let subjectRaw = rawString("subject"), bodyRaw = rawString(bodyKey), htmlRaw = rawString("html")
        // Most mail holds no run of digits that could be a tracking number: look at the raw bytes
        // before decoding anything; and when only the HTML has such runs (in its links, ids and
        // colours), only a link to a carrier's tracking page can matter.
        let textWorth = [subjectRaw, bodyRaw].contains { $0.map(mayHoldTrackingNumber) ?? false }
            || bodyRaw.map(detector.linksToTrackingPage) ?? false
            || bodyRaw.map(mayHoldPickupCode) ?? false
        let htmlWorth = htmlRaw.map { mayHoldTrackingNumber($0) || detector.linksToTrackingPage($0) } ?? false
        guard textWorth || htmlWorth || !extraLinks.isEmpty else { return [] }
        var links = extraLinks
        if let htmlRaw, htmlWorth, bodyRaw != nil {
            links += hrefs(inJSONString: htmlRaw)
            if !textWorth && !links.contains(where: detector.isTrackingLink) { return [] }
        }
        let subject = record.string("subject") ?? ""
        var message: MessageText
        if bodyRaw != nil {
            message = MessageText(subject: subject, body: record.string(bodyKey), html: nil)
            message.links += links
        } else {
            message = MessageText(subject: subject, body: nil, html: htmlWorth ? record.string("html").map { Array($0.utf8) } : nil)
            message.links += links
        }
        return detector.detect(message, senderDomain: senderDomain(record), senderName: record.value("from")?["name"]?.stringValue,
                               date: record.string("date"), mailOffset: mailOffset(record))
    }

    /// The domain of the record's sender, in lower case ("" when unknown).
    static func senderDomain(_ record: JSONRecord) -> String {
        guard let address = record.value("from")?["address"]?.stringValue, let at = address.lastIndex(of: "@") else { return "" }
        return ASCII.lowercased(String(address[address.index(after: at)...]))
    }

    static func json(_ shipments: [Shipment]) -> [UInt8] {
        var w = JSONWriter(capacity: 256)
        w.beginArray()
        for s in shipments {
            w.beginObject()
            w.field("carrier", s.carrier)
            w.field("tracking_number", s.trackingNumber)
            w.field("check_digit", s.checkDigit)
            w.key("confidence")
            w.fraction(s.confidence)
            w.field("evidence", strings: s.evidence)
            w.field("tracking_url", s.trackingURL)
            w.field("format", s.format)
            if let p = s.pickup {
                w.key("pickup")
                w.beginObject()
                w.field("store", p.store)
                w.field("address", p.address)
                w.field("store_id", p.storeID)
                w.field("code", p.code)
                w.field("deadline", p.deadline)
                w.endObject()
            }
            w.field("status", s.status.status)
            w.field("status_time", s.status.time)
            w.field("expected_delivery", s.status.expectedDelivery)
            s.facts.write(into: &w)
            w.key("forwarded_from")
            if let f = s.forwardedFrom {
                w.beginObject()
                w.field("name", f.name)
                w.field("address", f.address)
                w.endObject()
            } else {
                w.null()
            }
            w.endObject()
        }
        w.endArray()
        return w.bytes
    }
}

/// Whether raw text holds a pickup-code label (PickupReader's: 驗證碼, 取貨代碼, 取件號碼): a
/// reminder that gives only the code is read for its pickup.
func mayHoldPickupCode(_ raw: ArraySlice<UInt8>) -> Bool {
    if raw.withUnsafeBufferPointer({ ByteSearch.contains($0, bareCodeLabel) }) { return true }
    for start in codeLabelStarts {
        var i = raw.startIndex
        while let at = raw[i...].firstIndex(of: start[0]) {
            if raw[at...].starts(with: start), codeLabelEnds.contains(where: { raw[(at + start.count)...].starts(with: $0) }) { return true }
            i = at + 1
        }
    }
    return false
}

private let bareCodeLabel = Array(PickupReader.bareCodeLabel.utf8)
private let codeLabelStarts = PickupReader.codeLabelStarts.map { Array($0.utf8) }
private let codeLabelEnds = PickupReader.codeLabelEnds.map { Array($0.utf8) }
