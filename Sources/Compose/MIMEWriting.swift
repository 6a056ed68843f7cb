import UTF8Text

/// A MIME entity being written: its header lines (folded, without line ends) and its body,
/// lines ending in LF.
struct MIMEPart {
    var headers: [String]
    var body: [UInt8]

    /// The text as text/plain; format=flowed in UTF-8, 7bit, 8bit or quoted-printable by content.
    static func text(_ text: String) -> MIMEPart {
        let flowed = Array(FlowedWriting.encode(text).utf8)
        let encoding = FlowedWriting.transferEncoding(flowed)
        let charset = encoding == "7bit" ? "us-ascii" : "utf-8"
        return MIMEPart(headers: ["Content-Type: text/plain; charset=\(charset); format=flowed",
                                  "Content-Transfer-Encoding: \(encoding)"],
                        body: encoding == "quoted-printable" ? QuotedPrintable.encode(flowed) : flowed)
    }

    /// A file, in base64, named as RFC 2231 allows any name to be.
    static func attachment(name: String, type: String, bytes: [UInt8]) -> MIMEPart {
        MIMEPart(headers: [ParameterWriting.field("Content-Type", type, ParameterWriting.parameter("name", name)),
                           ParameterWriting.field("Content-Disposition", "attachment", ParameterWriting.parameter("filename", name)),
                           "Content-Transfer-Encoding: base64"],
                 body: Base64.lines(bytes))
    }

    /// A whole message, as message/rfc822 (RFC 2046 section 5.2.1: 7bit or 8bit, never encoded).
    static func message(_ bytes: [UInt8], name: String?) -> MIMEPart {
        var body = LineEnds.lf(bytes)
        if body.last != 0x0A { body.append(0x0A) }
        let high = body.contains { $0 >= 0x80 }
        var headers = ["Content-Type: message/rfc822"]
        headers.append(ParameterWriting.field("Content-Disposition", "attachment", name.map { ParameterWriting.parameter("filename", $0) } ?? []))
        headers.append("Content-Transfer-Encoding: \(high ? "8bit" : "7bit")")
        return MIMEPart(headers: headers, body: body)
    }

    /// An iTIP message (RFC 6047 section 2.4: text/calendar with its method, as an alternative
    /// of the text), in UTF-8, lines as libical writes them.
    static func calendar(_ ics: String, method: String) -> MIMEPart {
        let bytes = LineEnds.lf(Array(ics.utf8))
        let encoding = FlowedWriting.transferEncoding(bytes)
        return MIMEPart(headers: ["Content-Type: text/calendar; charset=utf-8; method=\(method)",
                                  "Content-Transfer-Encoding: \(encoding)"],
                        body: encoding == "quoted-printable" ? QuotedPrintable.encode(bytes) : bytes)
    }

    /// multipart/`subtype` of `parts`, with a boundary none of them contains.
    static func multipart(_ subtype: String, _ parts: [MIMEPart]) -> MIMEPart {
        var boundary = randomBoundary()
        while parts.contains(where: { $0.contains(boundary) }) { boundary = randomBoundary() }
        var body: [UInt8] = []
        // the line end before a delimiter belongs to the delimiter (RFC 2046 section 5.1.1):
        // one more keeps each part's own last line end
        for part in parts {
            body += Array("--\(boundary)\n".utf8)
            body += part.bytes
            body.append(0x0A)
        }
        body += Array("--\(boundary)--\n".utf8)
        return MIMEPart(headers: ["Content-Type: multipart/\(subtype);\n boundary=\"\(boundary)\""], body: body)
    }

    /// Header lines, a blank line, the body.
    var bytes: [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(body.count + 512)
        for h in headers {
            out += Array(h.utf8)
            out.append(0x0A)
        }
        out.append(0x0A)
        out += body
        return out
    }

    private func contains(_ boundary: String) -> Bool {
        let needle = Array(boundary.utf8)
        return body.withUnsafeBufferPointer { b in
            guard b.count >= needle.count else { return false }
            for i in 0...(b.count - needle.count) where b[i] == needle[0] {
                if b[i..<(i + needle.count)].elementsEqual(needle) { return true }
            }
            return false
        }
    }

    private static func randomBoundary() -> String {
        var g = SystemRandomNumberGenerator()
        return "=_mailpipe_" + String(g.next(), radix: 36) + String(g.next(), radix: 36)
    }
}
