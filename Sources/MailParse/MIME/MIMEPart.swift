/// The bytes a part's body range points into: the message's, or a decoded copy when a
/// container was transfer-encoded (a base64 multipart or message/rfc822). Ranges count from
/// the first byte of `bytes`, which may be a slice of a mailbox reader's buffer (no copy).
final class ByteStorage {
    private let bytes: ArraySlice<UInt8>
    init(_ bytes: ArraySlice<UInt8>) { self.bytes = bytes }
    convenience init(_ bytes: [UInt8]) { self.init(bytes[...]) }

    var count: Int { bytes.count }

    func withUnsafeBytes<R>(_ body: (UnsafeRawBufferPointer) throws -> R) rethrows -> R {
        try bytes.withUnsafeBytes(body)
    }
}

/// One node of a message's MIME tree. Bodies are ranges into `storage`, decoded only when a
/// part is used.
final class MIMEPart {
    let headers: HeaderBlock
    let contentType: HeaderParameters
    let disposition: HeaderParameters?
    let encoding: TransferEncoding
    let storage: ByteStorage
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
         encoding: TransferEncoding, storage: ByteStorage, body: Range<Int>, path: String) {
        self.headers = headers
        self.contentType = contentType
        self.disposition = disposition
        self.encoding = encoding
        self.storage = storage
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
        headers.first("content-id").flatMap { MessageIDs.first($0.raw) }
    }

    /// The body with its transfer encoding undone.
    func decodedBody(defects: inout [String]) -> [UInt8] {
        decodedBody(defects: &defects, readingAtMost: .max)
    }

    /// The body decoded from at most `limit` of its encoded bytes (cut after a line), or the
    /// whole body when it is no longer.
    func decodedBody(defects: inout [String], readingAtMost limit: Int) -> [UInt8] {
        if let decodedOverride { return decodedOverride }
        return storage.withUnsafeBytes { b in
            var range = body
            if range.count > limit {
                let cut = range.lowerBound + limit
                let lineEnd = UnsafeRawBufferPointer(rebasing: b[range.lowerBound..<cut]).lastIndex(of: Bytes.lf)
                range = range.lowerBound..<(lineEnd.map { range.lowerBound + $0 + 1 } ?? cut)
            }
            return encoding.decode(UnsafeRawBufferPointer(rebasing: b[range]), defects: &defects)
        }
    }

    /// The body with its transfer encoding undone, handed to `body` a piece at a time (from
    /// about `pieceSize` encoded bytes each): the same bytes as `decodedBody`.
    func decodeBody(inPiecesOf pieceSize: Int, defects: inout [String], _ body: (UnsafeRawBufferPointer) throws -> Void) rethrows {
        if let decodedOverride { return try decodedOverride.withUnsafeBytes(body) }
        try storage.withUnsafeBytes { b in
            try encoding.decode(UnsafeRawBufferPointer(rebasing: b[self.body]), inPiecesOf: pieceSize, defects: &defects, body)
        }
    }

    /// Whether `decodedBody(readingAtMost: limit)` reads only part of the body.
    func isCut(readingAtMost limit: Int) -> Bool { decodedOverride == nil && body.count > limit }
}

/// A parsed message: its bytes, top-level headers and MIME tree.
final class ParsedMessage {
    let storage: ByteStorage
    let headers: HeaderBlock
    let root: MIMEPart
    var defects: [String]

    init(storage: ByteStorage, headers: HeaderBlock, root: MIMEPart, defects: [String]) {
        self.storage = storage
        self.headers = headers
        self.root = root
        self.defects = defects
    }
}

/// Builds the MIME tree. Nesting is capped; boundaries missing at the end, duplicated or
/// absent are recovered from, with a defect each.
struct MIMEParser {
    static let maxDepth = 256
    let decoder: HeaderTextDecoder
    var maxHeaderFields = Int.max

    func parse(_ bytes: ArraySlice<UInt8>, depth: Int = 0) -> ParsedMessage {
        let storage = ByteStorage(bytes)
        var defects: [String] = []
        let headers = bytes.withUnsafeBytes { HeaderBlock($0, from: 0, to: $0.count, maxFields: maxHeaderFields) }
        defects.append(contentsOf: headers.defects)
        let root = part(storage, headers: headers, end: bytes.count, path: "1", parentIsDigest: false, depth: depth, defects: &defects)
        return ParsedMessage(storage: storage, headers: headers, root: root, defects: defects)
    }

    private func part(_ storage: ByteStorage, headers: HeaderBlock, end: Int, path: String,
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
        let encoding = TransferEncoding(header: headers.first("content-transfer-encoding").map {
            String(decoding: $0.raw, as: UTF8.self)
        })
        if case .unknown = encoding { defects.append("unknown_transfer_encoding") }
        let node = MIMEPart(headers: headers, contentType: contentType, disposition: disposition, encoding: encoding,
                            storage: storage, body: headers.bodyStart..<max(headers.bodyStart, end), path: path)
        let isMessage = contentType.value == "message/rfc822" || contentType.value == "message/global"
        guard contentType.type == "multipart" || isMessage else { return node }
        if depth >= Self.maxDepth {
            defects.append("nesting_too_deep")
            return node
        }
        // a container must not be transfer-encoded, but some are: decode, then read inside
        var inner = storage
        var innerRange = node.body
        if encoding.transformsContent {
            if contentType.type == "multipart" { defects.append("multipart_with_transfer_encoding") }
            inner = ByteStorage(node.decodedBody(defects: &defects))
            innerRange = 0..<inner.count
        }
        if isMessage {
            let message = parse(inner.withUnsafeBytes { Array($0[innerRange])[...] }, depth: depth + 1)
            defects.append(contentsOf: message.defects)
            node.embedded = message
        } else {
            node.children = children(inner, innerRange, of: node, depth: depth, defects: &defects)
        }
        return node
    }

    /// Each delimiter line in `range` (where it starts, where the part after it starts) and the
    /// close delimiter, if any.
    private func delimiters(_ delimiter: [UInt8], in storage: ByteStorage, _ range: Range<Int>, prefixOnly: Bool)
        -> (starts: [(lineStart: Int, contentStart: Int)], closeAt: Int?)
    {
        var starts: [(lineStart: Int, contentStart: Int)] = []
        var closeAt: Int?
        storage.withUnsafeBytes { b in
            var i = range.lowerBound
            while i < range.upperBound, let hit = Bytes.find(delimiter, in: b, from: i, to: range.upperBound) {
                i = hit + delimiter.count
                guard hit == range.lowerBound || b[hit - 1] == Bytes.lf else { continue }
                var j = i
                let closing = j + 2 <= range.upperBound && b[j] == UInt8(ascii: "-") && b[j + 1] == UInt8(ascii: "-")
                if closing { j += 2 }
                while j < range.upperBound, b[j] == Bytes.space || b[j] == Bytes.tab { j += 1 }
                // "--boundary--garbage" still closes
                if !closing, !prefixOnly, j < range.upperBound, b[j] != Bytes.cr, b[j] != Bytes.lf { continue }
                if closing {
                    closeAt = hit
                    break
                }
                let (_, next) = Bytes.lineEnd(b, from: j, to: range.upperBound)
                starts.append((hit, next))
                i = next
            }
        }
        return (starts, closeAt)
    }

    /// A multipart whose parts cannot be found: its body, as the only, plain text, part.
    private func plainTextPart(_ storage: ByteStorage, _ range: Range<Int>, of node: MIMEPart) -> MIMEPart {
        MIMEPart(headers: HeaderBlock(fields: []), contentType: HeaderParameters(value: "text/plain"), disposition: nil,
                 encoding: .identity, storage: storage, body: range, path: node.path + ".1")
    }

    private func children(_ storage: ByteStorage, _ range: Range<Int>, of node: MIMEPart, depth: Int,
                          defects: inout [String]) -> [MIMEPart] {
        guard let boundary = node.contentType.parameters["boundary"], !boundary.isEmpty else {
            defects.append("missing_boundary_parameter")
            return [plainTextPart(storage, range, of: node)]
        }
        let delimiter = Array("--".utf8) + Array(boundary.utf8)
        // First strictly: only whitespace may follow a delimiter, so that a longer boundary
        // (a nested part's "--abc" under "--ab") is not this one. Then, if that finds none,
        // by RFC 2046's rule that the delimiter need only begin the line.
        var (starts, closeAt) = delimiters(delimiter, in: storage, range, prefixOnly: false)
        if starts.isEmpty {
            (starts, closeAt) = delimiters(delimiter, in: storage, range, prefixOnly: true)
            if !starts.isEmpty { defects.append("text_after_boundary") }
        }
        if closeAt == nil, starts.count > 1, let last = starts.last,
            storage.withUnsafeBytes({ b in (last.contentStart..<range.upperBound).allSatisfy { Bytes.isWhitespace(b[$0]) } })
        {
            // a delimiter written where the close delimiter belonged leaves an empty last part
            starts.removeLast()
            closeAt = last.lineStart
            defects.append("missing_end_boundary")
        }
        if starts.isEmpty {
            defects.append("missing_start_boundary")
            // nothing is lost: the body up to a close delimiter, if any, is read as plain text
            var end = closeAt ?? range.upperBound
            if closeAt != nil {  // the line break before the close delimiter is part of it
                storage.withUnsafeBytes { b in
                    if end > range.lowerBound, b[end - 1] == Bytes.lf { end -= 1 }
                    if end > range.lowerBound, b[end - 1] == Bytes.cr { end -= 1 }
                }
            }
            return [plainTextPart(storage, range.lowerBound..<end, of: node)]
        }
        if closeAt == nil { defects.append("missing_end_boundary") }
        let isDigest = node.contentType.subtype == "digest"
        var parts: [MIMEPart] = []
        for (k, start) in starts.enumerated() {
            var end = k + 1 < starts.count ? starts[k + 1].lineStart : (closeAt ?? range.upperBound)
            let headers: HeaderBlock = storage.withUnsafeBytes { b in
                // the line break before a delimiter belongs to the delimiter
                if k + 1 < starts.count || closeAt != nil {
                    if end > start.contentStart, b[end - 1] == Bytes.lf { end -= 1 }
                    if end > start.contentStart, b[end - 1] == Bytes.cr { end -= 1 }
                }
                end = max(end, start.contentStart)
                return HeaderBlock(b, from: start.contentStart, to: end, maxFields: maxHeaderFields)
            }
            defects.append(contentsOf: headers.defects.filter { $0 != "missing_header_body_separator" })
            let path = node.path == "1" && depth == 0 ? "\(k + 1)" : node.path + ".\(k + 1)"
            parts.append(part(storage, headers: headers, end: end, path: path, parentIsDigest: isDigest, depth: depth + 1, defects: &defects))
        }
        return parts
    }
}
