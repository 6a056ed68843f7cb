import JSONLines
import UTF8Text

/// What newsletter-detect reads from a record: headers, labels, sender, subject, and the tail
/// of the body, where footers live.
struct MessageFacts {
    /// The `headers` object: lowercase header name to the array of its values (mailpipe(5)).
    var headers: JSONRecord?
    var headerNames: [String] = []
    var headerNameSet: Set<String> = []
    var labels: Set<String> = []
    var fromAddress = ""
    var senderAddress = ""
    var subject = ""
    var isReply = false
    var hasShipments = false
    var hasCalendar = false
    /// The last part of the text and HTML bodies, ASCII-lowercased.
    var bodyTail: [UInt8] = []
    /// The first part of the text (else the HTML), ASCII-lowercased: where a notice says what it is.
    var bodyHead: [UInt8] = []
    /// The kinds of the events event-extract read (`appointment`, `prescription`, ...).
    var eventKinds: Set<String> = []
    /// mime-parse's `report.type`: `failed`, `delayed`, `delivered` (a delivery report), `read`,
    /// `not_read` (a receipt); nil for other mail.
    var reportType: String?
    var isDraft = false
    var fromName = ""
    /// The `method` of each calendar part, lowercase (`reply`, `request`, ...).
    var calendarMethods: [String] = []
    /// The record, for what only a few messages need (their attachments).
    var record: JSONRecord?

    static let bodyTailBytes = 8 << 10  // footers are short; the tail of a long newsletter is enough
    static let bodyHeadBytes = 1 << 10

    struct MissingField: Error, CustomStringConvertible {
        var description: String { "no 'headers' object: not a mime-parse record" }
    }

    init(record: JSONRecord) throws {
        guard let raw = record.rawValue("headers"), raw.first == UInt8(ascii: "{"),
              let headers = try? JSONRecord(Array(raw)) else { throw MissingField() }
        self.headers = headers
        headerNames = headers.keys
        headerNameSet = Set(headerNames)
        if case .array(let items)? = record.value("labels") {
            labels = Set(items.compactMap(\.stringValue))
        }
        let from = record.value("from")
        if let address = from?["address"]?.stringValue {
            fromAddress = ASCII.lowercased(address)
        }
        fromName = from?["name"]?.stringValue ?? ""
        if let address = record.value("sender")?["address"]?.stringValue {
            senderAddress = ASCII.lowercased(address)
        }
        subject = record.string("subject") ?? header("subject") ?? ""
        isReply = has("in-reply-to") || has("references")
        if case .array(let shipments)? = record.value("shipments") { hasShipments = !shipments.isEmpty }
        if case .array(let events)? = record.value("calendar") { hasCalendar = !events.isEmpty }
        for key in ["text", "html"] {
            guard let raw = record.rawValue(key), raw.first == UInt8(ascii: "\"") else { continue }
            let start = raw.count > Self.bodyTailBytes ? raw.endIndex - Self.bodyTailBytes : raw.startIndex
            bodyTail += ASCII.lowercased(raw[start...])
            bodyTail.append(0x0A)
            if bodyHead.isEmpty { bodyHead = ASCII.lowercased(raw.prefix(Self.bodyHeadBytes)) }
        }
        reportType = record.value("report")?["type"]?.stringValue
        isDraft = record.value("is_draft") == .bool(true)
        if let raw = record.rawValue("calendar_methods"), raw.count > 2, case .array(let methods)? = record.value("calendar_methods") {
            calendarMethods = methods.compactMap { $0.stringValue.map(ASCII.lowercased) }
        }
        self.record = record
        if let raw = record.rawValue("events"), raw.count > 2, case .array(let events)? = record.value("events") {
            eventKinds = Set(events.compactMap { $0["kind"]?.stringValue })
        }
    }

    init() {}

    /// The first value of a header (mime-parse writes each as an array of strings).
    func header(_ name: String) -> String? { values(name).first }

    func values(_ name: String) -> [String] {
        guard has(name) else { return [] }
        return switch headers?.value(name) {
        case .array(let items)?: items.compactMap(\.stringValue)
        case .string(let s)?: [s]
        default: []
        }
    }

    func has(_ name: String) -> Bool { headerNameSet.contains(name) }

    var localPart: String { Self.localPart(fromAddress) }

    /// The first Reply-To: its name as written and its address lowercased.
    var replyTo: (name: String, address: String)? {
        guard let first = record?.value("reply_to")?.arrayValue?.first, let address = first["address"]?.stringValue else { return nil }
        return (first["name"]?.stringValue ?? "", ASCII.lowercased(address))
    }

    /// The start of the plain text as written (not lowercased): where a service names the person.
    var textHead: String { record?.stringPrefix("text", maxBytes: Self.bodyHeadBytes) ?? "" }

    /// Each attachment's content type (lowercase) and file name (lowercase, or empty).
    var attachments: [(type: String, name: String)] {
        guard let raw = record?.rawValue("attachments"), raw.count > 2, case .array(let items)? = record?.value("attachments") else { return [] }
        return items.map { (ASCII.lowercased($0["content_type"]?.stringValue ?? ""), ASCII.lowercased($0["filename"]?.stringValue ?? "")) }
    }

    static func localPart(_ address: String) -> String {
        guard let at = address.lastIndex(of: "@") else { return address }
        return String(address[..<at])
    }

    var domain: String { Self.domain(fromAddress) }

    static func domain(_ address: String) -> String {
        guard let at = address.lastIndex(of: "@") else { return "" }
        return String(address[address.index(after: at)...])
    }
}
