/// The host of a link, as the tools compare hosts: Sanitize's URL policy, carrier-detect's
/// tracking links, event-extract's meeting links.
public enum LinkHost {
    /// The host of an absolute URL (after its `//`), lowercased, without port or user; nil
    /// when it has no `//`.
    public static func of(_ url: some Collection<UInt8>) -> [UInt8]? {
        let url = Array(url)
        guard let slashes = url.indices.dropLast().first(where: { url[$0] == UInt8(ascii: "/") && url[$0 + 1] == UInt8(ascii: "/") })
        else { return nil }
        var host = url[(slashes + 2)...].prefix { $0 != UInt8(ascii: "/") && $0 != UInt8(ascii: "?") && $0 != UInt8(ascii: "#") && $0 != UInt8(ascii: "\\") }
        if let at = host.lastIndex(of: UInt8(ascii: "@")) { host = host[(at + 1)...] }
        if host.first == UInt8(ascii: "[") {
            if let close = host.firstIndex(of: UInt8(ascii: "]")) { host = host[...close] }
        } else if let colon = host.firstIndex(of: UInt8(ascii: ":")) {
            host = host[..<colon]
        }
        return ASCII.lowercased(host)
    }

    /// Whether `host` is `domain` or a name under it (`us02web.zoom.us` under `zoom.us`), both
    /// lowercase.
    public static func host(_ host: String, isWithin domain: String) -> Bool {
        host == domain || host.hasSuffix("." + domain)
    }
}
