import JSONLines
import UTF8Text

/// Gmail API message resources, one per line: `format=raw` (the message, base64url, in `raw`)
/// or `format=full` (headers and parts in `payload`, bodies base64url in `body.data`).
struct GmailAPIReader {
    let fd: Int32
    let path: String
    let initial: [UInt8]

    /// Every line, or with a `range` of the file, the lines that start in it.
    func forEach(range: Range<Int>? = nil, message: (RawMessage) throws -> Void, bad: (MailboxInput.BadRecord) throws -> Void) throws {
        var skipFirst = false
        var start = (offset: 0, line: 0)
        if let range, range.lowerBound > 0 {
            // from the byte before the cut: the first line read ends the shard before's last
            start.offset = range.lowerBound - 1
            start.line = try countLines(fd: fd, path: path, length: start.offset)
            try seek(fd: fd, path: path, to: start.offset)
            skipFirst = true
        }
        var reader = LineReader(fd: fd, initial: skipFirst ? [] : initial, offset: start.offset, lineNumber: start.line)
        defer { reader.close() }
        try reader.forEachLine { line in
            if skipFirst {
                skipFirst = false
                return true
            }
            if let range, line.offset >= range.upperBound { return false }
            if line.bytes.allSatisfy({ Bytes.isWhitespace($0) }) { return true }
            do {
                let value = try JSONValue.parse(Array(line.bytes))
                try message(try Self.message(from: value, path: path, offset: line.offset, length: line.length, line: line.number))
            } catch let error as JSONError {
                try bad(.init(message: error.description, line: line.number))
            } catch let error as GmailAPIError {
                try bad(.init(message: error.message, line: line.number))
            }
            return true
        }
    }

    struct GmailAPIError: Error { var message: String }

    static func message(from v: JSONValue, path: String, offset: Int, length: Int, line: Int) throws -> RawMessage {
        let source = MessageSource(path: path, offset: offset, length: length, format: "gmail-api", line: line)
        var raw: RawMessage
        if let data = v["raw"]?.stringValue {
            raw = RawMessage(bytes: base64URL(data), source: source)
        } else if let payload = v["payload"] {
            var headerLines: [UInt8] = []
            for h in payload["headers"]?.arrayValue ?? [] {
                headerLines += Array((h["name"]?.stringValue ?? "").utf8) + [0x3A, 0x20]
                headerLines += Array((h["value"]?.stringValue ?? "").utf8) + [0x0A]
            }
            raw = RawMessage(bytes: headerLines, source: source)
            raw.payload = payload
        } else {
            throw GmailAPIError(message: "a Gmail API message needs 'raw' or 'payload'")
        }
        // the API leaves out an empty list: a message without labelIds has none (archived and
        // read), whatever an X-Gmail-Labels header in its raw text said when it was imported
        raw.labelIDs = v["labelIds"]?.arrayValue?.compactMap(\.stringValue) ?? []
        raw.threadID = v["threadId"]?.stringValue
        raw.gmailID = v["id"]?.stringValue
        if let ms = v["internalDate"]?.intValue { raw.envelopeDate = ms / 1000 }
        return raw
    }

    static func base64URL(_ s: String) -> [UInt8] {
        var s = s
        return s.withUTF8 { Base64.decode(UnsafeRawBufferPointer($0)).bytes }
    }
}

extension MailboxInput {
    /// One Gmail API message resource (messages.get's answer, `format=raw` or `full`), as the
    /// reader of Gmail API lines reads each of its lines: gmail-sync hands over what it fetched
    /// without a file between. `path` names it in the record's source.
    public static func gmailAPIMessage(_ bytes: [UInt8], path: String) throws(BadRecord) -> RawMessage {
        do {
            return try GmailAPIReader.message(from: try JSONValue.parse(bytes), path: path, offset: 0, length: bytes.count, line: 1)
        } catch let error as JSONError {
            throw BadRecord(message: error.description, line: nil)
        } catch let error as GmailAPIReader.GmailAPIError {
            throw BadRecord(message: error.message, line: nil)
        } catch {
            throw BadRecord(message: "\(error)", line: nil)
        }
    }
}

/// Builds a MIME tree from a Gmail API `payload`: bodies arrive already transfer-decoded.
enum PayloadTree {
    static func build(_ payload: JSONValue, decoder: HeaderTextDecoder) -> ParsedMessage {
        var defects: [String] = []
        let root = part(payload, path: "1", decoder: decoder, defects: &defects)
        return ParsedMessage(storage: ByteStorage([]), headers: root.headers, root: root, defects: defects)
    }

    private static func part(_ v: JSONValue, path: String, decoder: HeaderTextDecoder, defects: inout [String]) -> MIMEPart {
        var fields: [HeaderField] = []
        for h in v["headers"]?.arrayValue ?? [] {
            guard let name = h["name"]?.stringValue else { continue }
            fields.append(HeaderField(lowercasedName: ASCII.lowercased(name), raw: Array((h["value"]?.stringValue ?? "").utf8)))
        }
        let headers = HeaderBlock(fields: fields)
        var contentType = headers.first("content-type").map { HeaderParameters($0.raw, decoder: decoder, defects: &defects) }
            ?? HeaderParameters(value: v["mimeType"]?.stringValue.map(ASCII.lowercased) ?? "text/plain")
        if let mime = v["mimeType"]?.stringValue.map(ASCII.lowercased), mime.contains("/") {
            contentType = HeaderParameters(value: mime, parameters: contentType.parameters)
        }
        let disposition = headers.first("content-disposition").map { HeaderParameters($0.raw, decoder: decoder, defects: &defects) }
        let node = MIMEPart(headers: headers, contentType: contentType, disposition: disposition,
                            encoding: .identity, storage: ByteStorage([]), body: 0..<0, path: path)
        if let data = v["body"]?["data"]?.stringValue {
            node.decodedOverride = GmailAPIReader.base64URL(data)
        } else if let size = v["body"]?["size"]?.intValue, size > 0 {
            node.decodedOverride = []
            node.declaredSize = size
        }
        if let filename = v["filename"]?.stringValue, !filename.isEmpty { node.filenameOverride = filename }
        let parts = v["parts"]?.arrayValue ?? []
        for (k, child) in parts.enumerated() {
            let childPath = path == "1" && node.isMultipart ? "\(k + 1)" : path + ".\(k + 1)"
            node.children.append(part(child, path: childPath, decoder: decoder, defects: &defects))
        }
        return node
    }
}
