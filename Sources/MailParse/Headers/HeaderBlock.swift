import UnicodeServices
import UTF8Text

/// One header field as it appears in the message: its name and its unfolded raw value.
struct HeaderField {
    var lowercasedName: String
    /// A hash of the lowercased name, so that looking a field up rarely compares strings.
    var nameHash: UInt64
    /// The value with line folds removed and ends trimmed, still as raw bytes.
    var raw: [UInt8]

    init(lowercasedName: String, raw: [UInt8]) {
        self.lowercasedName = lowercasedName
        self.nameHash = Self.hash(lowercasedName.utf8)
        self.raw = raw
    }

    /// A field from the name's bytes, lowercased as they are copied.
    init(name: UnsafeRawBufferPointer, raw: [UInt8]) {
        var h: UInt64 = 0xcbf2_9ce4_8422_2325
        for c in name { h = (h ^ UInt64(Bytes.lower(c))) &* 0x100_0000_01b3 }
        if name.count > 15, let known = Self.longNames[h], known.utf8.elementsEqual(name.lazy.map(Bytes.lower)) {
            lowercasedName = known
        } else {
            lowercasedName = ASCII.lowercasedString(name)
        }
        nameHash = h
        self.raw = raw
    }

    /// Common names too long for a String to hold inline (15 bytes), made once rather than
    /// allocated for every message.
    private static let longNames: [UInt64: String] = Dictionary(uniqueKeysWithValues: [
        "content-transfer-encoding", "content-disposition", "content-description", "content-language",
        "authentication-results", "arc-authentication-results", "arc-message-signature", "x-google-smtp-source",
        "list-unsubscribe", "list-unsubscribe-post", "x-gm-message-state", "x-google-dkim-signature",
        "x-ms-tnef-correlator", "x-auto-response-suppress", "x-originating-ip", "x-mozilla-status",
        "x-microsoft-antispam", "x-microsoft-antispam-message-info", "domainkey-signature", "disposition-notification-to",
    ].map { (hash($0.utf8), $0) })

    /// FNV-1a.
    static func hash(_ bytes: some Sequence<UInt8>) -> UInt64 {
        var h: UInt64 = 0xcbf2_9ce4_8422_2325
        for c in bytes { h = (h ^ UInt64(c)) &* 0x100_0000_01b3 }
        return h
    }
}

/// The header block of a message or MIME part, and where its body starts.
struct HeaderBlock {
    var fields: [HeaderField] = []
    /// Index of the first body byte.
    var bodyStart: Int
    var defects: [String] = []

    /// Splits the header block that starts at `start`. A line that is neither a field nor a
    /// continuation ends the block (as Python's parser does), with a defect. Fields after the
    /// first `maxFields` are left out, with a defect.
    init(_ b: UnsafeRawBufferPointer, from start: Int, to end: Int, maxFields: Int = .max) {
        bodyStart = end
        fields.reserveCapacity(32)
        var i = start
        /// The field being read: its name, and its value from after the colon to the end of its
        /// last line (continuation lines included).
        var current: (name: Range<Int>, value: Range<Int>, folded: Bool)?
        var leftOut = false
        func flush(_ fields: inout [HeaderField]) {
            guard let c = current else { return }
            current = nil
            guard fields.count < maxFields else {
                leftOut = true
                return
            }
            let raw = c.folded ? Self.unfolded(b, c.value) : Array(b[Bytes.trim(b, c.value)])
            fields.append(HeaderField(name: UnsafeRawBufferPointer(rebasing: b[c.name]), raw: raw))
        }
        defer { if leftOut { defects.append("too_many_header_fields") } }
        while i < end {
            let (contentEnd, next) = Bytes.lineEnd(b, from: i, to: end)
            if contentEnd == i {  // empty line: end of headers
                flush(&fields)
                bodyStart = next
                return
            }
            let c0 = b[i]
            if c0 == Bytes.space || c0 == Bytes.tab {
                if current != nil {
                    current!.value = current!.value.lowerBound..<contentEnd
                    current!.folded = true
                } else {
                    defects.append("continuation_without_field")
                }
                i = next
                continue
            }
            // a field name is printable ASCII up to a colon; tolerate spaces before the colon
            var colon = i
            while colon < contentEnd, b[colon] != UInt8(ascii: ":"), b[colon] > 0x20, b[colon] < 0x7F { colon += 1 }
            let nameEnd = colon
            while colon < contentEnd, b[colon] == Bytes.space || b[colon] == Bytes.tab { colon += 1 }
            if colon < contentEnd, b[colon] == UInt8(ascii: ":"), nameEnd > i {
                flush(&fields)
                current = (i..<nameEnd, (colon + 1)..<contentEnd, false)
                i = next
                continue
            }
            if fields.isEmpty, current == nil, i == start, Bytes.hasPrefix(b, at: i, MboxReader.fromSpace) {
                i = next  // an mbox From_ line handed over with a single message (procmail)
                continue
            }
            flush(&fields)
            defects.append("missing_header_body_separator")
            bodyStart = i
            return
        }
        flush(&fields)
        bodyStart = end
    }

    /// A value written on several lines, as one: the line breaks go, the white space that
    /// starts each continuation line stays (RFC 5322 unfolding); the ends trimmed.
    private static func unfolded(_ b: UnsafeRawBufferPointer, _ value: Range<Int>) -> [UInt8] {
        var i = Bytes.trim(b, value).lowerBound  // line breaks are white space: as trimming after
        var raw: [UInt8] = []
        raw.reserveCapacity(value.upperBound - i)
        while i < value.upperBound {
            let (contentEnd, next) = Bytes.lineEnd(b, from: i, to: value.upperBound)
            raw.append(contentsOf: UnsafeRawBufferPointer(rebasing: b[i..<contentEnd]))
            i = next
        }
        while let last = raw.last, Bytes.isWhitespace(last) { raw.removeLast() }
        return raw
    }

    init(fields: [HeaderField]) {
        self.fields = fields
        bodyStart = 0
    }

    func first(_ lowercasedName: String) -> HeaderField? {
        let h = HeaderField.hash(lowercasedName.utf8)
        return fields.first { $0.nameHash == h && $0.lowercasedName == lowercasedName }
    }

    func all(_ lowercasedName: String) -> [HeaderField] {
        let h = HeaderField.hash(lowercasedName.utf8)
        return fields.filter { $0.nameHash == h && $0.lowercasedName == lowercasedName }
    }
}
