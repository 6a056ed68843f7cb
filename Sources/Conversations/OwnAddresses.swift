/// The user's own addresses, normalized. The first one given names the conversation a user
/// has with themselves.
public struct OwnAddresses: Sendable {
    public private(set) var addresses: [String] = []
    private var set: Set<String> = []

    public init() {}

    public var isEmpty: Bool { addresses.isEmpty }
    public var primary: String? { addresses.first }

    public func contains(_ normalized: String) -> Bool { set.contains(normalized) }

    public mutating func add(_ normalized: String) {
        if set.insert(normalized).inserted { addresses.append(normalized) }
    }

    /// The addresses of a `--me-file`: one per line; blank lines and `#` comments ignored.
    public static func parseFile(_ text: String) -> [String] {
        text.split(whereSeparator: { $0 == "\n" || $0 == "\r" }).compactMap { line in
            let content = line.split(separator: "#", maxSplits: 1, omittingEmptySubsequences: false).first ?? ""
            let trimmed = content.trimmingCharacters(in: " \t")
            return trimmed.isEmpty ? nil : trimmed
        }
    }
}

extension StringProtocol {
    func trimmingCharacters(in set: String) -> String {
        var s = Substring(self)
        while let f = s.first, set.contains(f) { s.removeFirst() }
        while let l = s.last, set.contains(l) { s.removeLast() }
        return String(s)
    }
}
