import UnicodeServices

/// The mailboxes of an address header's value (To, Cc, Mail-Followup-To, a request's "to"), read
/// as mime-parse reads them: groups, comments, encoded words and the usual breakage. Keeps its
/// charset converters: one reader per thread.
public struct AddressListReader {
    private let decoder = HeaderTextDecoder(charsets: CharsetDecoder())

    public init() {}

    public func mailboxes(_ value: String) -> [Mailbox] {
        var ignored: [String] = []
        return AddressListParser.parse(Array(value.utf8), decoder: decoder, defects: &ignored)
    }

    /// %XX sequences decoded (a mailto: URL's address), as RFC 2231 values are.
    public static func percentDecoded(_ text: String) -> String {
        String(decoding: HeaderParameters.percentDecode(Array(text.utf8)), as: UTF8.self)
    }

    /// The message ids of a Message-ID, In-Reply-To or References value, without brackets.
    public static func messageIDs(_ value: String) -> [String] { MessageIDs.all(Array(value.utf8)) }
}
