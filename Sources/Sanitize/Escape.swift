/// HTML escaping for text and double-quoted attribute values. '<' and '>' are escaped in both:
/// nothing a browser could read as markup survives, whatever parser reads it next.
public enum Escape {
    static func text(_ bytes: UnsafeBufferPointer<UInt8>, into out: inout [UInt8]) {
        escape(bytes, quotes: false, into: &out)
    }

    public static func attribute(_ bytes: UnsafeBufferPointer<UInt8>, into out: inout [UInt8]) {
        escape(bytes, quotes: true, into: &out)
    }

    public static func attribute(_ bytes: [UInt8], into out: inout [UInt8]) {
        bytes.withUnsafeBufferPointer { escape($0, quotes: true, into: &out) }
    }

    /// Copies runs of ordinary bytes whole, replacing only the few that need it.
    private static func escape(_ bytes: UnsafeBufferPointer<UInt8>, quotes: Bool, into out: inout [UInt8]) {
        var start = 0
        var i = 0
        while true {
            i = nextSpecial(bytes, from: i, quotes: quotes)
            guard i < bytes.count else { break }
            let replacement: StaticString
            switch bytes[i] {
            case UInt8(ascii: "&"): replacement = "&amp;"
            case UInt8(ascii: "<"): replacement = "&lt;"
            case UInt8(ascii: ">"): replacement = "&gt;"
            case UInt8(ascii: "\"") where quotes: replacement = "&quot;"
            case 0: replacement = "\u{FFFD}"  // as a browser reads a NUL; HTML must not hold one
            default:
                i += 1
                continue
            }
            out.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[start..<i]))
            out.append(contentsOf: UnsafeBufferPointer(start: replacement.utf8Start, count: replacement.utf8CodeUnitCount))
            i += 1
            start = i
        }
        out.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[start...]))
    }

    /// The index of the first byte from `i` that may need replacing (or the end), 8 bytes at a
    /// time: a word's lowest flagged byte is always one of them.
    @inline(__always)
    private static func nextSpecial(_ bytes: UnsafeBufferPointer<UInt8>, from i: Int, quotes: Bool) -> Int {
        var i = i
        let raw = UnsafeRawBufferPointer(bytes)
        while i &+ 8 <= bytes.count {
            let w = raw.loadUnaligned(fromByteOffset: i, as: UInt64.self)
            var flags = zeroBytes(w) | zeroBytes(w ^ 0x2626_2626_2626_2626) | zeroBytes(w ^ 0x3C3C_3C3C_3C3C_3C3C)
                | zeroBytes(w ^ 0x3E3E_3E3E_3E3E_3E3E)
            if quotes { flags |= zeroBytes(w ^ 0x2222_2222_2222_2222) }
            if flags != 0 { return i &+ flags.trailingZeroBitCount &>> 3 }
            i &+= 8
        }
        while i < bytes.count {
            switch bytes[i] {
            case UInt8(ascii: "&"), UInt8(ascii: "<"), UInt8(ascii: ">"), 0: return i
            case UInt8(ascii: "\"") where quotes: return i
            default: i &+= 1
            }
        }
        return i
    }

    /// 0x80 in each byte of `w` that is zero (and maybe in bytes above one that is).
    @inline(__always) private static func zeroBytes(_ w: UInt64) -> UInt64 {
        (w &- 0x0101_0101_0101_0101) & ~w & 0x8080_8080_8080_8080
    }
}
