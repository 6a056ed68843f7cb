#if canImport(Glibc)
import Glibc
#endif

/// Byte-level helpers shared by the parsers.
enum Bytes {
    static let cr: UInt8 = 0x0D
    static let lf: UInt8 = 0x0A
    static let space: UInt8 = 0x20
    static let tab: UInt8 = 0x09

    @inline(__always) static func isWhitespace(_ c: UInt8) -> Bool {
        c == space || c == tab || c == cr || c == lf
    }

    @inline(__always) static func lower(_ c: UInt8) -> UInt8 {
        c &- 0x41 < 26 ? c | 0x20 : c
    }

    /// First index of `needle` in `b[from..<to]`. memchr finds candidates by the needle's
    /// rarest byte (glibc's memmem is not vectorized for short needles), memcmp checks them.
    static func find(_ needle: [UInt8], in b: UnsafeRawBufferPointer, from: Int, to: Int? = nil) -> Int? {
        let end = to ?? b.count
        let m = needle.count
        guard m > 0, from + m <= end, let base = b.baseAddress else { return nil }
        return needle.withUnsafeBytes { n -> Int? in
            let g = guardIndex(n)
            let guardByte = Int32(n[g])
            var i = from + g  // where the guard byte of a match at `from` would be
            let last = end - m + g
            while i <= last {
                guard let p = memchr(base + i, guardByte, last + 1 - i) else { return nil }
                let hit = base.distance(to: UnsafeRawPointer(p))
                let start = hit - g
                if memcmp(base + start, n.baseAddress!, m) == 0 { return start }
                i = hit + 1
            }
            return nil
        }
    }

    /// The needle byte least likely in mail text: punctuation and controls are rare, lowercase
    /// letters and spaces common.
    private static func guardIndex(_ n: UnsafeRawBufferPointer) -> Int {
        var best = 0
        var bestScore = Int.max
        for (k, c) in n.enumerated() {
            let score: Int
            switch c {
            case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: " "): score = 10
            case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "0")...UInt8(ascii: "9"): score = 5
            case UInt8(ascii: "\n"): score = 6  // a line break every 70 bytes
            case UInt8(ascii: "-"), UInt8(ascii: "="): score = 4
            default: score = 1
            }
            if score < bestScore {
                bestScore = score
                best = k
            }
        }
        return best
    }

    /// The first line break at or after `from` that is followed by `next`. Sixteen bytes at a
    /// time by word arithmetic: the mbox reader looks at every byte of a mailbox for "\nFrom "
    /// and "\n>", and memchr for the rarer byte stopped every 64 bytes of base64 (an F) or
    /// 30 of HTML (a >).
    static func findLineBreak(before next: UInt8, in b: UnsafeRawBufferPointer, from: Int) -> Int? {
        let n = b.count
        var i = from
        let lf = SIMD2<UInt64>(repeating: 0x0A0A_0A0A_0A0A_0A0A), following = SIMD2<UInt64>(repeating: 0x0101_0101_0101_0101 &* UInt64(next))
        let low = SIMD2<UInt64>(repeating: 0x7F7F_7F7F_7F7F_7F7F), high = SIMD2<UInt64>(repeating: 0x8080_8080_8080_8080)
        while i &+ 17 <= n {
            // a zero byte of t: an LF at i + k and `next` after it
            let t = (b.loadUnaligned(fromByteOffset: i, as: SIMD2<UInt64>.self) ^ lf)
                | (b.loadUnaligned(fromByteOffset: i &+ 1, as: SIMD2<UInt64>.self) ^ following)
            let zero = ~(((t & low) &+ low) | t) & high  // the top bit of each zero byte, exactly
            if zero[0] | zero[1] != 0 {
                let k = zero[0] != 0 ? zero[0].trailingZeroBitCount / 8 : 8 + zero[1].trailingZeroBitCount / 8
                return i &+ k
            }
            i &+= 16
        }
        while i + 1 < n {
            if b[i] == Bytes.lf, b[i + 1] == next { return i }
            i += 1
        }
        return nil
    }

    /// First index of byte `c` in `b[from..<to]`, via memchr.
    @inline(__always) static func find(byte c: UInt8, in b: UnsafeRawBufferPointer, from: Int, to: Int? = nil) -> Int? {
        let end = to ?? b.count
        guard from < end, let base = b.baseAddress else { return nil }
        guard let p = memchr(base + from, Int32(c), end - from) else { return nil }
        return base.distance(to: UnsafeRawPointer(p))
    }

    /// The end of the line starting at `i` (the index of its LF, or `end`), and the start of the next.
    @inline(__always) static func lineEnd(_ b: UnsafeRawBufferPointer, from i: Int, to end: Int) -> (contentEnd: Int, next: Int) {
        guard let lf = find(byte: Bytes.lf, in: b, from: i, to: end) else { return (end, end) }
        let contentEnd = lf > i && b[lf - 1] == cr ? lf - 1 : lf
        return (contentEnd, lf + 1)
    }

    static func hasPrefix(_ b: UnsafeRawBufferPointer, at i: Int, _ prefix: [UInt8]) -> Bool {
        guard i + prefix.count <= b.count else { return false }
        for k in 0..<prefix.count where b[i + k] != prefix[k] { return false }
        return true
    }

    static func trim(_ b: UnsafeRawBufferPointer, _ range: Range<Int>) -> Range<Int> {
        var lo = range.lowerBound, hi = range.upperBound
        while lo < hi, isWhitespace(b[lo]) { lo += 1 }
        while hi > lo, isWhitespace(b[hi - 1]) { hi -= 1 }
        return lo..<hi
    }
}

extension String {
    /// Whitespace runs collapsed to one space, ends trimmed.
    var collapsingWhitespace: String {
        var out = ""
        out.reserveCapacity(utf8.count)
        var pendingSpace = false
        for ch in unicodeScalars {
            if ch == " " || ch == "\t" || ch == "\r" || ch == "\n" {
                pendingSpace = !out.isEmpty
            } else {
                if pendingSpace { out.unicodeScalars.append(" ") }
                pendingSpace = false
                out.unicodeScalars.append(ch)
            }
        }
        return out
    }
}
