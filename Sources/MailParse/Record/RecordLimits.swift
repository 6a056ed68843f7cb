/// What one message may hold before its record leaves the rest out, so that a hostile message
/// costs time and memory in proportion to these, not to its size (mailpipe(5), LIMITS). Each
/// limit a message exceeds is a defect of its record, named after it.
public struct RecordLimits: Sendable {
    /// Addresses of To, Cc and Bcc together: those after the first this many are left out
    /// (`too_many_recipients`).
    public var recipients = 1_000
    /// Header fields of the message and of each MIME part: those after the first this many are
    /// left out (`too_many_header_fields`).
    public var headerFields = 1_000
    /// Bytes of UTF-8 kept of the text body, of the HTML body and of each calendar part
    /// (`text_over_limit`, `html_over_limit`, `calendar_over_limit`): cut at a character's
    /// boundary. A part is decoded only as far as that needs.
    public var textBytes = 1 << 20
    /// How deep forwarded messages (message/rfc822 inside message/rfc822) are read whole: the
    /// `message` of an attachment this many forwards down has its headers' summary only, no
    /// text, HTML or attachments. The text and HTML of all forwarded messages of a record
    /// together are cut at `textBytes` (`forwarded_over_limit`).
    public var forwardedDepth = 4

    public init() {}

    /// The defects that say a message was over a limit.
    public static let defects: Set<String> = ["too_many_recipients", "too_many_header_fields", "text_over_limit", "html_over_limit", "calendar_over_limit", "forwarded_over_limit"]

    /// The longest a part's encoded body is read for `textBytes` of text: base64 and
    /// quoted-printable never take more than four bytes for one byte decoded.
    var encodedTextBytes: Int { textBytes > Int.max / 8 ? Int.max : textBytes * 4 + 4096 }
}
