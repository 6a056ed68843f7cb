import UnicodeServices
import UTF8Text

/// A header's parameters: a few name-value pairs, looked up by name. (An array: a dictionary
/// costs more than a linear search over one to three entries, on every part of every message.)
/// A name given twice has the value given first; lookups are few, so a hostile header of
/// thousands of parameters costs time in proportion to its length.
struct Parameters {
    private var pairs: [(name: String, value: String)] = []

    init() {}

    init(_ pairs: [(name: String, value: String)]) { self.pairs = pairs }

    subscript(name: String) -> String? {
        get { pairs.first { $0.name == name }?.value }
        set {
            pairs.removeAll { $0.name == name }
            if let newValue { pairs.append((name, newValue)) }
        }
    }
}

/// A parsed `Content-Type` or `Content-Disposition`: the value before the first `;` and its
/// parameters, with RFC 2231 continuations and charsets and RFC 2047 words (which mailers put
/// in filenames although they should not, even inside RFC 2231 values) decoded.
struct HeaderParameters {
    /// Lowercased: `text/plain`, `attachment`.
    var value: String {
        didSet { (type, subtype) = Self.split(value) }
    }
    /// `text` and `plain` of `text/plain`, split once.
    private(set) var type = ""
    private(set) var subtype = ""
    /// Lowercased names, decoded values.
    var parameters: Parameters

    init(value: String, parameters: Parameters = Parameters()) {
        self.value = value
        self.parameters = parameters
        (type, subtype) = Self.split(value)
    }

    private static func split(_ value: String) -> (String, String) {
        guard let slash = value.firstIndex(of: "/") else { return (value, "") }
        return (String(value[..<slash]), String(value[value.index(after: slash)...]))
    }

    /// One RFC 2231 piece of a parameter: `name*=` (the whole value, `index` nil), `name*0=`,
    /// `name*1*=`...; `encoded` when its name ends in `*` (charset'language'%XX).
    private struct Section {
        var index: Int?
        var encoded: Bool
        var bytes: [UInt8]
    }

    init(_ raw: [UInt8], decoder: HeaderTextDecoder, defects: inout [String]) {
        var plain: [(name: String, value: String)] = []
        // RFC 2231 values (name*, name*0, name*1*, ...), rare: by name, in order of appearance
        var sections: [String: [Section]] = [:]
        var sectionNames: [String] = []
        let first = raw.withUnsafeBytes { b in
            Self.split(b) { name, value, quoted in
                let key = Self.keyString(name)
                guard let star = key.firstIndex(of: "*") else {
                    let trimmed = value.withUnsafeBytes { Bytes.trim($0, 0..<value.count) }
                    plain.append((key, decoder.decode(trimmed.count == value.count ? value : Array(value[trimmed]), defects: &defects)))
                    return
                }
                let base = String(key[..<star])
                var rest = key[key.index(after: star)...]
                let encoded = rest.isEmpty || rest.hasSuffix("*")
                if rest.hasSuffix("*") { rest = rest.dropLast() }
                var index: Int?
                if !rest.isEmpty {
                    guard rest.utf8.count <= 6, rest.utf8.allSatisfy(ASCII.isDigit), let n = Int(rest) else {
                        defects.append("invalid_rfc2231_parameter")
                        return
                    }
                    index = n
                }
                // a quoted piece is kept as written: continuations split names at spaces
                var bytes = value
                if !quoted {
                    let trimmed = value.withUnsafeBytes { Bytes.trim($0, 0..<value.count) }
                    bytes = Array(value[trimmed])
                }
                if sections[base] == nil { sectionNames.append(base) }
                sections[base, default: []].append(Section(index: index, encoded: encoded, bytes: bytes))
            }
        }
        value = first.withUnsafeBytes { Self.keyString($0) }
        (type, subtype) = Self.split(value)
        // RFC 2231 values win over plain ones of the same name (RFC 6266 §4.3), so they go
        // first; one whose charset is unknown goes after them, a last resort
        var extended: [(name: String, value: String)] = []
        var lastResort: [(name: String, value: String)] = []
        for name in sectionNames {
            let (text, charsetKnown) = Self.joined(sections[name]!, decoder: decoder, defects: &defects)
            guard !text.isEmpty else { continue }
            if charsetKnown { extended.append((name, text)) } else { lastResort.append((name, text)) }
        }
        parameters = Parameters(extended + plain + lastResort)
    }

    /// One RFC 2231 parameter's pieces as text: in the order of their numbers, percent-decoded
    /// where encoded, read in the charset of the first, and RFC 2047 words in the result
    /// decoded. A gap, a number given twice, or a whole value beside numbered pieces is a
    /// defect; what is there is still read. Also says whether the charset was known.
    private static func joined(_ pieces: [Section], decoder: HeaderTextDecoder, defects: inout [String]) -> (String, Bool) {
        var ordered: [Section]
        if let whole = pieces.first(where: { $0.index == nil }) {
            if pieces.count > 1 { defects.append("invalid_rfc2231_parameter") }
            ordered = [whole]
        } else {
            ordered = []
            var expected = 0
            // stable: of two pieces with one number, the first written is kept
            for piece in pieces.enumerated().sorted(by: { ($0.element.index!, $0.offset) < ($1.element.index!, $1.offset) }).map(\.element) {
                let n = piece.index!
                if n < expected {
                    defects.append("invalid_rfc2231_parameter")
                    continue
                }
                if n > expected { defects.append("invalid_rfc2231_parameter") }
                expected = n + 1
                ordered.append(piece)
            }
        }
        var charset: [UInt8]?
        var collected: [UInt8] = []
        for (k, piece) in ordered.enumerated() {
            var bytes = piece.bytes
            if piece.encoded {
                if k == 0, let (label, valueStart) = charsetPrefix(bytes) {
                    charset = label.isEmpty ? nil : label
                    bytes.removeSubrange(..<valueStart)
                } else if k > 0, let charset, let (label, valueStart) = charsetPrefix(bytes),
                          label.map(Bytes.lower) == charset.map(Bytes.lower) {
                    // some mailers repeat charset'language' in every piece
                    bytes.removeSubrange(..<valueStart)
                }
                bytes = percentDecode(bytes)
            }
            collected += bytes
        }
        let label = charset.map { String(decoding: $0, as: UTF8.self) }
        let result = decoder.charsets.decode(collected, label: label)
        var known = true
        switch result.problem {
        case .unknownCharset?:
            defects.append("unknown_charset")
            known = false
        case .invalidBytes?: defects.append("invalid_charset_bytes")
        default: break
        }
        var text = result.utf8
        if text.withUnsafeBytes({ Bytes.find([UInt8(ascii: "="), UInt8(ascii: "?")], in: $0, from: 0) }) != nil {
            text = Array(decoder.decode(text, defects: &defects).utf8)
        }
        let trimmed = text.withUnsafeBytes { Bytes.trim($0, 0..<text.count) }
        return (String(decoding: text[trimmed], as: UTF8.self), known)
    }

    /// `charset'language'` at the start of an encoded piece: the charset's bytes and where the
    /// value starts; nil when the piece does not start so (a charset is letters, digits and
    /// `-_.:()`, as IANA names them).
    static func charsetPrefix(_ bytes: [UInt8]) -> (charset: [UInt8], valueStart: Int)? {
        guard let q1 = bytes.prefix(64).firstIndex(of: UInt8(ascii: "'")),
              let q2 = bytes[(q1 + 1)...].prefix(64).firstIndex(of: UInt8(ascii: "'")) else { return nil }
        let charset = Array(bytes[..<q1])
        let isCharset = charset.allSatisfy { c in
            ASCII.isDigit(c) || (c | 0x20) &- 0x61 < 26 || c == UInt8(ascii: "-") || c == UInt8(ascii: "_")
                || c == UInt8(ascii: ".") || c == UInt8(ascii: ":") || c == UInt8(ascii: "(") || c == UInt8(ascii: ")")
        }
        return isCharset ? (charset, q2 + 1) : nil
    }

    /// A name or the type, lowercased, without the white space and quotes around it.
    private static func keyString(_ b: UnsafeRawBufferPointer) -> String {
        var lo = 0, hi = b.count
        func isTrimmed(_ c: UInt8) -> Bool { Bytes.isWhitespace(c) || c == UInt8(ascii: "\"") }
        while lo < hi, isTrimmed(b[lo]) { lo += 1 }
        while hi > lo, isTrimmed(b[hi - 1]) { hi -= 1 }
        return ASCII.lowercasedString(UnsafeRawBufferPointer(rebasing: b[lo..<hi]))
    }

    /// Splits at `;`: the first piece is the value (returned, a comment in parentheses taken
    /// out); each later `name=value` goes to `parameter` with its value unquoted (backslash
    /// escapes undone) and whether it was quoted (a `;` inside quotes is part of the value;
    /// text after the closing quote is dropped). Unquoted values keep their white space.
    private static func split(_ b: UnsafeRawBufferPointer, _ parameter: (UnsafeRawBufferPointer, [UInt8], Bool) -> Void) -> [UInt8] {
        let n = b.count
        var i = 0
        var first: [UInt8] = []
        while i < n, b[i] != UInt8(ascii: ";") {
            if b[i] == UInt8(ascii: "(") {  // a comment after the type: text/plain (comment)
                var depth = 1
                i += 1
                while i < n, depth > 0 {
                    if b[i] == UInt8(ascii: "(") { depth += 1 } else if b[i] == UInt8(ascii: ")") { depth -= 1 }
                    i += 1
                }
                continue
            }
            let runEnd = (i..<n).first { b[$0] == UInt8(ascii: ";") || b[$0] == UInt8(ascii: "(") } ?? n
            first.append(contentsOf: UnsafeRawBufferPointer(rebasing: b[i..<runEnd]))
            i = runEnd
        }
        while i < n {
            i += 1  // the ';'
            let nameStart = i
            while i < n, b[i] != UInt8(ascii: ";"), b[i] != UInt8(ascii: "=") { i += 1 }
            guard i < n, b[i] == UInt8(ascii: "=") else { continue }  // no value: not a parameter
            let name = UnsafeRawBufferPointer(rebasing: b[nameStart..<i])
            i += 1
            while i < n, b[i] == Bytes.space || b[i] == Bytes.tab { i += 1 }
            var value: [UInt8]
            let quoted = i < n && b[i] == UInt8(ascii: "\"")
            if quoted {
                i += 1
                let start = i
                while i < n, b[i] != UInt8(ascii: "\""), b[i] != UInt8(ascii: "\\") { i += 1 }
                value = Array(b[start..<i])
                while i < n, b[i] != UInt8(ascii: "\"") {  // after a quoted pair, a byte at a time
                    if b[i] == UInt8(ascii: "\\"), i + 1 < n { i += 1 }
                    value.append(b[i])
                    i += 1
                }
                while i < n, b[i] != UInt8(ascii: ";") { i += 1 }
            } else {
                let start = i
                while i < n, b[i] != UInt8(ascii: ";") { i += 1 }
                value = Array(b[start..<i])
            }
            parameter(name, value, quoted)
        }
        return first
    }

    static func percentDecode(_ bytes: [UInt8]) -> [UInt8] {
        var out = [UInt8]()
        out.reserveCapacity(bytes.count)
        var i = 0
        while i < bytes.count {
            if bytes[i] == UInt8(ascii: "%"), i + 2 < bytes.count, let h = hexDigit(bytes[i + 1]), let l = hexDigit(bytes[i + 2]) {
                out.append(h << 4 | l)
                i += 3
            } else {
                out.append(bytes[i])
                i += 1
            }
        }
        return out
    }
}
