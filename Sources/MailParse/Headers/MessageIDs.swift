/// Message-ID, In-Reply-To and References, tolerant of broken values: ids without brackets,
/// comments, names and dates mixed in (as some In-Reply-To headers carry).
enum MessageIDs {
    /// Every `<id>` in the value; when there is none, the words that look like ids.
    static func all(_ value: String) -> [String] {
        var ids: [String] = []
        var rest = Substring(value)
        while let open = rest.firstIndex(of: "<") {
            guard let close = rest[open...].firstIndex(of: ">") else { break }
            let id = rest[rest.index(after: open)..<close].filter { !$0.isWhitespace }
            if !id.isEmpty { ids.append(String(id)) }
            rest = rest[rest.index(after: close)...]
        }
        if ids.isEmpty {
            ids = value.split(whereSeparator: { $0 == " " || $0 == "\t" || $0 == "," })
                .filter { $0.contains("@") }
                .map { String($0.trimmingCharacters(from: "<>()\"")) }
        }
        return ids
    }

    /// The message's own id: the first bracketed id, else the whole value without spaces.
    static func first(_ value: String) -> String? {
        if let id = all(value).first { return id }
        let bare = value.filter { !$0.isWhitespace }.trimmingCharacters(from: "<>")
        return bare.isEmpty ? nil : bare
    }
}

extension StringProtocol {
    func trimmingCharacters(from set: String) -> String {
        var s = Substring(self)
        while let f = s.first, set.contains(f) { s.removeFirst() }
        while let l = s.last, set.contains(l) { s.removeLast() }
        return String(s)
    }
}
