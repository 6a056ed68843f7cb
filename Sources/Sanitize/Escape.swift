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
        for i in 0..<bytes.count {
            let replacement: StaticString
            switch bytes[i] {
            case UInt8(ascii: "&"): replacement = "&amp;"
            case UInt8(ascii: "<"): replacement = "&lt;"
            case UInt8(ascii: ">"): replacement = "&gt;"
            case UInt8(ascii: "\"") where quotes: replacement = "&quot;"
            case 0: replacement = "\u{FFFD}"  // as a browser reads a NUL; HTML must not hold one
            default: continue
            }
            out.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[start..<i]))
            out.append(contentsOf: UnsafeBufferPointer(start: replacement.utf8Start, count: replacement.utf8CodeUnitCount))
            start = i + 1
        }
        out.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[start...]))
    }
}
