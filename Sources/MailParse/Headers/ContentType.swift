import UnicodeServices

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
        let tokens = raw.withUnsafeBytes { Self.split($0) }
        value = tokens.first.map { String(decoding: $0.name, as: UTF8.self).asciiLowercased.trimmingSpaces } ?? ""
        (type, subtype) = Self.split(value)
        // Collect RFC 2231 sections: name*0, name*1*, ...
        var sections: [String: [(index: Int, encoded: Bool, bytes: [UInt8])]] = [:]
        var plain: [(String, [UInt8])] = []
        for token in tokens.dropFirst() {
            guard let eq = token.name.firstIndex(of: UInt8(ascii: "=")) else { continue }
            let key = String(decoding: token.name[..<eq], as: UTF8.self).asciiLowercased.trimmingSpaces
            let value = token.value ?? []
            if let star = key.firstIndex(of: "*") {
                let base = String(key[..<star])
                let rest = key[key.index(after: star)...]
                let encoded = rest.hasSuffix("*") || rest.isEmpty
                let indexText = rest.hasSuffix("*") ? rest.dropLast() : rest
                let index = indexText.isEmpty ? 0 : Int(indexText) ?? 0
                sections[base, default: []].append((index, encoded, value))
            } else if !plain.contains(where: { $0.0 == key }) {
                plain.append((key, value))
            }
        }
        var result = Parameters()
        for (key, bytes) in plain {
            result[key] = decoder.decode(bytes, defects: &defects)
        }
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


    /// Splits at `;` outside quotes; each token is `name=value` with the value unquoted.
    private static func split(_ b: UnsafeRawBufferPointer) -> [(name: [UInt8], value: [UInt8]?)] {
        var tokens: [(name: [UInt8], value: [UInt8]?)] = []
        var current = [UInt8]()
        var value: [UInt8]?
        var i = 0
        func finish() {
            let trimmedName = current.withUnsafeBytes { Bytes.trim($0, 0..<current.count) }
            if !trimmedName.isEmpty || value != nil {
                var v = value
                if var raw = v, value != nil {
                    let r = raw.withUnsafeBytes { Bytes.trim($0, 0..<raw.count) }
                    raw = Array(raw[r])
                    v = raw
                }
                tokens.append((Array(current[trimmedName]), v))
            }
            current = []
            value = nil
        }
        while i < b.count {
            let c = b[i]
            if c == UInt8(ascii: ";") {
                finish()
            } else if c == UInt8(ascii: "(") && value == nil && tokens.isEmpty {
                // a comment after the type: text/plain (comment)
                var depth = 1
                i += 1
                while i < b.count, depth > 0 {
                    if b[i] == UInt8(ascii: "(") { depth += 1 } else if b[i] == UInt8(ascii: ")") { depth -= 1 }
                    i += 1
                }
                continue
            } else if c == UInt8(ascii: "=") && value == nil && !tokens.isEmpty {
                current.append(c)
                value = []
                // quoted value
                var j = i + 1
                while j < b.count, b[j] == Bytes.space || b[j] == Bytes.tab { j += 1 }
                if j < b.count, b[j] == UInt8(ascii: "\"") {
                    j += 1
                    while j < b.count, b[j] != UInt8(ascii: "\"") {
                        if b[j] == UInt8(ascii: "\\"), j + 1 < b.count { j += 1 }
                        value!.append(b[j])
                        j += 1
                    }
                    i = j + 1
                    // skip to the next ';'
                    while i < b.count, b[i] != UInt8(ascii: ";") { i += 1 }
                    finish()
                    i += 1
                    continue
                }
                i = j
                continue
            } else if value != nil {
                value!.append(c)
            } else {
                current.append(c)
            }
            i += 1
        }
        finish()
        return tokens
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
