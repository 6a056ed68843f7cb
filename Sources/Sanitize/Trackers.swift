import UnixFilter
import UTF8Text

/// Who watches a message being read: tracking-pixel hosts and URL shapes, and the query
/// parameters that tag a link's click. Data, in trackers.json, that users can extend.
public struct Trackers: Sendable, ExtensibleData {
    /// Looked up as Substrings, so that a parent domain is found without making a String.
    var hosts: Set<Substring> = []
    var imageURLPatterns: [[UInt8]] = []
    var exactParameters: Set<String> = []
    var parameterPrefixes: [String] = []

    public static let builtIn: Trackers = {
        var t = Trackers()
        try! t.add(json: PackageResources.trackers_json)
        return t
    }()

    /// Adds the lists of a trackers.json-shaped file.
    public mutating func add(json: [UInt8]) throws {
        for (key, values) in try DataFiles.stringLists(json) {
            switch key {
            case "hosts": hosts.formUnion(values.map { Substring($0.lowercased()) })
            case "image_url_patterns": imageURLPatterns += values.map { Array($0.lowercased().utf8) }
            case "link_parameters":
                for v in values.map({ $0.lowercased() }) {
                    if v.hasSuffix("*") { parameterPrefixes.append(String(v.dropLast())) } else { exactParameters.insert(v) }
                }
            default: throw DataFiles.FormatError("unknown key '\(key)' (expected hosts, image_url_patterns, link_parameters)")
            }
        }
    }

    /// The tracker host `host` belongs to (itself or a parent domain in the list), if any.
    func trackerHost(_ host: String) -> String? {
        var h = Substring(host)
        while true {
            if hosts.contains(h) { return String(h) }
            guard let dot = h.firstIndex(of: ".") else { return nil }
            h = h[h.index(after: dot)...]
        }
    }



    func isTrackingImageURL(_ url: [UInt8]) -> Bool {
        let lower = url.map { $0 >= 0x41 && $0 <= 0x5A ? $0 | 0x20 : $0 }
        return imageURLPatterns.contains { ByteSearch.contains(lower, $0) }
    }

    func isTrackingParameter(_ name: Substring) -> Bool {
        let lower = name.lowercased()
        return exactParameters.contains(lower) || parameterPrefixes.contains { lower.hasPrefix($0) }
    }
}
