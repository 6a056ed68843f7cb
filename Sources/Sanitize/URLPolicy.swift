import UTF8Text

/// URLs as a browser reads them, checked against an allowlist of schemes. Entities are already
/// decoded by the parser; what is left of obfuscation (tabs and newlines inside the scheme,
/// leading spaces and control characters, mixed case) is undone here before the check.
public enum URLPolicy {
    /// The URL without what a browser ignores: tab, CR and LF anywhere, C0 controls and spaces
    /// at either end.
    static func cleaned(_ raw: UnsafeBufferPointer<UInt8>) -> [UInt8] {
        var url: [UInt8] = []
        url.reserveCapacity(raw.count)
        for b in raw where b != 0x09 && b != 0x0A && b != 0x0D { url.append(b) }
        var end = url.count
        while end > 0, url[end - 1] <= 0x20 { end -= 1 }
        var start = 0
        while start < end, url[start] <= 0x20 { start += 1 }
        return start == 0 && end == url.count ? url : Array(url[start..<end])
    }

    /// The scheme in lowercase ("https"), or nil for a relative URL.
    static func scheme(_ url: [UInt8]) -> String? {
        guard let first = url.first, isLetter(first) else { return nil }
        for (i, b) in url.enumerated() {
            if b == UInt8(ascii: ":") { return String(decoding: url[..<i].map { $0 | 0x20 }, as: UTF8.self) }
            guard isLetter(b) || (b >= 0x30 && b <= 0x39) || b == UInt8(ascii: "+") || b == UInt8(ascii: "-") || b == UInt8(ascii: ".") else { return nil }
        }
        return nil
    }

    enum Link {
        case allowed([UInt8])
        case fragment([UInt8])  // "#name" without the '#'
        case refused
    }

    static func link(_ url: [UInt8]) -> Link {
        if url.first == UInt8(ascii: "#") { return .fragment(Array(url.dropFirst())) }
        if url.starts(with: "//".utf8) { return .allowed(Array("https:".utf8) + url) }
        switch scheme(url) {
        case "http", "https", "mailto", "tel": return .allowed(url)
        default: return .refused
        }
    }

    enum Image {
        case local([UInt8])  // cid: or data:image, loads nothing
        case remote([UInt8])
        case refused
    }

    static func image(_ url: [UInt8]) -> Image {
        if url.starts(with: "//".utf8) { return .remote(Array("https:".utf8) + url) }
        switch scheme(url) {
        case "http", "https": return .remote(url)
        case "cid": return .local(url)
        case "data":
            let head = String(decoding: url.prefix(20).map { $0 | 0x20 }, as: UTF8.self)
            for type in ["data:image/png", "data:image/gif", "data:image/jpeg", "data:image/jpg", "data:image/webp", "data:image/bmp"]
                where head.hasPrefix(type) {
                let next = url.count > type.utf8.count ? url[type.utf8.count] : 0
                if next == UInt8(ascii: ";") || next == UInt8(ascii: ",") { return .local(url) }
            }
            return .refused
        default: return .refused
        }
    }

    static func host(_ url: [UInt8]) -> [UInt8]? { LinkHost.of(url) }

    /// `url` with the query parameters `isTracking` names removed, and how many there were.
    static func withoutParameters(_ url: [UInt8], isTracking: (Substring) -> Bool) -> (url: [UInt8], removed: Int) {
        guard let q = url.firstIndex(of: UInt8(ascii: "?")) else { return (url, 0) }
        let fragmentStart = url[q...].firstIndex(of: UInt8(ascii: "#")) ?? url.endIndex
        // split on bytes: a String split walks grapheme clusters, and was most of this
        var kept: [Range<Int>] = []
        var removed = 0
        var start = q + 1
        while start <= fragmentStart {
            let end = url[start..<fragmentStart].firstIndex(of: UInt8(ascii: "&")) ?? fragmentStart
            let nameEnd = url[start..<end].firstIndex(of: UInt8(ascii: "=")) ?? end
            if isTracking(String(decoding: url[start..<nameEnd], as: UTF8.self)[...]) { removed += 1 } else { kept.append(start..<end) }
            start = end + 1
        }
        guard removed > 0 else { return (url, 0) }
        var result = Array(url[..<q])
        for (k, parameter) in kept.enumerated() {
            result.append(k == 0 ? UInt8(ascii: "?") : UInt8(ascii: "&"))
            result += url[parameter]
        }
        result += url[fragmentStart...]
        return (result, removed)
    }

    /// Percent-encodes everything but unreserved characters: a URL as a query parameter.
    public static func percentEncoded(_ url: [UInt8]) -> String {
        let hex = Array("0123456789ABCDEF".utf8)
        var out: [UInt8] = []
        for b in url {
            if isLetter(b) || (b >= 0x30 && b <= 0x39) || b == UInt8(ascii: "-") || b == UInt8(ascii: ".") || b == UInt8(ascii: "_") || b == UInt8(ascii: "~") {
                out.append(b)
            } else {
                out += [UInt8(ascii: "%"), hex[Int(b >> 4)], hex[Int(b & 15)]]
            }
        }
        return String(decoding: out, as: UTF8.self)
    }

    private static func isLetter(_ b: UInt8) -> Bool { (b | 0x20) >= 0x61 && (b | 0x20) <= 0x7A }
}
