import UnixFilter
import UTF8Text

/// Who watches a message being read: tracking-pixel hosts and URL shapes, and the query
/// parameters that tag a link's click. Data, in trackers.json, that users can extend.
public struct Trackers: Sendable, ExtensibleData {
    /// Lowercase; looked up as slices, so that a parent domain is found without a copy.
    var hosts: Set<ArraySlice<UInt8>> = []
    var imageURLPatterns: [[UInt8]] = [] {
        didSet { startsPattern = (0...255).map { b in imageURLPatterns.contains { $0.first == UInt8(b) } } }
    }
    /// By byte: whether one of imageURLPatterns starts with it.
    private var startsPattern = [Bool](repeating: false, count: 256)
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
            case "hosts": hosts.formUnion(values.map { Array($0.lowercased().utf8)[...] })
            case "image_url_patterns": imageURLPatterns += values.map { Array($0.lowercased().utf8) }
            case "link_parameters":
                for v in values.map({ $0.lowercased() }) {
                    if v.hasSuffix("*") { parameterPrefixes.append(String(v.dropLast())) } else { exactParameters.insert(v) }
                }
            default: throw DataFiles.FormatError("unknown key '\(key)' (expected hosts, image_url_patterns, link_parameters)")
            }
        }
    }

    /// The tracker host `host` (lowercase) belongs to: itself or a parent domain in the list.
    func trackerHost(_ host: [UInt8]) -> ArraySlice<UInt8>? {
        var h = host[...]
        while true {
            if hosts.contains(h) { return h }
            guard let dot = h.firstIndex(of: UInt8(ascii: ".")) else { return nil }
            h = h[(dot + 1)...]
        }
    }

    func isTrackingImageURL(_ url: [UInt8]) -> Bool {
        // one pass, trying the patterns at the bytes one starts with (most start with "/")
        let lower = ASCII.lowercased(url)
        return lower.withUnsafeBufferPointer { u in
            startsPattern.withUnsafeBufferPointer { starts in
                u.indices.contains { i in
                    starts[Int(u[i])] && imageURLPatterns.contains { p in
                        p.first == u[i] && p.count <= u.count - i && p.indices.allSatisfy { u[i + $0] == p[$0] }
                    }
                }
            }
        }
    }

    func isTrackingParameter(_ name: Substring) -> Bool {
        let lower = name.lowercased()
        return exactParameters.contains(lower) || parameterPrefixes.contains { lower.hasPrefix($0) }
    }
}
