/// Message-ID, In-Reply-To and References, tolerant of broken values: ids without brackets,
/// comments, names and dates mixed in (as some In-Reply-To headers carry).
enum MessageIDs {
    /// Every `<id>` in the value, whitespace removed; when there is none, the words that look
    /// like ids (contain `@`).
    static func all(_ raw: [UInt8]) -> [String] {
        var ids: [String] = []
        var i = 0
        let n = raw.count
        while let open = raw[i...].firstIndex(of: UInt8(ascii: "<")) {
            guard let close = raw[open...].firstIndex(of: UInt8(ascii: ">")) else { break }
            let inside = raw[(open + 1)..<close]
            let id = inside.contains(where: Bytes.isWhitespace) ? String(decoding: inside.filter { !Bytes.isWhitespace($0) }, as: UTF8.self)
                : String(decoding: inside, as: UTF8.self)
            if !id.isEmpty { ids.append(id) }
            i = close + 1
            if i >= n { break }
        }
        if ids.isEmpty {
            for word in raw.split(whereSeparator: { Bytes.isWhitespace($0) || $0 == UInt8(ascii: ",") })
            where word.contains(UInt8(ascii: "@")) {
                ids.append(String(decoding: word, as: UTF8.self).trimmingCharacters(from: "<>()\""))
            }
        }
        return ids
    }

    /// The message's own id: the first bracketed id, else the whole value without spaces.
    static func first(_ raw: [UInt8]) -> String? {
        if let id = all(raw).first { return id }
        let bare = String(decoding: raw.filter { !Bytes.isWhitespace($0) }, as: UTF8.self).trimmingCharacters(from: "<>")
        return bare.isEmpty ? nil : bare
    }

    static func first(_ value: String) -> String? { first(Array(value.utf8)) }
}

extension StringProtocol {
    func trimmingCharacters(from set: String) -> String {
        var s = Substring(self)
        while let f = s.first, set.contains(f) { s.removeFirst() }
        while let l = s.last, set.contains(l) { s.removeLast() }
        return String(s)
    }
}
