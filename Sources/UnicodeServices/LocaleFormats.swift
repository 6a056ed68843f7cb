#if canImport(Glibc)
import Glibc
#endif
internal import CICU

/// Dates as a language writes them, by ICU's CLDR data: a pattern ("EEE d MMM y"), or the
/// locale's own pattern for a skeleton, the fields wanted in any order ("yMMMdEEE" is
/// "Tue 10 Mar 2026" in British English, "Di., 10. März 2026" in German, "2026年3月10日(火)"
/// in Japanese). It formats wall-clock time: the seconds given are shown as they are (in UTC),
/// so a caller passes the local day and time it has worked out itself.
///
/// ICU's formatter keeps a calendar it changes as it formats: a lock keeps two threads from
/// formatting with it at once.
public final class DateFormat: @unchecked Sendable {
    private let handle: UnsafeMutableRawPointer
    private let lock = UnsafeMutablePointer<pthread_mutex_t>.allocate(capacity: 1)
    /// The pattern in use (the skeleton's, when made from one).
    public let pattern: String

    public struct Failure: Error, CustomStringConvertible {
        public var description: String
    }

    /// `locale`: a BCP 47 tag or an ICU locale id ("zh-Hant", "de_DE").
    public init(locale: String, pattern: String) throws(Failure) {
        let units = Array(pattern.utf16)
        var status = U_ZERO_ERROR
        guard let f = mp_udat_open_pattern(Self.icuLocale(locale), units, Int32(units.count), &status),
              mp_u_failure(status) == 0 else {
            throw Failure(description: "ICU cannot format dates by the pattern '\(pattern)' for \(locale)")
        }
        handle = UnsafeMutableRawPointer(f)
        self.pattern = pattern
        pthread_mutex_init(lock, nil)
    }

    /// The locale's best pattern for `skeleton` (udatpg).
    public convenience init(locale: String, skeleton: String) throws(Failure) {
        guard let pattern = Self.bestPattern(locale: locale, skeleton: skeleton) else {
            throw Failure(description: "ICU has no date pattern for the skeleton '\(skeleton)' in \(locale)")
        }
        try self.init(locale: locale, pattern: pattern)
    }

    deinit {
        mp_udat_close(handle.assumingMemoryBound(to: UnsafeMutableRawPointer?.self))
        pthread_mutex_destroy(lock)
        lock.deallocate()
    }

    /// The locale's pattern for the fields of `skeleton`, nil when ICU has none.
    public static func bestPattern(locale: String, skeleton: String) -> String? {
        bestPatterns(locale: locale, skeletons: [skeleton])[0]
    }

    /// The locale's patterns for several skeletons, from one generator (opening one loads the
    /// locale's data: a few milliseconds).
    public static func bestPatterns(locale: String, skeletons: [String]) -> [String?] {
        guard !skeletons.isEmpty else { return [] }
        var status = U_ZERO_ERROR
        guard let generator = mp_udatpg_open(icuLocale(locale), &status), mp_u_failure(status) == 0 else {
            return skeletons.map { _ in nil }
        }
        defer { mp_udatpg_close(generator) }
        return skeletons.map { skeleton in
            let units = Array(skeleton.utf16)
            var out = [UInt16](repeating: 0, count: 256)
            var status = U_ZERO_ERROR
            let n = mp_udatpg_getBestPattern(generator, units, Int32(units.count), &out, 256, &status)
            guard mp_u_failure(status) == 0, n > 0, n <= 256 else { return nil }
            return String(decoding: out[..<Int(n)], as: UTF16.self)
        }
    }

    /// The wall-clock time `seconds` after 1970-01-01 00:00 as the pattern writes it.
    public func format(seconds: Int) -> String {
        pthread_mutex_lock(lock)
        defer { pthread_mutex_unlock(lock) }
        var out = [UInt16](repeating: 0, count: 128)
        var status = U_ZERO_ERROR
        let f = handle.assumingMemoryBound(to: UnsafeMutableRawPointer?.self)
        var n = mp_udat_format(f, Double(seconds) * 1000, &out, 128, &status)
        if mp_buffer_overflow(status) != 0, n > 128 {
            out = [UInt16](repeating: 0, count: Int(n))
            status = U_ZERO_ERROR
            n = mp_udat_format(f, Double(seconds) * 1000, &out, n, &status)
        }
        guard mp_u_failure(status) == 0, n >= 0 else { return "" }
        return String(decoding: out[..<Int(n)], as: UTF16.self)
    }

    /// ICU's form of a BCP 47 tag: "zh-Hant-TW" is "zh_Hant_TW".
    static func icuLocale(_ tag: String) -> String { String(tag.map { $0 == "-" ? "_" : $0 }) }
}

/// Which plural form a language uses for a count, by CLDR's rules: "one" or "other" in
/// English and German, "other" alone in Japanese and Chinese; also "zero", "two", "few",
/// "many" in languages that have them.
public final class PluralRules: @unchecked Sendable {
    private let handle: OpaquePointer

    public init?(locale: String) {
        var status = U_ZERO_ERROR
        guard let rules = mp_uplrules_open(DateFormat.icuLocale(locale), &status), mp_u_failure(status) == 0 else { return nil }
        handle = rules
    }

    deinit { mp_uplrules_close(handle) }

    /// The category of the whole number `n`.
    public func category(_ n: Int) -> String {
        var out = [UInt16](repeating: 0, count: 16)
        var status = U_ZERO_ERROR
        let k = mp_uplrules_select(handle, Double(n), &out, 16, &status)
        guard mp_u_failure(status) == 0, k > 0, k <= 16 else { return "other" }
        return String(decoding: out[..<Int(k)], as: UTF16.self)
    }
}
