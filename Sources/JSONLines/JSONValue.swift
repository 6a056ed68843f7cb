import UTF8Text

/// A decoded JSON value. Numbers keep the text they were written as, so nothing is rounded.
public enum JSONValue: Equatable, Sendable {
    case null
    case bool(Bool)
    case number(String)
    case string(String)
    case array([JSONValue])
    case object([(String, JSONValue)])

    public static func == (a: JSONValue, b: JSONValue) -> Bool {
        switch (a, b) {
        case (.null, .null): true
        case (.bool(let x), .bool(let y)): x == y
        case (.number(let x), .number(let y)): x == y
        case (.string(let x), .string(let y)): x == y
        case (.array(let x), .array(let y)): x == y
        case (.object(let x), .object(let y)): x.count == y.count && zip(x, y).allSatisfy { $0.0 == $1.0 && $0.1 == $1.1 }
        default: false
        }
    }

    /// Parses a whole JSON text.
    public static func parse(_ bytes: [UInt8]) throws(JSONError) -> JSONValue {
        let result = bytes.withUnsafeBytes { buf in
            Result { () throws(JSONError) -> JSONValue in
                var check = JSONScanner(buf)
                check.skipWhitespace()
                try check.scanValue()
                check.skipWhitespace()
                if check.i != buf.count { throw check.fail("text after the value") }
                var parser = JSONValueParser(buf, at: 0)
                return try parser.parse()
            }
        }
        return try result.get()
    }

    public subscript(key: String) -> JSONValue? {
        if case .object(let members) = self { return members.first { $0.0 == key }?.1 }
        return nil
    }

    public var stringValue: String? {
        if case .string(let s) = self { return s }
        return nil
    }

    public var arrayValue: [JSONValue]? {
        if case .array(let a) = self { return a }
        return nil
    }

    public var intValue: Int? {
        if case .number(let n) = self { return Int(n) }
        if case .string(let s) = self { return Int(s) }
        return nil
    }
}

/// Decodes a value that `JSONScanner` has already checked.
struct JSONValueParser {
    let bytes: UnsafeRawBufferPointer
    var i: Int

    init(_ bytes: UnsafeRawBufferPointer, at start: Int) {
        self.bytes = bytes
        self.i = start
    }

    mutating func skipWhitespace() {
        while i < bytes.count, bytes[i] == 0x20 || bytes[i] == 0x0A || bytes[i] == 0x0D || bytes[i] == 0x09 { i += 1 }
    }

    mutating func parse() throws(JSONError) -> JSONValue {
        skipWhitespace()
        guard i < bytes.count else { throw JSONError("unexpected end of input", at: i) }
        switch bytes[i] {
        case UInt8(ascii: "{"):
            i += 1
            var members: [(String, JSONValue)] = []
            skipWhitespace()
            if bytes[i] == UInt8(ascii: "}") {
                i += 1
                return .object(members)
            }
            while true {
                skipWhitespace()
                guard case .string(let key) = try parse() else { throw JSONError("expected a key", at: i) }
                skipWhitespace()
                i += 1  // ':'
                members.append((key, try parse()))
                skipWhitespace()
                let c = bytes[i]
                i += 1
                if c == UInt8(ascii: "}") { return .object(members) }
            }
        case UInt8(ascii: "["):
            i += 1
            var items: [JSONValue] = []
            skipWhitespace()
            if bytes[i] == UInt8(ascii: "]") {
                i += 1
                return .array(items)
            }
            while true {
                items.append(try parse())
                skipWhitespace()
                let c = bytes[i]
                i += 1
                if c == UInt8(ascii: "]") { return .array(items) }
            }
        case UInt8(ascii: "\""):
            return .string(parseString())
        case UInt8(ascii: "t"):
            i += 4
            return .bool(true)
        case UInt8(ascii: "f"):
            i += 5
            return .bool(false)
        case UInt8(ascii: "n"):
            i += 4
            return .null
        default:
            let start = i
            while i < bytes.count, isNumberByte(bytes[i]) { i += 1 }
            guard i > start else { throw JSONError("unexpected character", at: i) }
            return .number(String(decoding: bytes[start..<i], as: UTF8.self))
        }
    }

    /// The string at `i` (on its opening quote): made straight from its bytes when it has no
    /// escape, as most keys and values have none, without a copy in between.
    mutating func parseString() -> String {
        let (contents, escaped) = stringContents()
        if escaped { return String(decoding: Self.decodeChecked(contents), as: UTF8.self) }
        return String(decoding: contents, as: UTF8.self)
    }

    /// The bytes between the quotes of the string at `i` (on its opening quote), and whether
    /// they hold an escape; `i` is left after the closing quote. 8 bytes at a time while none
    /// is a quote or a backslash (the record is valid JSON).
    private mutating func stringContents() -> (UnsafeRawBufferPointer, escaped: Bool) {
        let start = i + 1
        var end = start, escaped = false
        while true {
            end = JSONBytes.skipWords(bytes, from: end, flags: JSONBytes.needsEscape).index
            while end < bytes.count, bytes[end] != UInt8(ascii: "\""), bytes[end] != UInt8(ascii: "\\") { end &+= 1 }
            guard end < bytes.count, bytes[end] == UInt8(ascii: "\\") else { break }
            escaped = true
            end &+= 2
        }
        end = min(end, bytes.count)
        i = min(end + 1, bytes.count)
        return (UnsafeRawBufferPointer(rebasing: bytes[start..<end]), escaped)
    }

    /// Decodes the string at `i` (on its opening quote) to UTF-8; lone surrogates become U+FFFD.
    /// With `limit`, stops once about that many bytes are decoded, at a character boundary.
    mutating func decodeString(limit: Int = .max) -> [UInt8] {
        if limit == .max {  // the common case (long HTML bodies): one decoder, `decodeChecked`
            let (contents, escaped) = stringContents()
            return escaped ? Self.decodeChecked(contents) : Array(contents)
        }
        i += 1
        var out = [UInt8]()
        var start = i
        while i < bytes.count {
            let c = bytes[i]
            if c == UInt8(ascii: "\"") {
                out.append(contentsOf: UnsafeRawBufferPointer(rebasing: bytes[start..<i]))
                i += 1
                return out
            }
            if out.count + (i - start) >= limit, c & 0xC0 != 0x80 {  // not inside a UTF-8 sequence
                out.append(contentsOf: UnsafeRawBufferPointer(rebasing: bytes[start..<i]))
                return out
            }
            guard c == UInt8(ascii: "\\") else {
                i += 1
                continue
            }
            out.append(contentsOf: UnsafeRawBufferPointer(rebasing: bytes[start..<i]))
            i += 1
            decodeEscape(into: &out)
            start = i
        }
        return out
    }

    /// The UTF-8 of a string's contents (the bytes between its quotes) that the record's scan
    /// has checked, as `decodeString()` gives it, written straight into an array of the
    /// contents' size: decoding never lengthens a string, and mail's HTML has an escape every
    /// 15 bytes or so, each of which was an append of its own.
    static func decodeChecked(_ s: UnsafeRawBufferPointer) -> [UInt8] {
        let n = s.count
        guard n > 0 else { return [] }
        return [UInt8](unsafeUninitializedCapacity: n) { out, count in
            let o = out.baseAddress!
            var w = 0
            var i = 0, start = 0
            @inline(__always) func put(_ b: UInt8) {
                o[w] = b
                w &+= 1
            }
            func hex4(_ at: Int) -> UInt32 {
                hexValue(s[at]) << 12 | hexValue(s[at &+ 1]) << 8 | hexValue(s[at &+ 2]) << 4 | hexValue(s[at &+ 3])
            }
            while true {
                var found: Bool
                (i, found) = JSONBytes.skipWords(s, from: i, flags: JSONBytes.backslashes)
                if !found {
                    while i < n, s[i] != 0x5C { i &+= 1 }
                    guard i < n else { break }
                } else if s[i] != 0x5C {
                    i &+= 1
                    continue
                }
                (o + w).initialize(from: s.baseAddress!.assumingMemoryBound(to: UInt8.self) + start, count: i &- start)
                w &+= i &- start
                i &+= 1
                guard i < n else { start = i; break }
                let e = s[i]
                i &+= 1
                switch e {
                case UInt8(ascii: "b"): put(0x08)
                case UInt8(ascii: "f"): put(0x0C)
                case UInt8(ascii: "n"): put(0x0A)
                case UInt8(ascii: "r"): put(0x0D)
                case UInt8(ascii: "t"): put(0x09)
                case UInt8(ascii: "u") where i &+ 4 <= n:
                    var scalar = hex4(i)
                    i &+= 4
                    if scalar >= 0xD800 && scalar < 0xDC00 {
                        if i &+ 6 <= n, s[i] == UInt8(ascii: "\\"), s[i &+ 1] == UInt8(ascii: "u"), case let low = hex4(i &+ 2),
                           low >= 0xDC00 && low < 0xE000 {
                            scalar = 0x10000 + ((scalar - 0xD800) << 10) + (low - 0xDC00)
                            i &+= 6
                        } else {
                            scalar = 0xFFFD
                        }
                    } else if scalar >= 0xDC00 && scalar < 0xE000 {
                        scalar = 0xFFFD
                    }
                    switch scalar {
                    case 0..<0x80:
                        put(UInt8(scalar))
                    case 0x80..<0x800:
                        put(UInt8(0xC0 | (scalar >> 6)))
                        put(UInt8(0x80 | (scalar & 0x3F)))
                    case 0x800..<0x10000:
                        put(UInt8(0xE0 | (scalar >> 12)))
                        put(UInt8(0x80 | ((scalar >> 6) & 0x3F)))
                        put(UInt8(0x80 | (scalar & 0x3F)))
                    default:
                        put(UInt8(0xF0 | (scalar >> 18)))
                        put(UInt8(0x80 | ((scalar >> 12) & 0x3F)))
                        put(UInt8(0x80 | ((scalar >> 6) & 0x3F)))
                        put(UInt8(0x80 | (scalar & 0x3F)))
                    }
                default: put(e)
                }
                start = i
            }
            if start < n {
                (o + w).initialize(from: s.baseAddress!.assumingMemoryBound(to: UInt8.self) + start, count: n &- start)
                w &+= n &- start
            }
            count = w
        }
    }

    /// The escape after a backslash (at `i`), appended as UTF-8.
    private mutating func decodeEscape(into out: inout [UInt8]) {
        guard i < bytes.count else { return }
        let e = bytes[i]
        i += 1
        switch e {
        case UInt8(ascii: "b"): out.append(0x08)
        case UInt8(ascii: "f"): out.append(0x0C)
        case UInt8(ascii: "n"): out.append(0x0A)
        case UInt8(ascii: "r"): out.append(0x0D)
        case UInt8(ascii: "t"): out.append(0x09)
        case UInt8(ascii: "u"):
            var scalar = readHex4()
            if scalar >= 0xD800 && scalar < 0xDC00 {
                if i + 6 <= bytes.count, bytes[i] == UInt8(ascii: "\\"), bytes[i + 1] == UInt8(ascii: "u") {
                    let save = i
                    i += 2
                    let low = readHex4()
                    if low >= 0xDC00 && low < 0xE000 {
                        scalar = 0x10000 + ((scalar - 0xD800) << 10) + (low - 0xDC00)
                    } else {
                        i = save
                        scalar = 0xFFFD
                    }
                } else {
                    scalar = 0xFFFD
                }
            } else if scalar >= 0xDC00 && scalar < 0xE000 {
                scalar = 0xFFFD
            }
            appendUTF8(scalar, to: &out)
        default: out.append(e)
        }
    }

    private mutating func readHex4() -> UInt32 {
        var v: UInt32 = 0
        for _ in 0..<4 {
            v = v << 4 | hexValue(bytes[i])
            i += 1
        }
        return v
    }
}

@inline(__always) private func isNumberByte(_ c: UInt8) -> Bool {
    isDigit(c) || c == UInt8(ascii: "-") || c == UInt8(ascii: "+") || c == UInt8(ascii: ".") || c | 0x20 == UInt8(ascii: "e")
}
