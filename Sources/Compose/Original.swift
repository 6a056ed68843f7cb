import BodyText
import JSONLines
import MailParse

/// A message being answered or forwarded, read from its mime-parse record (mailpipe(5)).
public struct Original {
    public let record: JSONValue

    public init(_ bytes: [UInt8]) throws(JSONError) {
        record = try JSONValue.parse(bytes)
    }

    public var id: String { record["id"]?.stringValue ?? "" }
    public var messageID: String? { record["message_id"]?.stringValue }
    public var subject: String { record["subject"]?.stringValue ?? "" }
    public var date: String? { record["date"]?.stringValue }
    public var threadID: String? { record["thread_id"]?.stringValue }
    public var text: String { record["text"]?.stringValue ?? "" }
    /// The whole text as a reader sees it: text-extract's `body_text` when the record has been
    /// through it, else the text with format=flowed undone, else the HTML rendered as text.
    public var plainText: String {
        if let body = record["body_text"]?.stringValue { return body }
        let rendered = Extractor.plainText(text: record["text"]?.stringValue.map { Array($0.utf8) }, format: record["text_format"]?.stringValue,
                                           html: record["html"]?.stringValue.map { Array($0.utf8) })
        return rendered.map { String(decoding: $0, as: UTF8.self) } ?? ""
    }
    public var from: Mailbox? { Self.mailbox(record["from"]) }
    public var to: [Mailbox] { Self.mailboxes(record["to"]) }
    public var cc: [Mailbox] { Self.mailboxes(record["cc"]) }
    public var bcc: [Mailbox] { Self.mailboxes(record["bcc"]) }
    public var replyTo: [Mailbox] { Self.mailboxes(record["reply_to"]) }
    public var references: [String] { strings("references") }
    public var inReplyTo: [String] { strings("in_reply_to") }
    public var calendars: [String] { strings("calendar") }

    /// Every value of a header field, as mime-parse kept it (`headers`, names in lower case).
    public func header(_ name: String) -> [String] {
        record["headers"]?[name]?.arrayValue?.compactMap(\.stringValue) ?? []
    }

    /// Where the message's bytes were read from: a file, its offset and length.
    public var source: (path: String, offset: Int, length: Int)? {
        guard let s = record["source"], let path = s["path"]?.stringValue, path != "-",
              let offset = s["offset"]?.intValue, let length = s["length"]?.intValue else { return nil }
        return (path, offset, length)
    }

    private func strings(_ key: String) -> [String] { record[key]?.arrayValue?.compactMap(\.stringValue) ?? [] }

    static func mailbox(_ v: JSONValue?) -> Mailbox? {
        guard let v, let address = v["address"]?.stringValue, !address.isEmpty else { return nil }
        return Mailbox(name: v["name"]?.stringValue ?? "", address: address)
    }

    static func mailboxes(_ v: JSONValue?) -> [Mailbox] { v?.arrayValue?.compactMap(mailbox) ?? [] }
}
