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

    /// A number from 0 to 1 to two decimals, as few digits as it needs: 1, 0.65, 0.5, 0.05.
    public mutating func fraction(_ value: Double) {
        separate()
        let hundredths = max(0, min(100, Int((value * 100).rounded())))
        let text: String
        if hundredths == 100 {
            text = "1"
        } else if hundredths == 0 {
            text = "0"
        } else {
            text = "0." + (hundredths < 10 ? "0\(hundredths)" : (hundredths % 10 == 0 ? "\(hundredths / 10)" : "\(hundredths)"))
        }
        bytes.append(contentsOf: text.utf8)
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

    /// Appends `s` quoted and escaped. Output is gathered in a small stack buffer and appended
    /// to `out` when full, so that an escape (one every 40 bytes of mail text) is a few stores
    /// rather than three appends; a long run with nothing to escape is appended straight.
    public static func appendString(utf8 s: UnsafeRawBufferPointer, to out: inout [UInt8]) {
        out.append(UInt8(ascii: "\""))
        let n = s.count
        let room = 512
        withUnsafeTemporaryAllocation(byteCount: room, alignment: 8) { scratch in
            let sb = scratch.baseAddress!
            var used = 0
            func put(_ from: Int, _ to: Int) {
                let count = to &- from
                if count > room &- 8 &- used {
                    out.append(contentsOf: UnsafeRawBufferPointer(start: sb, count: used))
                    used = 0
                    if count > room &- 8 {
                        out.append(contentsOf: UnsafeRawBufferPointer(rebasing: s[from..<to]))
                        return
                    }
                }
                (sb + used).copyMemory(from: s.baseAddress! + from, byteCount: count)
                used &+= count
            }
            var i = 0
            var start = 0
            while true {
                // 8 bytes at a time to the first flagged, which is checked: needsEscape can flag
                // a byte above one of 0x80 and up by a borrow
                var found: Bool
                (i, found) = JSONBytes.skipWords(s, from: i, flags: JSONBytes.needsEscape)
                if !found {
                    while i < n {
                        let c = s[i]
                        if c < 0x20 || c == UInt8(ascii: "\"") || c == UInt8(ascii: "\\") {
                            found = true
                            break
                        }
                        i &+= 1
                    }
                    guard found else { break }
                }
                let c = s[i]
                guard c < 0x20 || c == UInt8(ascii: "\"") || c == UInt8(ascii: "\\") else {
                    i &+= 1  // a false flag
                    continue
                }
                put(start, i)
                sb.storeBytes(of: 0x5C, toByteOffset: used, as: UInt8.self)
                switch c {
                case UInt8(ascii: "\""), UInt8(ascii: "\\"): sb.storeBytes(of: c, toByteOffset: used &+ 1, as: UInt8.self); used &+= 2
                case 0x0A: sb.storeBytes(of: UInt8(ascii: "n"), toByteOffset: used &+ 1, as: UInt8.self); used &+= 2
                case 0x0D: sb.storeBytes(of: UInt8(ascii: "r"), toByteOffset: used &+ 1, as: UInt8.self); used &+= 2
                case 0x09: sb.storeBytes(of: UInt8(ascii: "t"), toByteOffset: used &+ 1, as: UInt8.self); used &+= 2
                default:
                    sb.storeBytes(of: UInt8(ascii: "u"), toByteOffset: used &+ 1, as: UInt8.self)
                    sb.storeBytes(of: UInt8(ascii: "0"), toByteOffset: used &+ 2, as: UInt8.self)
                    sb.storeBytes(of: UInt8(ascii: "0"), toByteOffset: used &+ 3, as: UInt8.self)
                    sb.storeBytes(of: hexDigits[Int(c >> 4)], toByteOffset: used &+ 4, as: UInt8.self)
                    sb.storeBytes(of: hexDigits[Int(c & 15)], toByteOffset: used &+ 5, as: UInt8.self)
                    used &+= 6
                }
                i &+= 1
                start = i
            }
            put(start, n)
            if used > 0 { out.append(contentsOf: UnsafeRawBufferPointer(start: sb, count: used)) }
        }
        out.append(UInt8(ascii: "\""))
    }
}
