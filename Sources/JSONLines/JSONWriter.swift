/// Writes JSON into a byte buffer, commas placed automatically. Strings must be valid UTF-8
/// (a Swift String always is); they are escaped minimally, non-ASCII written as is.
public struct JSONWriter {
    public var bytes: [UInt8]
    private var needsComma = false

    public init(capacity: Int = 4096) {
        bytes = []
        bytes.reserveCapacity(capacity)
    }

    @inline(__always) private mutating func separate() {
        if needsComma { bytes.append(UInt8(ascii: ",")) }
    }

    public mutating func beginObject() {
        separate()
        bytes.append(UInt8(ascii: "{"))
        needsComma = false
    }

    public mutating func endObject() {
        bytes.append(UInt8(ascii: "}"))
        needsComma = true
    }

    public mutating func beginArray() {
        separate()
        bytes.append(UInt8(ascii: "["))
        needsComma = false
    }

    public mutating func endArray() {
        bytes.append(UInt8(ascii: "]"))
        needsComma = true
    }

    public mutating func key(_ key: String) {
        separate()
        Self.appendString(key, to: &bytes)
        bytes.append(UInt8(ascii: ":"))
        needsComma = false
    }

    public mutating func string(_ value: String) {
        separate()
        Self.appendString(value, to: &bytes)
        needsComma = true
    }

    /// A string given as UTF-8 bytes, which must be valid UTF-8.
    public mutating func string(utf8 value: UnsafeRawBufferPointer) {
        separate()
        Self.appendString(utf8: value, to: &bytes)
        needsComma = true
    }

    public mutating func string(utf8 value: [UInt8]) {
        value.withUnsafeBytes { string(utf8: $0) }
    }

    public mutating func number(_ value: Int) {
        separate()
        bytes.append(contentsOf: String(value).utf8)
        needsComma = true
    }

    public mutating func bool(_ value: Bool) {
        separate()
        if value { bytes.append(contentsOf: "true".utf8) } else { bytes.append(contentsOf: "false".utf8) }
        needsComma = true
    }

    public mutating func null() {
        separate()
        bytes.append(contentsOf: "null".utf8)
        needsComma = true
    }

    /// Already-encoded JSON, written as is.
    public mutating func raw(_ json: [UInt8]) {
        separate()
        bytes.append(contentsOf: json)
        needsComma = true
    }

    public mutating func raw(_ json: ArraySlice<UInt8>) {
        separate()
        bytes.append(contentsOf: json)
        needsComma = true
    }

    public mutating func value(_ value: JSONValue) {
        switch value {
        case .null: null()
        case .bool(let b): bool(b)
        case .number(let n):
            separate()
            bytes.append(contentsOf: n.utf8)
            needsComma = true
        case .string(let s): string(s)
        case .array(let items):
            beginArray()
            for item in items { self.value(item) }
            endArray()
        case .object(let members):
            beginObject()
            for (k, v) in members {
                key(k)
                self.value(v)
            }
            endObject()
        }
    }

    // Conveniences for the common shape `"key": value-or-null`.
    public mutating func field(_ name: String, _ value: String?) {
        key(name)
        if let value { string(value) } else { null() }
    }

    public mutating func field(_ name: String, _ value: Int) {
        key(name)
        number(value)
    }

    public mutating func field(_ name: String, _ value: Bool) {
        key(name)
        bool(value)
    }

    public mutating func field(_ name: String, strings: [String]) {
        key(name)
        beginArray()
        for s in strings { string(s) }
        endArray()
    }

    public static func appendString(_ s: String, to out: inout [UInt8]) {
        var s = s
        s.withUTF8 { appendString(utf8: UnsafeRawBufferPointer($0), to: &out) }
    }

    private static let hexDigits: [UInt8] = Array("0123456789abcdef".utf8)

    public static func appendString(utf8 s: UnsafeRawBufferPointer, to out: inout [UInt8]) {
        out.append(UInt8(ascii: "\""))
        let n = s.count
        var i = 0
        var start = 0
        while i < n {
            // skip 8 bytes at a time while none needs escaping
            while i + 8 <= n {
                if JSONBytes.needsEscape(s.loadUnaligned(fromByteOffset: i, as: UInt64.self)) != 0 { break }
                i += 8
            }
            guard i < n else { break }
            let c = s[i]
            if c >= 0x20 && c != UInt8(ascii: "\"") && c != UInt8(ascii: "\\") {
                i += 1
                continue
            }
            out.append(contentsOf: UnsafeRawBufferPointer(rebasing: s[start..<i]))
            // byte by byte: an array literal here would be an allocation per escaped line break
            out.append(0x5C)
            switch c {
            case UInt8(ascii: "\""), UInt8(ascii: "\\"): out.append(c)
            case 0x0A: out.append(UInt8(ascii: "n"))
            case 0x0D: out.append(UInt8(ascii: "r"))
            case 0x09: out.append(UInt8(ascii: "t"))
            default:
                out.append(UInt8(ascii: "u"))
                out.append(UInt8(ascii: "0"))
                out.append(UInt8(ascii: "0"))
                out.append(hexDigits[Int(c >> 4)])
                out.append(hexDigits[Int(c & 15)])
            }
            i += 1
            start = i
        }
        out.append(contentsOf: UnsafeRawBufferPointer(rebasing: s[start..<n]))
        out.append(UInt8(ascii: "\""))
    }
}
