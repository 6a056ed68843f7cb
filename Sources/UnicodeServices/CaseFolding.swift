internal import CICU

/// Unicode full case folding (the form ICU compares in when a pattern is case-insensitive):
/// `STRASSE` and `straße` both become `strasse`. UTF-16 in and out.
public enum CaseFolding {
    public static func folded(_ text: [UInt16]) -> [UInt16] {
        if text.allSatisfy({ $0 < 0x80 }) {
            return text.map { $0 >= 0x41 && $0 <= 0x5A ? $0 | 0x20 : $0 }
        }
        var capacity = text.count * 3 + 8
        while true {
            var out = [UInt16](repeating: 0, count: capacity)
            var status = U_ZERO_ERROR
            let n = mp_u_strFoldCase(&out, Int32(capacity), text, Int32(text.count), &status)
            if mp_buffer_overflow(status) != 0 {
                capacity = Int(n) + 1
                continue
            }
            guard mp_u_failure(status) == 0 else { return text }
            out.removeSubrange(Int(n)...)
            return out
        }
    }
}
