import CLibcExtras
import UTF8Text

/// A strict JSON grammar checker over bytes (RFC 8259, strict UTF-8) that remembers where each
/// top-level member of an object lies, so that a filter reads only the fields it needs and passes
/// the others on byte for byte.
struct JSONScanner {
    let bytes: UnsafeRawBufferPointer
    var i = 0
    var depth = 0
    static let maxDepth = 512

    init(_ bytes: UnsafeRawBufferPointer) { self.bytes = bytes }

    @inline(__always) mutating func skipWhitespace() {
        while i < bytes.count {
            let c = bytes[i]
            if c == 0x20 || c == 0x0A || c == 0x0D || c == 0x09 { i += 1 } else { return }
        }
    }

    func fail(_ message: String) -> JSONError { JSONError(message, at: i) }

    /// Scans one value starting at `i` (whitespace already skipped).
    mutating func scanValue() throws(JSONError) {
        guard i < bytes.count else { throw fail("unexpected end of input") }
        switch bytes[i] {
        case UInt8(ascii: "{"): try scanObject(members: nil)
        case UInt8(ascii: "["): try scanArray()
        case UInt8(ascii: "\""): try scanString()
        case UInt8(ascii: "t"): try expectLiteral("true")
        case UInt8(ascii: "f"): try expectLiteral("false")
        case UInt8(ascii: "n"): try expectLiteral("null")
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"): try scanNumber()
        default: throw fail("unexpected character '\(printable(bytes[i]))'")
        }
    }

    mutating func expectLiteral(_ word: StaticString) throws(JSONError) {
        let n = word.utf8CodeUnitCount
        guard i + n <= bytes.count else { throw fail("unexpected end of input") }
        for k in 0..<n where bytes[i + k] != word.utf8Start[k] {
            throw fail("invalid literal")
        }
        i += n
    }

    mutating func scanNumber() throws(JSONError) {
        if bytes[i] == UInt8(ascii: "-") { i += 1 }
        guard i < bytes.count, isDigit(bytes[i]) else { throw fail("invalid number") }
        if bytes[i] == UInt8(ascii: "0") {
            i += 1
        } else {
            while i < bytes.count, isDigit(bytes[i]) { i += 1 }
        }
        if i < bytes.count, bytes[i] == UInt8(ascii: ".") {
            i += 1
            guard i < bytes.count, isDigit(bytes[i]) else { throw fail("invalid number") }
            while i < bytes.count, isDigit(bytes[i]) { i += 1 }
        }
        if i < bytes.count, bytes[i] | 0x20 == UInt8(ascii: "e") {
            i += 1
            if i < bytes.count, bytes[i] == UInt8(ascii: "+") || bytes[i] == UInt8(ascii: "-") { i += 1 }
            guard i < bytes.count, isDigit(bytes[i]) else { throw fail("invalid number") }
            while i < bytes.count, isDigit(bytes[i]) { i += 1 }
        }
    }

    /// Scans a string including its quotes; checks escapes and UTF-8.
    mutating func scanString() throws(JSONError) {
        i += 1
        let n = bytes.count
        while i < n {
            // fast path over plain ASCII, 16 bytes at a time, to the first byte to look at;
            // non-ASCII bytes leave it too: they are checked as UTF-8
            i += mp_plain_ascii_length(bytes.baseAddress! + i, n - i)
            guard i < n else { break }
            let c = bytes[i]
            if c == UInt8(ascii: "\"") {
                i += 1
                return
            } else if c == UInt8(ascii: "\\") {
                i += 1
                guard i < n else { break }
                switch bytes[i] {
                case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"), UInt8(ascii: "b"),
                    UInt8(ascii: "f"), UInt8(ascii: "n"), UInt8(ascii: "r"), UInt8(ascii: "t"):
                    i += 1
                case UInt8(ascii: "u"):
                    guard i + 4 < n, isHex(bytes[i + 1]), isHex(bytes[i + 2]), isHex(bytes[i + 3]), isHex(bytes[i + 4])
                    else { throw fail("invalid \\u escape") }
                    i += 5
                default:
                    throw fail("invalid escape")
                }
            } else if c < 0x20 {
                throw fail("control character in string")
            } else if c < 0x80 {
                i += 1
            } else {
                // a run of non-ASCII characters (CJK text) is checked here, not 8 bytes at a
                // time: each character would leave that fast path again
                repeat {
                    let length = UTF8Bytes.sequenceLength(bytes, at: i)
                    if length == 0 { throw fail("invalid UTF-8") }
                    i += length
                } while i < n && bytes[i] >= 0x80
            }
        }
        throw JSONError("unterminated string", at: n)
    }

    mutating func scanArray() throws(JSONError) {
        depth += 1
        if depth > Self.maxDepth { throw fail("nesting too deep") }
        i += 1
        skipWhitespace()
        if i < bytes.count, bytes[i] == UInt8(ascii: "]") {
            i += 1
            depth -= 1
            return
        }
        while true {
            skipWhitespace()
            try scanValue()
            skipWhitespace()
            guard i < bytes.count else { throw fail("unterminated array") }
            if bytes[i] == UInt8(ascii: ",") {
                i += 1
            } else if bytes[i] == UInt8(ascii: "]") {
                i += 1
                depth -= 1
                return
            } else {
                throw fail("expected ',' or ']'")
            }
        }
    }

    /// Scans an object; when `members` is given, records each member's key and value ranges.
    mutating func scanObject(members: UnsafeMutablePointer<[JSONMember]>?) throws(JSONError) {
        depth += 1
        if depth > Self.maxDepth { throw fail("nesting too deep") }
        i += 1
        skipWhitespace()
        if i < bytes.count, bytes[i] == UInt8(ascii: "}") {
            i += 1
            depth -= 1
            return
        }
        while true {
            skipWhitespace()
            guard i < bytes.count, bytes[i] == UInt8(ascii: "\"") else { throw fail("expected a key") }
            let keyStart = i
            try scanString()
            let keyEnd = i
            skipWhitespace()
            guard i < bytes.count, bytes[i] == UInt8(ascii: ":") else { throw fail("expected ':'") }
            i += 1
            skipWhitespace()
            let valueStart = i
            try scanValue()
            members?.pointee.append(JSONMember(key: keyStart..<keyEnd, value: valueStart..<i))
            skipWhitespace()
            guard i < bytes.count else { throw fail("unterminated object") }
            if bytes[i] == UInt8(ascii: ",") {
                i += 1
            } else if bytes[i] == UInt8(ascii: "}") {
                i += 1
                depth -= 1
                return
            } else {
                throw fail("expected ',' or '}'")
            }
        }
    }
}

/// Where one member of an object lies in its line: the key with its quotes, and the value.
public struct JSONMember: Sendable, Equatable {
    public var key: Range<Int>
    public var value: Range<Int>
}

enum JSONBytes {
    /// Nonzero when one of the 8 bytes of `w` is '"', '\\' or a control character (< 0x20):
    /// the bytes a JSON string cannot hold as they are. Other bytes >= 0x80 never count.
    /// From `i`, 8 bytes at a time over the words of `b` in which `flags` flags no byte: the
    /// first byte it flags (found), or where fewer than 8 bytes are left. Word tests like
    /// `needsEscape` may also flag a plain byte above a flagged one, never below: the byte
    /// returned is the first flagged, and the caller checks it.
    @inline(__always)
    static func skipWords(_ b: UnsafeRawBufferPointer, from i: Int, flags: (UInt64) -> UInt64) -> (index: Int, found: Bool) {
        var i = i
        let n = b.count
        while i &+ 8 <= n {
            let flagged = flags(b.loadUnaligned(fromByteOffset: i, as: UInt64.self))
            if flagged != 0 { return (i &+ flagged.trailingZeroBitCount &>> 3, true) }
            i &+= 8
        }
        return (i, false)
    }

    /// The backslashes of a word (the lowest flag is always one; above it, a borrow can flag
    /// a byte that is none).
    @inline(__always) static func backslashes(_ w: UInt64) -> UInt64 {
        let b = w ^ 0x5C5C_5C5C_5C5C_5C5C
        return (b &- 0x0101_0101_0101_0101) & ~b & 0x8080_8080_8080_8080
    }

    @inline(__always) static func needsEscape(_ w: UInt64) -> UInt64 {
        let low = w & 0x7F7F_7F7F_7F7F_7F7F
        let control = (low &- 0x2020_2020_2020_2020) & ~w & 0x8080_8080_8080_8080
        let q = w ^ 0x2222_2222_2222_2222
        let quote = (q &- 0x0101_0101_0101_0101) & ~q & 0x8080_8080_8080_8080
        let b = w ^ 0x5C5C_5C5C_5C5C_5C5C
        let backslash = (b &- 0x0101_0101_0101_0101) & ~b & 0x8080_8080_8080_8080
        return control | quote | backslash
    }
}

@inline(__always) func isDigit(_ c: UInt8) -> Bool { c &- UInt8(ascii: "0") < 10 }
@inline(__always) func isHex(_ c: UInt8) -> Bool { isDigit(c) || (c | 0x20) &- UInt8(ascii: "a") < 6 }
@inline(__always) func hexValue(_ c: UInt8) -> UInt32 {
    isDigit(c) ? UInt32(c - UInt8(ascii: "0")) : UInt32((c | 0x20) - UInt8(ascii: "a") + 10)
}

func printable(_ c: UInt8) -> String {
    c >= 0x20 && c < 0x7F ? String(UnicodeScalar(c)) : "\\x" + String(c, radix: 16)
}
