import UTF8Text

/// How to leave a mailing: RFC 2369 List-Unsubscribe, with RFC 8058 one-click when the sender
/// supports it (List-Unsubscribe-Post: List-Unsubscribe=One-Click and an HTTPS URL).
public struct Unsubscribe: Equatable, Sendable {
    public var url: String?
    public var mailto: String?
    public var oneClick: Bool

    public init(url: String?, mailto: String?, oneClick: Bool) {
        self.url = url
        self.mailto = mailto
        self.oneClick = oneClick
    }

    /// Parses the header values; nil when they name neither a web nor a mail address.
    public init?(listUnsubscribe values: [String], listUnsubscribePost: [String]) {
        url = nil
        mailto = nil
        for value in values {
            for uri in Self.uris(in: value) {
                let lower = ASCII.lowercased(String(uri.prefix(8)))
                if lower.hasPrefix("mailto:") {
                    if mailto == nil { mailto = uri }
                } else if lower.hasPrefix("https://") || lower.hasPrefix("http://") {
                    if url == nil { url = uri }
                }
            }
        }
        guard url != nil || mailto != nil else { return nil }
        let post = listUnsubscribePost.map { ASCII.lowercased(withoutWhitespace(Substring($0))) }
        oneClick = (url.map { ASCII.lowercased($0).hasPrefix("https://") } ?? false)
            && post.contains { ByteSearch.contains($0, "list-unsubscribe=one-click") }
    }

    /// The URIs of a List-Unsubscribe value: each inside angle brackets (whitespace from folding
    /// removed), or, from senders who forget the brackets, the comma-separated words.
    static func uris(in value: String) -> [String] {
        var out: [String] = []
        if value.utf8.contains(UInt8(ascii: "<")) {
            var rest = Substring(value)
            while let open = rest.firstIndex(of: "<") {
                let after = rest[rest.index(after: open)...]
                guard let close = after.firstIndex(of: ">") else { break }
                let uri = withoutWhitespace(after[..<close])
                if !uri.isEmpty { out.append(uri) }
                rest = after[after.index(after: close)...]
            }
        } else {
            for word in value.split(separator: ",") {
                let uri = withoutWhitespace(word)
                if !uri.isEmpty { out.append(uri) }
            }
        }
        return out
    }
}

/// Folding leaves spaces and line breaks inside long URIs; they are not part of them.
private func withoutWhitespace(_ s: Substring) -> String {
    String(decoding: s.utf8.filter { $0 != 0x20 && $0 != 0x09 && $0 != 0x0D && $0 != 0x0A }, as: UTF8.self)
}
