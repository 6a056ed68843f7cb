internal import CICU
import UTF8Text

/// Decodes text in any charset ICU knows to UTF-8, with mail's label mapping (`CharsetLabel`).
/// Converters are opened once per charset and kept: opening one costs far more than a part.
/// Not thread-safe: use one decoder per thread.
public final class CharsetDecoder {
    public struct Result {
        public var utf8: [UInt8]
        /// What the bytes were read as: `utf-8`, `windows-1252`, or the ICU converter name used.
        public var charset: String
        public var problem: Problem?
    }

    public enum Problem: Equatable, Sendable {
        /// The label names no charset ICU knows; the text was read as UTF-8 or windows-1252.
        case unknownCharset(String)
        /// Bytes that are not valid in the declared charset were replaced with U+FFFD.
        case invalidBytes(String)
        /// 8-bit bytes with no charset declared (or us-ascii declared).
        case undeclared8Bit
        /// Labelled with a legacy charset, but valid UTF-8: read as UTF-8.
        case mislabelledUTF8(String)
    }

    private var converters: [String: Converter] = [:]
    private var meanings: [String: CharsetLabel.Meaning] = [:]
    private var unknownNames: Set<String> = []
    private let utf8Target: Converter?

    public init() {
        utf8Target = Converter(name: "UTF-8")
    }

    /// Decodes `bytes` labelled `label`; a nil label means no charset was declared.
    public func decode(_ bytes: UnsafeRawBufferPointer, label: String?) -> Result {
        let meaning = label.map(meaning(of:)) ?? .unknown
        switch meaning {
        case .utf8:
            if UTF8Bytes.isValid(bytes) { return Result(utf8: Array(bytes), charset: "utf-8") }
            return Result(utf8: UTF8Bytes.repaired(bytes), charset: "utf-8", problem: .invalidBytes("utf-8"))
        case .ascii, .unknown:
            if UTF8Bytes.isASCII(bytes) { return Result(utf8: Array(bytes), charset: "us-ascii") }
            let problem: Problem? = label == nil || meaning == .ascii ? .undeclared8Bit : .unknownCharset(CharsetLabel.clean(label!))
            if UTF8Bytes.isValid(bytes) { return Result(utf8: Array(bytes), charset: "utf-8", problem: problem) }
            return Result(utf8: Windows1252.decode(bytes), charset: "windows-1252", problem: problem)
        case .windows1252:
            if UTF8Bytes.isASCII(bytes) { return Result(utf8: Array(bytes), charset: "windows-1252") }
            if Self.isSurelyUTF8(bytes) {
                return Result(utf8: Array(bytes), charset: "utf-8", problem: .mislabelledUTF8("windows-1252"))
            }
            return Result(utf8: Windows1252.decode(bytes), charset: "windows-1252")
        case .icu(let name):
            if Self.isLegacyEightBit(name), Self.isSurelyUTF8(bytes) {
                return Result(utf8: Array(bytes), charset: "utf-8", problem: .mislabelledUTF8(name))
            }
            if let converter = converter(named: name), let target = utf8Target,
                let utf8 = converter.convert(bytes, to: target)
            {
                return Result(utf8: utf8, charset: name)
            }
            let problem = Problem.unknownCharset(name)
            if UTF8Bytes.isValid(bytes) { return Result(utf8: Array(bytes), charset: "utf-8", problem: problem) }
            return Result(utf8: Windows1252.decode(bytes), charset: "windows-1252", problem: problem)
        }
    }

    /// Valid UTF-8 with at least four multi-byte characters: text in a legacy 8-bit charset is
    /// practically never that by chance, but UTF-8 sent under an old label often is.
    static func isSurelyUTF8(_ bytes: UnsafeRawBufferPointer) -> Bool {
        var leads = 0
        for b in bytes where b >= 0xC2 {
            leads += 1
            if leads >= 4 { break }
        }
        return leads >= 4 && UTF8Bytes.isValid(bytes)
    }

    /// Charsets whose text could be mistaken for UTF-8 (not 7-bit or 16-bit encodings).
    static func isLegacyEightBit(_ name: String) -> Bool {
        !(name.hasPrefix("utf") || name.hasPrefix("iso-2022") || name.hasPrefix("hz") || name == "ucs-2")
    }

    /// As `decode(_:label:)`, but text that is already valid UTF-8 is returned without a copy.
    public func decode(_ bytes: [UInt8], label: String?) -> Result {
        let meaning = label.map(meaning(of:)) ?? .unknown
        let passThrough: Bool = bytes.withUnsafeBytes { b in
            switch meaning {
            case .utf8: return UTF8Bytes.isValid(b)
            case .ascii, .unknown, .windows1252: return UTF8Bytes.isASCII(b)
            case .icu: return false
            }
        }
        if passThrough { return Result(utf8: bytes, charset: meaning == .utf8 ? "utf-8" : "us-ascii") }
        return bytes.withUnsafeBytes { decode($0, label: label) }
    }

    private func meaning(of label: String) -> CharsetLabel.Meaning {
        if let known = meanings[label] { return known }
        let m = CharsetLabel.meaning(of: label)
        if meanings.count < 1000 { meanings[label] = m }
        return m
    }

    private func converter(named name: String) -> Converter? {
        if let c = converters[name] { return c }
        if unknownNames.contains(name) { return nil }
        guard let c = Converter(name: name) else {
            unknownNames.insert(name)
            return nil
        }
        converters[name] = c
        return c
    }
}

/// One ICU converter, owned.
private final class Converter {
    let handle: OpaquePointer

    init?(name: String) {
        var status = U_ZERO_ERROR
        guard let h = mp_ucnv_open(name, &status), mp_u_failure(status) == 0 else { return nil }
        handle = h
    }

    deinit { mp_ucnv_close(handle) }

    /// Converts all of `bytes` into `target`'s charset; nil when ICU reports a hard error.
    /// Three output bytes per input byte always suffice for text to UTF-8; a larger buffer is
    /// tried only if ICU still reports an overflow.
    func convert(_ bytes: UnsafeRawBufferPointer, to target: Converter) -> [UInt8]? {
        guard let base = bytes.baseAddress?.assumingMemoryBound(to: CChar.self) else { return [] }
        var capacity = bytes.count * 3 + 16
        var pivot = [UChar](repeating: 0, count: 2048)
        while true {
            mp_ucnv_reset(handle)
            mp_ucnv_reset(target.handle)
            var status = U_ZERO_ERROR
            let out = pivot.withUnsafeMutableBufferPointer { pivotBuffer in
                [UInt8](unsafeUninitializedCapacity: capacity) { buf, count in
                    let start = UnsafeMutableRawPointer(buf.baseAddress!).assumingMemoryBound(to: CChar.self)
                    var t: UnsafeMutablePointer<CChar>? = start
                    var source: UnsafePointer<CChar>? = UnsafePointer(base)
                    var pivotSource: UnsafeMutablePointer<UChar>? = pivotBuffer.baseAddress
                    var pivotTarget: UnsafeMutablePointer<UChar>? = pivotBuffer.baseAddress
                    mp_ucnv_convertEx(target.handle, handle, &t, start + capacity, &source,
                                      UnsafePointer(base) + bytes.count, pivotBuffer.baseAddress,
                                      &pivotSource, &pivotTarget, pivotBuffer.baseAddress! + pivotBuffer.count,
                                      1, 1, &status)
                    count = t! - start
                }
            }
            if mp_buffer_overflow(status) != 0 {
                capacity *= 2
                continue
            }
            return mp_u_failure(status) != 0 ? nil : out
        }
    }
}
