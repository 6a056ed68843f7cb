import JSONLines
import UnixFilter

/// carrier-detect's run: each record gets `shipments` (see mailpipe(5)).
public struct CarrierDetect {
    /// Carrier files (or folders of them) named on the command line, read after the user's.
    public var carrierFiles: [String] = []
    public var minimumConfidence = 0.5

    public init() {}

    /// The built-in carriers, then `$XDG_CONFIG_HOME/mailpipe/carriers/*.json`, then each
    /// `--carriers` file.
    public func loadSpecs(_ diagnostics: Diagnostics) throws -> CarrierSpecs {
        let specs = CarrierSpecs.builtIn()
        for path in DataFiles.userFiles("carriers") + carrierFiles.flatMap({ DataFiles.expand($0) }) {
            do {
                try specs.add(json: try DataFiles.read(path))
            } catch let e as InputError {
                diagnostics.error(e.description, file: path)
                throw Exit(e.status)
            } catch {
                diagnostics.error("\(error)", file: path)
                throw Exit(.dataError)
            }
        }
        return specs
    }

    public func run(_ run: FilterRun) throws {
        let detector = ParcelDetector(specs: try loadSpecs(run.diagnostics))
        detector.minimumConfidence = minimumConfidence
        try filterRecords(run, progressNoun: "messages") { record in
            let shipments = try Self.shipments(in: record, detector)
            return record.updated([("shipments", Self.json(shipments))])
        }
    }

    struct NotAMessage: Error, CustomStringConvertible {
        var description: String { "no subject, text or html: not a mime-parse record" }
    }

    static func shipments(in record: JSONRecord, _ detector: ParcelDetector) throws -> [Shipment] {
        // Most mail holds no run of eight digits at all: look at the raw bytes before decoding.
        let fields = ["subject", "body_text", "text", "html"].compactMap { record.rawValue($0) }
        if !fields.isEmpty && !fields.contains(where: mayHoldTrackingNumber) { return [] }
        let subject = record.string("subject")
        let body = record.string("body_text") ?? record.string("text")
        let html = record.string("html")
        guard subject != nil || body != nil || html != nil || record.member("subject") != nil else { throw NotAMessage() }
        var message = MessageText(subject: subject ?? "", body: body, html: html.map { Array($0.utf8) })
        if body != nil, let html {
            // The text part has the words; the HTML part may still hold the tracking links.
            message.links += hrefs(in: Array(html.utf8))
        }
        var domain = ""
        if let address = record.value("from")?["address"]?.stringValue, let at = address.lastIndex(of: "@") {
            domain = lowercasedASCII(String(address[address.index(after: at)...]))
        }
        return detector.detect(message, senderDomain: domain, date: record.string("date"))
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
            w.raw(Array(confidenceText(s.confidence).utf8))
            w.field("evidence", strings: s.evidence)
            w.field("tracking_url", s.trackingURL)
            w.field("format", s.format)
            if let p = s.pickup {
                w.key("pickup")
                w.beginObject()
                w.field("store", p.store)
                w.field("store_id", p.storeID)
                w.field("code", p.code)
                w.field("deadline", p.deadline)
                w.endObject()
            }
            w.endObject()
        }
        w.endArray()
        return w.bytes
    }

    /// Two decimals, as JSON: 1, 0.65.
    static func confidenceText(_ c: Double) -> String {
        let hundredths = Int((c * 100).rounded())
        if hundredths >= 100 { return "1" }
        let frac = hundredths % 100
        return "0." + (frac < 10 ? "0\(frac)" : (frac % 10 == 0 ? "\(frac / 10)" : "\(frac)"))
    }
}
