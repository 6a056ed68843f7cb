import JSONLines

/// One message as a mailbox reader found it, before parsing.
public struct RawMessage {
    /// The message; from an mbox, a slice of the reader's buffer, valid (without a copy) while
    /// the message is handled: keeping it longer makes the reader's next read copy its buffer.
    public var bytes: ArraySlice<UInt8>
    public var source: MessageSource
    /// When the mailbox says the message arrived (mbox From_ line, Gmail `internalDate`), as
    /// seconds since the epoch; used when the Date header is missing or unreadable.
    public var envelopeDate: Int?
    /// Gmail API `labelIds`, already ids.
    public var labelIDs: [String]?
    /// The Gmail API's id of the message (its `id`; from Takeout, the From_ line's X-GM-MSGID in hex).
    public var gmailID: String?
    /// Gmail API `threadId`.
    public var threadID: String?
    /// Maildir flags (`cur/NAME:2,FRS`) mapped to labels.
    public var flagLabels: [String] = []
    /// Read from a maildir folder named Drafts (`.Drafts`, `Drafts/`, in any language Gmail's labels are).
    public var isInDraftsFolder = false
    /// A Gmail API `format=full` payload: the message already split into parts. `bytes` then
    /// holds only its header lines, which name it when it has no Message-ID.
    var payload: JSONValue?

    public init(bytes: ArraySlice<UInt8>, source: MessageSource, envelopeDate: Int? = nil) {
        self.bytes = bytes
        self.source = source
        self.envelopeDate = envelopeDate
    }

    public init(bytes: [UInt8], source: MessageSource, envelopeDate: Int? = nil) {
        self.init(bytes: bytes[...], source: source, envelopeDate: envelopeDate)
    }
}

/// Where a message came from, written as the record's `source`.
public struct MessageSource: Sendable {
    /// The file (or maildir entry) path; "-" for standard input.
    public var path: String
    /// Byte offset of the message in the file (of its From_ line in an mbox, of its line in JSON Lines).
    public var offset: Int
    public var length: Int
    /// `mbox`, `eml`, `maildir` or `gmail-api`.
    public var format: String
    /// The line number, for JSON Lines input.
    public var line: Int?
    /// Maildir flags as written in the file name.
    public var flags: String?

    public init(path: String, offset: Int, length: Int, format: String, line: Int? = nil, flags: String? = nil) {
        self.path = path
        self.offset = offset
        self.length = length
        self.format = format
        self.line = line
        self.flags = flags
    }
}
