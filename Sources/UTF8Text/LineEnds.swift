/// Line ends: mail is written with LF here and sent with CRLF (RFC 5322).
public enum LineEnds {
    /// CRLF and lone CR as LF.
    public static func lf(_ bytes: [UInt8]) -> [UInt8] {
        guard bytes.contains(0x0D) else { return bytes }
        var out: [UInt8] = []
        out.reserveCapacity(bytes.count)
        var previousCR = false
        for b in bytes {
            if b == 0x0D {
                out.append(0x0A)
                previousCR = true
            } else {
                if !(b == 0x0A && previousCR) { out.append(b) }
                previousCR = false
            }
        }
        return out
    }

    /// Every line end as CRLF.
    public static func crlf(_ bytes: [UInt8]) -> [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(bytes.count + bytes.count / 40)
        for b in lf(bytes) {
            if b == 0x0A { out.append(0x0D) }
            out.append(b)
        }
        return out
    }
}
