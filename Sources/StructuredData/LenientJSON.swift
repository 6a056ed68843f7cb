/// Repairs for the JSON that senders write into their JSON-LD scripts by hand or by template:
/// a comma before `}` or `]`, no comma between two values (`}{`, `} "key"`), raw line breaks
/// and tabs inside strings. Valid JSON comes out unchanged.
enum LenientJSON {
    static func repaired(_ bytes: [UInt8]) -> [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(bytes.count + 16)
        var inString = false
        var i = 0
        func nextSignificant(after k: Int) -> UInt8? {
            var j = k + 1
            while j < bytes.count, isSpace(bytes[j]) { j += 1 }
            return j < bytes.count ? bytes[j] : nil
        }
        while i < bytes.count {
            let c = bytes[i]
            if inString {
                switch c {
                case UInt8(ascii: "\\"):
                    out.append(c)
                    if i + 1 < bytes.count { out.append(bytes[i + 1]) }
                    i += 2
                    continue
                case UInt8(ascii: "\""):
                    out.append(c)
                    inString = false
                    if let n = nextSignificant(after: i), startsValue(n) { out.append(UInt8(ascii: ",")) }
                case 0x0A: out += Array("\\n".utf8)
                case 0x0D: out += Array("\\r".utf8)
                case 0x09: out += Array("\\t".utf8)
                case ..<0x20: out.append(0x20)
                default: out.append(c)
                }
                i += 1
                continue
            }
            switch c {
            case UInt8(ascii: "\""):
                inString = true
                out.append(c)
            case UInt8(ascii: ","):
                let n = nextSignificant(after: i)
                if n != UInt8(ascii: "}") && n != UInt8(ascii: "]") { out.append(c) }
            case UInt8(ascii: "}"), UInt8(ascii: "]"):
                out.append(c)
                if let n = nextSignificant(after: i), startsValue(n) { out.append(UInt8(ascii: ",")) }
            default:
                out.append(c)
            }
            i += 1
        }
        return out
    }

    private static func isSpace(_ c: UInt8) -> Bool { c == 0x20 || c == 0x0A || c == 0x0D || c == 0x09 }
    private static func startsValue(_ c: UInt8) -> Bool {
        c == UInt8(ascii: "{") || c == UInt8(ascii: "[") || c == UInt8(ascii: "\"")
    }
}

/// The character references of HTML that JSON-LD written through an HTML template carries.
enum HTMLEntities {
    static func decoded(_ bytes: [UInt8]) -> [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(bytes.count)
        var i = 0
        while i < bytes.count {
            guard bytes[i] == UInt8(ascii: "&"), let semi = bytes[i...].prefix(12).firstIndex(of: UInt8(ascii: ";")),
                  let replacement = reference(bytes[(i + 1)..<semi]) else {
                out.append(bytes[i])
                i += 1
                continue
            }
            out += replacement
            i = semi + 1
        }
        return out
    }

    private static func reference(_ name: ArraySlice<UInt8>) -> [UInt8]? {
        if name.first == UInt8(ascii: "#") {
            let digits = name.dropFirst()
            let hex = digits.first.map { $0 | 0x20 == UInt8(ascii: "x") } ?? false
            guard let v = UInt32(String(decoding: hex ? digits.dropFirst() : digits, as: UTF8.self), radix: hex ? 16 : 10),
                  let scalar = Unicode.Scalar(v) else { return nil }
            return Array(String(Character(scalar)).utf8)
        }
        switch String(decoding: name, as: UTF8.self) {
        case "quot": return [UInt8(ascii: "\"")]
        case "amp": return [UInt8(ascii: "&")]
        case "apos": return [UInt8(ascii: "'")]
        case "lt": return [UInt8(ascii: "<")]
        case "gt": return [UInt8(ascii: ">")]
        case "nbsp": return [0xC2, 0xA0]
        default: return nil
        }
    }
}
