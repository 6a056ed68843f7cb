internal import CICU

/// Domain names to ASCII with UTS 46 (IDNA 2008 with the compatibility mapping that browsers
/// and mail clients use): `Bücher.Example` → `xn--bcher-kva.example`. Owns one ICU IDNA object.
public final class IDNAConverter {
    private let idna: OpaquePointer?

    public init() {
        var status = U_ZERO_ERROR
        // UIDNA_NONTRANSITIONAL_TO_ASCII (0x10): ß stays ß, as IDNA 2008 says
        idna = mp_uidna_openUTS46(0x10, &status)
    }

    deinit { if let idna { mp_uidna_close(idna) } }

    /// The ASCII form of `domain`, lowercased; nil when it is not a valid domain name.
    public func toASCII(_ domain: String) -> String? {
        guard let idna else { return nil }
        var name = domain
        return name.withUTF8 { src -> String? in
            var capacity = max(64, src.count * 4)
            while true {
                var status = U_ZERO_ERROR
                var errors: UInt32 = 0
                var out = [CChar](repeating: 0, count: capacity)
                let n = src.withMemoryRebound(to: CChar.self) { s in
                    mp_uidna_nameToASCII_UTF8(idna, s.baseAddress, Int32(s.count), &out, Int32(capacity), &errors, &status)
                }
                if mp_buffer_overflow(status) != 0 {
                    capacity = Int(n) + 1
                    continue
                }
                guard mp_u_failure(status) == 0, errors == 0 else { return nil }
                return String(decoding: out.prefix(Int(n)).map { UInt8(bitPattern: $0) }, as: UTF8.self)
            }
        }
    }
}

/// Unicode NFKC with case folding (`Ｊｏｈｎ` → `john`, `ﬁ` → `fi`), the form in which two
/// spellings of one address compare equal.
public enum Casefold {
    public static func nfkc(_ text: String) -> String {
        if text.utf8.allSatisfy({ $0 < 0x80 }) { return text.lowercased() }  // ASCII: nothing else to do
        var status = U_ZERO_ERROR
        guard let normalizer = mp_nfkc_casefold(&status), mp_u_failure(status) == 0 else { return text.lowercased() }
        let source = Array(text.utf16)
        var capacity = source.count * 3 + 16
        while true {
            var out = [UInt16](repeating: 0, count: capacity)
            status = U_ZERO_ERROR
            let n = mp_unorm2_normalize(normalizer, source, Int32(source.count), &out, Int32(capacity), &status)
            if mp_buffer_overflow(status) != 0 {
                capacity = Int(n) + 1
                continue
            }
            guard mp_u_failure(status) == 0 else { return text.lowercased() }
            return String(decoding: out.prefix(Int(n)), as: UTF16.self)
        }
    }
}
