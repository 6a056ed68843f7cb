/// One node of a message's MIME tree. Bodies are ranges into the message's bytes, decoded only
/// when a part is used.
final class MIMEPart {
    let headers: HeaderBlock
    let contentType: HeaderParameters
    let disposition: HeaderParameters?
    let encoding: TransferEncoding
    /// The raw (still transfer-encoded) body.
    let body: Range<Int>
    var children: [MIMEPart] = []
    /// The message inside a message/rfc822 part.
    var embedded: ParsedMessage?
    /// Dotted path in the tree, as IMAP numbers parts: "1", "1.2".
    let path: String
    /// Already-decoded content (Gmail API parts), used instead of decoding `body`.
    var decodedOverride: [UInt8]?
    /// The size the source states when the content itself is not included (Gmail API attachments).
    var declaredSize: Int?
    /// The filename the source states outside the headers (Gmail API `filename`).
    var filenameOverride: String?

    init(headers: HeaderBlock, contentType: HeaderParameters, disposition: HeaderParameters?,
         encoding: TransferEncoding, body: Range<Int>, path: String) {
        self.headers = headers
        self.contentType = contentType
        self.disposition = disposition
        self.encoding = encoding
        self.body = body
        self.path = path
    }

    var type: String { contentType.type }
    var isMultipart: Bool { contentType.type == "multipart" }

    /// The filename from Content-Disposition, else Content-Type's `name`.
    var filename: String? {
        if let f = filenameOverride { return f }
        if let f = disposition?.parameters["filename"], !f.isEmpty { return f }
        if let n = contentType.parameters["name"], !n.isEmpty { return n }
        return nil
    }

    var isAttachmentDisposition: Bool { disposition?.value == "attachment" }

    var contentID: String? {
        guard let raw = headers.first("content-id") else { return nil }
        let id = MessageIDs.first(String(decoding: raw.raw, as: UTF8.self))
        return id
    }
}

/// A parsed message: its bytes, top-level headers and MIME tree.
final class ParsedMessage {
    let bytes: [UInt8]
    let headers: HeaderBlock
    let root: MIMEPart
    var defects: [String]

    init(bytes: [UInt8], headers: HeaderBlock, root: MIMEPart, defects: [String]) {
        self.bytes = bytes
        self.headers = headers
        self.root = root
        self.defects = defects
    }
}

/// Builds the MIME tree. Nesting is capped; boundaries missing at the end, duplicated or
/// absent are recovered from, with a defect each.
struct MIMEParser {
    static let maxDepth = 32
    let decoder: HeaderTextDecoder

    func parse(_ bytes: [UInt8], depth: Int = 0) -> ParsedMessage {
        var defects: [String] = []
        let (headers, root) = bytes.withUnsafeBytes { b in
            let headers = HeaderBlock(b, from: 0, to: b.count)
            defects.append(contentsOf: headers.defects)
            let root = part(b, headers: headers, end: b.count, path: "1", parentIsDigest: false, depth: depth, defects: &defects)
            return (headers, root)
        }
        return ParsedMessage(bytes: bytes, headers: headers, root: root, defects: defects)
    }

    private func part(_ b: UnsafeRawBufferPointer, headers: HeaderBlock, end: Int, path: String,
                      parentIsDigest: Bool, depth: Int, defects: inout [String]) -> MIMEPart {
        var contentType: HeaderParameters
        if let ct = headers.first("content-type") {
            contentType = HeaderParameters(ct.raw, decoder: decoder, defects: &defects)
            if !contentType.value.contains("/") || contentType.type.isEmpty || contentType.subtype.isEmpty {
                defects.append("invalid_content_type")
                contentType = HeaderParameters(value: "text/plain", parameters: contentType.parameters)
            }
        } else {
            contentType = HeaderParameters(value: parentIsDigest ? "message/rfc822" : "text/plain")
        }
        let disposition = headers.first("content-disposition").map {
            HeaderParameters($0.raw, decoder: decoder, defects: &defects)
        }
        var encoding = TransferEncoding(header: headers.first("content-transfer-encoding").map {
            String(decoding: $0.raw, as: UTF8.self)
        })
        if case .unknown = encoding { defects.append("unknown_transfer_encoding") }
        if contentType.type == "multipart" && encoding != .identity {
            defects.append("multipart_with_transfer_encoding")
            encoding = .identity
        }
        let node = MIMEPart(headers: headers, contentType: contentType, disposition: disposition,
                            encoding: encoding, body: headers.bodyStart..<max(headers.bodyStart, end), path: path)
        if contentType.type == "multipart" {
            if depth >= Self.maxDepth {
                defects.append("nesting_too_deep")
                return node
            }
            node.children = children(b, of: node, depth: depth, defects: &defects)
        } else if contentType.value == "message/rfc822" || contentType.value == "message/global" {
            if depth >= Self.maxDepth {
                defects.append("nesting_too_deep")
                return node
            }
            let inner: [UInt8]
            if encoding == .identity {
                inner = Array(b[node.body])
            } else {
                inner = encoding.decode(UnsafeRawBufferPointer(rebasing: b[node.body]), defects: &defects)
            }
            let message = parse(inner, depth: depth + 1)
            defects.append(contentsOf: message.defects)
            node.embedded = message
        }
        return node
    }

    private func children(_ b: UnsafeRawBufferPointer, of node: MIMEPart, depth: Int, defects: inout [String]) -> [MIMEPart] {
        guard let boundary = node.contentType.parameters["boundary"], !boundary.isEmpty else {
            defects.append("missing_boundary_parameter")
            return []
        }
        let delimiter = Array("--".utf8) + Array(boundary.utf8)
        let range = node.body
        var starts: [(lineStart: Int, contentStart: Int)] = []  // each delimiter line, and the part after it
        var closeAt: Int?
        var i = range.lowerBound
        while i < range.upperBound, let hit = Bytes.find(delimiter, in: b, from: i, to: range.upperBound) {
            i = hit + delimiter.count
            guard hit == range.lowerBound || b[hit - 1] == Bytes.lf else { continue }
            var j = i
            var closing = false
            if j + 2 <= range.upperBound, b[j] == UInt8(ascii: "-"), b[j + 1] == UInt8(ascii: "-") {
                closing = true
                j += 2
            }
            // only whitespace may follow on the delimiter line (a longer boundary is not this one)
            while j < range.upperBound, b[j] == Bytes.space || b[j] == Bytes.tab { j += 1 }
            if j < range.upperBound, b[j] != Bytes.cr, b[j] != Bytes.lf {
                if !closing { continue }
                // "--boundary--garbage": still a close delimiter in practice
            }
            let (_, next) = Bytes.lineEnd(b, from: j, to: range.upperBound)
            if closing {
                closeAt = hit
                break
            }
            starts.append((hit, next))
            i = next
        }
        if starts.isEmpty {
            defects.append("missing_start_boundary")
            // read the body as one plain text part
            let headers = HeaderBlock(b, from: range.lowerBound, to: range.lowerBound)
            return [MIMEPart(headers: headers, contentType: HeaderParameters(value: "text/plain"), disposition: nil,
                             encoding: .identity, body: range, path: node.path + ".1")]
        }
        if closeAt == nil { defects.append("missing_end_boundary") }
        let isDigest = node.contentType.subtype == "digest"
        var parts: [MIMEPart] = []
        for (k, start) in starts.enumerated() {
            let nextLine = k + 1 < starts.count ? starts[k + 1].lineStart : (closeAt ?? range.upperBound)
            // the line break before a delimiter belongs to the delimiter
            var end = nextLine
            if k + 1 < starts.count || closeAt != nil {
                if end > start.contentStart, b[end - 1] == Bytes.lf { end -= 1 }
                if end > start.contentStart, b[end - 1] == Bytes.cr { end -= 1 }
            }
            end = max(end, start.contentStart)
            let headers = HeaderBlock(b, from: start.contentStart, to: end)
            defects.append(contentsOf: headers.defects.filter { $0 != "missing_header_body_separator" })
            let path = node.path == "1" && depth == 0 ? "\(k + 1)" : node.path + ".\(k + 1)"
            parts.append(part(b, headers: headers, end: end, path: path, parentIsDigest: isDigest, depth: depth + 1, defects: &defects))
        }
        return parts
    }
}
