/// Base64 (RFC 2045 for bodies, RFC 2047 for encoded words, RFC 4648's URL alphabet for
/// Gmail's `raw`).
public enum Base64 {
    private static let standard = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/".utf8)
    private static let url = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_".utf8)

    public static func encode(_ bytes: [UInt8]) -> String { String(decoding: encodeBytes(bytes, alphabet: standard, pad: true), as: UTF8.self) }

    /// URL-safe base64 without padding, as Gmail's API takes `raw`.
    public static func encodeURL(_ bytes: [UInt8]) -> [UInt8] { encodeBytes(bytes, alphabet: url, pad: false) }

    /// A body part's base64: lines of 76 characters.
    public static func lines(_ bytes: [UInt8]) -> [UInt8] {
        let all = encodeBytes(bytes, alphabet: standard, pad: true)
        var out: [UInt8] = []
        out.reserveCapacity(all.count + all.count / 76 + 1)
        var i = 0
        while i < all.count {
            out += all[i..<min(i + 76, all.count)]
            out.append(0x0A)
            i += 76
        }
        return out
    }

    private static func encodeBytes(_ bytes: [UInt8], alphabet: [UInt8], pad: Bool) -> [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity((bytes.count + 2) / 3 * 4)
        var i = 0
        while i + 2 < bytes.count {
            let n = UInt32(bytes[i]) << 16 | UInt32(bytes[i + 1]) << 8 | UInt32(bytes[i + 2])
            out += [alphabet[Int(n >> 18)], alphabet[Int(n >> 12 & 63)], alphabet[Int(n >> 6 & 63)], alphabet[Int(n & 63)]]
            i += 3
        }
        let rest = bytes.count - i
        if rest > 0 {
            let n = UInt32(bytes[i]) << 16 | (rest == 2 ? UInt32(bytes[i + 1]) << 8 : 0)
            out += [alphabet[Int(n >> 18)], alphabet[Int(n >> 12 & 63)]]
            if rest == 2 { out.append(alphabet[Int(n >> 6 & 63)]) }
            if pad { out += rest == 2 ? [UInt8(ascii: "=")] : [UInt8(ascii: "="), UInt8(ascii: "=")] }
        }
        return out
    }
}

