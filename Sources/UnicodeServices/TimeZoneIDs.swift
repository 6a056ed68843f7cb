internal import CICU

/// The IANA time-zone id that a calendar's TZID stands for, by CLDR's data in ICU: an IANA id
/// as written, Outlook's Windows names ("W. Europe Standard Time" is Europe/Berlin), and ids
/// behind a vendor prefix ("/mozilla.org/20050126_1/Europe/Berlin",
/// "/softwarestudio.org/Olson_20011030_5/America/New_York", "tzone://Microsoft/Utc").
public enum TimeZoneIDs {
    public static func iana(_ written: String) -> String? {
        var tzid = Substring(written)
        while let c = tzid.first, c == " " || c == "\"" { tzid.removeFirst() }
        while let c = tzid.last, c == " " || c == "\"" { tzid.removeLast() }
        guard !tzid.isEmpty, tzid.utf8.count < 200 else { return nil }
        if tzid.hasPrefix("tzone://Microsoft/") { tzid = tzid.dropFirst("tzone://Microsoft/".count) }
        let id = String(tzid)
        if isSystemID(id) { return id }
        if let mapped = windowsToIANA(id) { return mapped }
        if id.lowercased() == "utc" { return "UTC" }
        // RFC 2445's examples and old exports: "US-Eastern" for US/Eastern
        if id.contains("-") {
            let slashed = String(id.map { $0 == "-" ? "/" : $0 })
            if isSystemID(slashed) { return slashed }
        }
        // a vendor's prefix: the longest tail of two or three path components that ICU knows
        let parts = tzid.split(separator: "/", omittingEmptySubsequences: true)
        for n in [3, 2] where parts.count >= n {
            let tail = parts.suffix(n).joined(separator: "/")
            if isSystemID(tail) { return tail }
        }
        return nil
    }

    static func isSystemID(_ id: String) -> Bool {
        let units = Array(id.utf16)
        var out = [UInt16](repeating: 0, count: 128)
        var system: Int32 = 0
        var status = U_ZERO_ERROR
        _ = mp_ucal_getCanonicalTimeZoneID(units, Int32(units.count), &out, 128, &system, &status)
        return mp_u_failure(status) == 0 && system != 0
    }

    static func windowsToIANA(_ id: String) -> String? {
        let units = Array(id.utf16)
        var out = [UInt16](repeating: 0, count: 128)
        var status = U_ZERO_ERROR
        let n = mp_ucal_getTimeZoneIDForWindowsID(units, Int32(units.count), &out, 128, &status)
        guard mp_u_failure(status) == 0, n > 0, n <= 128 else { return nil }
        return String(decoding: out[..<Int(n)], as: UTF16.self)
    }
}
