import UTF8Text

/// A link taken apart: its host, path segments and query (and fragment) pairs, percent-decoded.
struct LinkParts {
    var host: String
    var path: [String]
    var query: [(key: String, value: String)]

    /// Every value a number could hide in: path segments and query values of 8 characters or more.
    var values: [String] {
        (path + query.map(\.value)).flatMap { $0.split(separator: ",").map(String.init) }.filter { $0.count >= 8 }
    }

    /// The host alone, lowercased: cheap, to pass over the links of no carrier.
    static func host(of link: String) -> String? {
        let b = Array(link.utf8)
        guard let colon = b.firstIndex(of: UInt8(ascii: ":")), colon + 2 < b.count,
              b[colon + 1] == UInt8(ascii: "/"), b[colon + 2] == UInt8(ascii: "/"),
              let host = LinkHost.of(b[colon...]), !host.isEmpty else { return nil }
        return String(decoding: host, as: UTF8.self)
    }

    init?(_ link: String) {
        guard let host = Self.host(of: link), let scheme = link.firstRange(of: "://") else { return nil }
        let afterScheme = link[scheme.upperBound...]
        let hostEnd = afterScheme.firstIndex { $0 == "/" || $0 == "?" || $0 == "#" } ?? afterScheme.endIndex
        self.init(host: host, afterHost: afterScheme[hostEnd...])
    }

    /// `afterHost` is the path, query and fragment as written (a fragment such as
    /// `#/search?searchFor=…` holds pairs too).
    init(host: String, afterHost: Substring) {
        self.host = host
        let pathEnd = afterHost.firstIndex { $0 == "?" || $0 == "#" } ?? afterHost.endIndex
        path = afterHost[..<pathEnd].split(separator: "/").map(percentDecoded)
        query = afterHost[pathEnd...].split(whereSeparator: { "?&#;".contains($0) }).compactMap { pair in
            guard let eq = pair.firstIndex(of: "=") else { return nil }
            return (percentDecoded(pair[..<eq]), percentDecoded(pair[pair.index(after: eq)...]))
        }
    }
}

/// Where a carrier's tracking page takes its number, written like a tracking URL without the
/// scheme: `tools.usps.com/go/TrackConfirmAction?tLabels=%s` (a query value) or
/// `track.amazon.com/tracking/%s` (a path segment). Host, path and key match in any case; the
/// host also matches its subdomains.
struct TrackingLinkTemplate {
    let carrier: String
    let host: String
    let path: [String]
    let key: String?

    init?(carrier: String, _ template: String) {
        let lowered = ASCII.lowercased(template)
        let hostEnd = lowered.firstIndex { $0 == "/" || $0 == "?" } ?? lowered.endIndex
        let parts = LinkParts(host: String(lowered[..<hostEnd]), afterHost: lowered[hostEnd...])
        let keys = parts.query.filter { $0.value == "%s" }.map(\.key)
        guard !parts.host.isEmpty, keys.count + parts.path.filter({ $0 == "%s" }).count == 1 else { return nil }
        self.carrier = carrier
        host = parts.host
        path = parts.path
        key = keys.first
    }

    /// The numbers this link carries where the template says (several, comma-separated, as
    /// USPS allows), nil when the link is not this page.
    func numbers(in link: LinkParts) -> [String]? {
        guard LinkHost.host(link.host, isWithin: host), link.path.count == path.count else { return nil }
        var found: String?
        for (segment, expected) in zip(link.path, path) {
            if expected == "%s" { found = segment } else if ASCII.lowercased(segment) != expected { return nil }
        }
        if let key {
            found = link.query.first { ASCII.lowercased($0.key) == key }?.value
        }
        guard let found else { return nil }
        return found.split(separator: ",").map { String($0.filter { $0 != " " }).uppercased() }.filter { !$0.isEmpty }
    }
}

private func percentDecoded(_ s: Substring) -> String {
    var out = [UInt8]()
    let b = Array(s.utf8)
    var i = 0
    while i < b.count {
        if b[i] == UInt8(ascii: "%"), i + 2 < b.count, let v = UInt8(String(decoding: b[(i + 1)...(i + 2)], as: UTF8.self), radix: 16) {
            out.append(v)
            i += 3
        } else {
            out.append(b[i] == UInt8(ascii: "+") ? 0x20 : b[i])
            i += 1
        }
    }
    return String(decoding: out, as: UTF8.self)
}
