import UnicodeServices
import UTF8Text

/// A header's parameters: a few name-value pairs, looked up by name. (An array: a dictionary
/// costs more than a linear search over one to three entries, on every part of every message.)
struct Parameters {
    private var pairs: [(name: String, value: String)] = []

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
/// in filenames although they should not) decoded.
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

    init(_ raw: [UInt8], decoder: HeaderTextDecoder, defects: inout [String]) {
        var result = Parameters()
        // RFC 2231 sections (name*0, name*1*, ...), rare: collected only when a name has a star
        var sections: [String: [(index: Int, encoded: Bool, bytes: [UInt8])]] = [:]
        var seen: [String] = []
        let first = raw.withUnsafeBytes { b in
            Self.split(b) { name, value in
                let key = Self.keyString(name)
                if let star = key.firstIndex(of: "*") {
                    let base = String(key[..<star])
                    let rest = key[key.index(after: star)...]
                    let encoded = rest.hasSuffix("*") || rest.isEmpty
                    let indexText = rest.hasSuffix("*") ? rest.dropLast() : rest
                    let index = indexText.isEmpty ? 0 : Int(indexText) ?? 0
                    sections[base, default: []].append((index, encoded, value))
                } else if !seen.contains(key) {
                    seen.append(key)
                    result[key] = decoder.decode(value, defects: &defects)
                }
            }
        }
        value = first.withUnsafeBytes { Self.keyString($0) }
        (type, subtype) = Self.split(value)
        for (key, parts) in sections {
            let ordered = parts.sorted { $0.index < $1.index }
            var charset: String?
            var collected = [UInt8]()
            for (n, part) in ordered.enumerated() {
                var bytes = part.bytes
                if part.encoded {
                    if n == 0 {
                        // charset'language'value
                        let quotes = bytes.indices.filter { bytes[$0] == UInt8(ascii: "'") }
                        if quotes.count >= 2 {
                            let cs = String(decoding: bytes[..<quotes[0]], as: UTF8.self)
                            charset = cs.isEmpty ? nil : cs
                            bytes = Array(bytes[(quotes[1] + 1)...])
                        }
                    }
                    bytes = Self.percentDecode(bytes)
                }
                collected.append(contentsOf: bytes)
            }
            let decoded = decoder.charsets.decode(collected, label: charset ?? "utf-8")
            result[key] = String(decoding: decoded.utf8, as: UTF8.self)  // RFC 2231 wins over a plain duplicate
        }
        parameters = result
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
    /// out); each later `name=value` goes to `parameter` with its value unquoted and trimmed
    /// (a `;` inside quotes is part of the value; text after the closing quote is dropped).
    private static func split(_ b: UnsafeRawBufferPointer, _ parameter: (UnsafeRawBufferPointer, [UInt8]) -> Void) -> [UInt8] {
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
            if i < n, b[i] == UInt8(ascii: "\"") {
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
            let trimmed = value.withUnsafeBytes { Bytes.trim($0, 0..<value.count) }
            parameter(name, trimmed.count == value.count ? value : Array(value[trimmed]))
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
