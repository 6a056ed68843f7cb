/// UTF-8 validation, repair and encoding on raw bytes, without going through String; shared
/// by the JSON Lines scanner and the charset decoder.
public enum UTF8Bytes {
    /// True when `bytes` is well-formed UTF-8 (no overlongs, no surrogates, nothing above U+10FFFF).
    public static func isValid(_ bytes: UnsafeRawBufferPointer) -> Bool {
        firstInvalidIndex(bytes) == nil
    }

    public static func isValid(_ bytes: [UInt8]) -> Bool {
        bytes.withUnsafeBytes { isValid($0) }
    }

    /// True when every byte is below 0x80.
    public static func isASCII(_ bytes: UnsafeRawBufferPointer) -> Bool {
        var i = 0
        let n = bytes.count
        while i + 8 <= n {
            if bytes.loadUnaligned(fromByteOffset: i, as: UInt64.self) & 0x8080_8080_8080_8080 != 0 { return false }
            i += 8
        }
        while i < n {
            if bytes[i] >= 0x80 { return false }
            i += 1
        }
        return true
    }

    /// Index of the first byte that does not start a well-formed sequence, or nil when all is valid.
    public static func firstInvalidIndex(_ bytes: UnsafeRawBufferPointer) -> Int? {
        var i = 0
        let n = bytes.count
        while i < n {
            if i + 8 <= n, bytes.loadUnaligned(fromByteOffset: i, as: UInt64.self) & 0x8080_8080_8080_8080 == 0 {
                i += 8
                continue
            }
            let length = sequenceLength(bytes, at: i)
            if length == 0 { return i }
            i += length
        }
        return nil
    }

    /// Length of the well-formed sequence starting at `i`, or 0 when it is ill-formed.
    /// Inlinable: the JSON scanner checks every non-ASCII character of a record through it.
    @inlinable @inline(__always)
    public static func sequenceLength(_ b: UnsafeRawBufferPointer, at i: Int) -> Int {
        let n = b.count
        let c0 = b[i]
        if c0 < 0x80 { return 1 }
        if c0 < 0xC2 { return 0 }
        if c0 < 0xE0 {
            return i + 1 < n && b[i + 1] & 0xC0 == 0x80 ? 2 : 0
        }
        if c0 < 0xF0 {
            guard i + 2 < n else { return 0 }
            let c1 = b[i + 1], c2 = b[i + 2]
            if c1 & 0xC0 != 0x80 || c2 & 0xC0 != 0x80 { return 0 }
            if c0 == 0xE0 && c1 < 0xA0 { return 0 }  // overlong
            if c0 == 0xED && c1 > 0x9F { return 0 }  // surrogates
            return 3
        }
        if c0 < 0xF5 {
            guard i + 3 < n else { return 0 }
            let c1 = b[i + 1], c2 = b[i + 2], c3 = b[i + 3]
            if c1 & 0xC0 != 0x80 || c2 & 0xC0 != 0x80 || c3 & 0xC0 != 0x80 { return 0 }
            if c0 == 0xF0 && c1 < 0x90 { return 0 }
            if c0 == 0xF4 && c1 > 0x8F { return 0 }
            return 4
        }
        return 0
    }

    /// The scalar that starts at `i` and its length in bytes; an ill-formed byte reads as
    /// U+FFFD of length 1.
    public static func scalar(_ b: UnsafeRawBufferPointer, at i: Int) -> (scalar: Unicode.Scalar, length: Int) {
        let length = sequenceLength(b, at: i)
        guard length > 0 else { return ("\u{FFFD}", 1) }
        var value = UInt32(b[i]) & (length == 1 ? 0x7F : 0xFF >> (length + 1))
        for k in 1..<max(length, 1) { value = value << 6 | UInt32(b[i + k] & 0x3F) }
        return (Unicode.Scalar(value) ?? "\u{FFFD}", length)
    }

    /// The scalar that ends at `end` (exclusive) and its length in bytes, as `scalar(_:at:)`
    /// reads it.
    public static func scalar(_ b: UnsafeRawBufferPointer, endingAt end: Int) -> (scalar: Unicode.Scalar, length: Int) {
        var start = end - 1
        while start > 0, end - start < 4, b[start] & 0xC0 == 0x80 { start -= 1 }
        let s = scalar(b, at: start)
        return s.length == end - start ? s : ("\u{FFFD}", 1)
    }

    /// The length in bytes of the scalar that starts at `i` when `isMember` holds for it, else
    /// 0: a set of characters (white space, say) read straight from UTF-8, ASCII without decoding.
    @inlinable
    public static func length(at i: Int, in b: UnsafeRawBufferPointer, where isMember: (Unicode.Scalar) -> Bool) -> Int {
        let c = b[i]
        if c < 0x80 { return isMember(Unicode.Scalar(c)) ? 1 : 0 }
        let s = scalar(b, at: i)
        return isMember(s.scalar) ? s.length : 0
    }

    /// As `length(at:in:where:)`, for the scalar that ends at `end` (exclusive).
    @inlinable
    public static func length(endingAt end: Int, in b: UnsafeRawBufferPointer, where isMember: (Unicode.Scalar) -> Bool) -> Int {
        let c = b[end - 1]
        if c < 0x80 { return isMember(Unicode.Scalar(c)) ? 1 : 0 }
        let s = scalar(b, endingAt: end)
        return isMember(s.scalar) ? s.length : 0
    }

    /// `b`'s offsets without the scalars `isMember` holds for (white space, say) at either end.
    @inlinable
    public static func trimmed(_ b: UnsafeRawBufferPointer, where isMember: (Unicode.Scalar) -> Bool) -> Range<Int> {
        var start = 0
        while start < b.count, case let n = length(at: start, in: b, where: isMember), n > 0 { start += n }
        return start..<trimmedEnd(UnsafeRawBufferPointer(rebasing: b[start...]), where: isMember) + start
    }

    /// Where `b` ends without the scalars `isMember` holds for at its end.
    @inlinable
    public static func trimmedEnd(_ b: UnsafeRawBufferPointer, where isMember: (Unicode.Scalar) -> Bool) -> Int {
        var end = b.count
        while end > 0, case let n = length(endingAt: end, in: b, where: isMember), n > 0 { end -= n }
        return end
    }

    /// Copies `bytes`, replacing each ill-formed byte with U+FFFD.
    public static func repaired(_ bytes: UnsafeRawBufferPointer) -> [UInt8] {
        var out = [UInt8]()
        out.reserveCapacity(bytes.count + 16)
        var i = 0
        var start = 0
        while i < bytes.count {
            let length = sequenceLength(bytes, at: i)
            if length == 0 {
                out.append(contentsOf: UnsafeRawBufferPointer(rebasing: bytes[start..<i]))
                out.append(contentsOf: [0xEF, 0xBF, 0xBD])
                i += 1
                start = i
            } else {
                i += length
            }
        }
        out.append(contentsOf: UnsafeRawBufferPointer(rebasing: bytes[start..<bytes.count]))
        return out
    }

    /// A String from bytes that may not be UTF-8: valid UTF-8 as is, else windows-1252.
    public static func string(lenient bytes: UnsafeRawBufferPointer) -> String {
        if isValid(bytes) { return String(decoding: bytes, as: UTF8.self) }
        return String(decoding: Windows1252.decode(bytes), as: UTF8.self)
    }
}

/// windows-1252 in Swift: the fallback for undeclared 8-bit text, needed on hot paths.
public enum Windows1252 {
    static let high: [UInt16] = [
        0x20AC, 0x81, 0x201A, 0x0192, 0x201E, 0x2026, 0x2020, 0x2021, 0x02C6, 0x2030, 0x0160, 0x2039, 0x0152, 0x8D, 0x017D, 0x8F,
        0x90, 0x2018, 0x2019, 0x201C, 0x201D, 0x2022, 0x2013, 0x2014, 0x02DC, 0x2122, 0x0161, 0x203A, 0x0153, 0x9D, 0x017E, 0x0178,
    ]

    public static func decode(_ bytes: UnsafeRawBufferPointer) -> [UInt8] {
        var out = [UInt8]()
        out.reserveCapacity(bytes.count + bytes.count / 4)
        for b in bytes {
            if b < 0x80 {
                out.append(b)
                continue
            }
            let scalar = b < 0xA0 ? UInt32(high[Int(b) - 0x80]) : UInt32(b)
            appendUTF8(scalar, to: &out)
        }
        return out
    }
}

@inline(__always)
public func appendUTF8(_ scalar: UInt32, to out: inout [UInt8]) {
    switch scalar {
    case 0..<0x80:
        out.append(UInt8(scalar))
    case 0x80..<0x800:
        out.append(UInt8(0xC0 | (scalar >> 6)))
        out.append(UInt8(0x80 | (scalar & 0x3F)))
    case 0x800..<0x10000:
        out.append(UInt8(0xE0 | (scalar >> 12)))
        out.append(UInt8(0x80 | ((scalar >> 6) & 0x3F)))
        out.append(UInt8(0x80 | (scalar & 0x3F)))
    default:
        out.append(UInt8(0xF0 | (scalar >> 18)))
        out.append(UInt8(0x80 | ((scalar >> 12) & 0x3F)))
        out.append(UInt8(0x80 | ((scalar >> 6) & 0x3F)))
        out.append(UInt8(0x80 | (scalar & 0x3F)))
    }
}

/// ASCII case folding, leaving every other byte as it is: for header names, addresses and
/// keywords, where Unicode case rules are neither wanted nor cheap.
public enum ASCII {
    /// The byte with A–Z lowercased.
    @inlinable
    public static func lowercased(_ b: UInt8) -> UInt8 { b &- 0x41 < 26 ? b | 0x20 : b }

    @inlinable
    public static func isDigit(_ b: UInt8) -> Bool { b &- 0x30 < 10 }

    // Inlinable so that each caller gets a copy specialized for its collection: across the
    // module boundary a generic loop goes through witness tables byte by byte (4x slower).
    @inlinable
    public static func lowercased<C: Collection<UInt8>>(_ bytes: C) -> [UInt8] {
        [UInt8](unsafeUninitializedCapacity: bytes.count) { out, count in
            for b in bytes {
                out[count] = b &- 0x41 < 26 ? b | 0x20 : b
                count += 1
            }
        }
    }

    /// `s` with A–Z lowercased; `s` itself when it has none.
    public static func lowercased(_ s: String) -> String {
        var copy = s
        return copy.withUTF8 { $0.contains { $0 &- 0x41 < 26 } ? lowercasedString(UnsafeRawBufferPointer($0)) : s }
    }

    /// The bytes with A–Z lowercased, as a String (no array in between).
    public static func lowercasedString(_ bytes: UnsafeRawBufferPointer) -> String {
        String(unsafeUninitializedCapacity: bytes.count) { out in
            for (k, b) in bytes.enumerated() { out[k] = b &- 0x41 < 26 ? b | 0x20 : b }
            return bytes.count
        }
    }
}
