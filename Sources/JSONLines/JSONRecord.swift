#if canImport(Glibc)
import Glibc
#endif

/// One JSON Lines record: a top-level object checked strictly, with the position of each of its
/// members. Reading a field decodes only that field; writing passes every other member through
/// byte for byte, in its original order.
public struct JSONRecord {
    public let bytes: [UInt8]
    public let members: [JSONMember]

    /// Checks `line` (without its newline) and indexes its members.
    public init(line: UnsafeRawBufferPointer) throws(JSONError) {
        self.members = try Self.members(of: line)
        self.bytes = Array(line)
    }

    /// The same, keeping `line` itself rather than a copy.
    public init(_ line: [UInt8]) throws(JSONError) {
        // withUnsafeBytes is rethrows, which loses the typed error: carry it out in a Result
        let result = line.withUnsafeBytes { p in Result { () throws(JSONError) in try Self.members(of: p) } }
        self.members = try result.get()
        self.bytes = line
    }

    private static func members(of line: UnsafeRawBufferPointer) throws(JSONError) -> [JSONMember] {
        var scanner = JSONScanner(line)
        scanner.skipWhitespace()
        guard scanner.i < line.count, line[scanner.i] == UInt8(ascii: "{") else {
            throw scanner.fail("a record must be a JSON object")
        }
        var members: [JSONMember] = []
        members.reserveCapacity(32)
        try withUnsafeMutablePointer(to: &members) { (p) throws(JSONError) in try scanner.scanObject(members: p) }
        scanner.skipWhitespace()
        if scanner.i != line.count { throw scanner.fail("text after the object") }
        return members
    }

    public init(_ line: String) throws(JSONError) { try self.init(Array(line.utf8)) }

    /// The member whose key equals `key` (the first one, if the record repeats a key).
    public func member(_ key: String) -> JSONMember? {
        var k = key
        return k.withUTF8 { keyBytes in
            bytes.withUnsafeBytes { buf in
                for m in members where keyMatches(buf, m.key, keyBytes) { return m }
                return nil
            }
        }
    }

    /// The raw bytes of a member's value, exactly as written.
    public func rawValue(_ key: String) -> ArraySlice<UInt8>? {
        member(key).map { bytes[$0.value] }
    }

    /// A member's value, decoded.
    public func value(_ key: String) -> JSONValue? {
        guard let m = member(key) else { return nil }
        return bytes.withUnsafeBytes { buf in
            var parser = JSONValueParser(buf, at: m.value.lowerBound)
            return try? parser.parse()
        }
    }

    /// A string member's decoded UTF-8, without making a String of it; nil when missing, null
    /// or not a string.
    public func stringBytes(_ key: String) -> [UInt8]? {
        guard let m = member(key) else { return nil }
        return bytes.withUnsafeBytes { buf -> [UInt8]? in
            guard m.value.count >= 2, buf[m.value.lowerBound] == UInt8(ascii: "\"") else { return nil }
            return JSONValueParser.decodeChecked(UnsafeRawBufferPointer(rebasing: buf[(m.value.lowerBound + 1)..<(m.value.upperBound - 1)]))
        }
    }

    /// A string member's decoded text; nil when missing, null or not a string.
    public func string(_ key: String) -> String? {
        if case .string(let s)? = value(key) { return s }
        return nil
    }

    /// The first `maxBytes` or so of a string member's text, cut at a character boundary
    /// (a snippet needs the start of a long text, not all of it); nil when not a string.
    public func stringPrefix(_ key: String, maxBytes: Int) -> String? {
        guard let m = member(key), bytes[m.value.lowerBound] == UInt8(ascii: "\"") else { return nil }
        return bytes.withUnsafeBytes { buf in
            var parser = JSONValueParser(buf, at: m.value.lowerBound)
            return String(decoding: parser.decodeString(limit: maxBytes), as: UTF8.self)
        }
    }

    /// Whether the object a member holds has a member named one of `names`, found without
    /// decoding any value (which headers a message's `headers` has); false when it is no object.
    /// The record's scan has checked its bytes, so they are only walked here: each string is
    /// passed over to its closing quote with memchr, and a key is a string followed by a colon
    /// at the object's own level.
    public func object(_ key: String, hasMemberNamed names: String...) -> Bool {
        guard let m = member(key) else { return false }
        return bytes.withUnsafeBytes { buf in
            guard buf[m.value.lowerBound] == UInt8(ascii: "{") else { return false }
            let end = m.value.upperBound
            var depth = 0, i = m.value.lowerBound
            while i < end {
                switch buf[i] {
                case UInt8(ascii: "\""):
                    let close = closingQuote(buf, after: i)
                    if depth == 1 {
                        var after = JSONScanner(buf)
                        after.i = close + 1
                        after.skipWhitespace()
                        if buf[after.i] == UInt8(ascii: ":"),
                           names.contains(where: { var name = $0; return name.withUTF8 { keyMatches(buf, i..<(close + 1), $0) } }) {
                            return true
                        }
                    }
                    i = close
                case UInt8(ascii: "{"), UInt8(ascii: "["): depth += 1
                case UInt8(ascii: "}"), UInt8(ascii: "]"): depth -= 1
                default: break
                }
                i += 1
            }
            return false
        }
    }

    /// The member keys in order, decoded.
    public var keys: [String] {
        bytes.withUnsafeBytes { buf in
            members.map { m in
                var parser = JSONValueParser(buf, at: m.key.lowerBound)
                if case .string(let s)? = try? parser.parse() { return s }
                return ""
            }
        }
    }

    /// This record with `updates` applied: a member whose key is updated keeps its place and gets
    /// the new value (raw JSON bytes), `nil` removes it; new keys are appended in the order given.
    /// Untouched members are copied byte for byte.
    public func updated(_ updates: [(key: String, value: [UInt8]?)]) -> [UInt8] {
        var out = [UInt8]()
        out.reserveCapacity(bytes.count + updates.reduce(0) { $0 + $1.key.utf8.count + ($1.value?.count ?? 0) + 4 })
        bytes.withUnsafeBytes { buf in
            var used = [Bool](repeating: false, count: updates.count)
            let existing = members.map { m in updateIndex(buf, m, updates) }
            let close = lastBrace(buf)
            var emptySoFar = members.isEmpty
            if existing.allSatisfy({ $0 == nil }) {
                // the common case: every member stays, the new ones go before the final brace
                out.append(contentsOf: UnsafeRawBufferPointer(rebasing: buf[0..<close]))
            } else {
                // every byte between the members (whitespace, commas) stays; a removed member goes
                // with the comma before it, or the one after it when it was first
                var copied = members[0].key.lowerBound
                while buf[copied - 1] != UInt8(ascii: "{") { copied -= 1 }
                out.append(contentsOf: UnsafeRawBufferPointer(rebasing: buf[0..<copied]))
                emptySoFar = true
                func copySeparator(upTo end: Int) {  // whitespace and at most one comma
                    for i in copied..<end where !(emptySoFar && buf[i] == UInt8(ascii: ",")) { out.append(buf[i]) }
                }
                for (m, index) in zip(members, existing) {
                    let value = index.map { updates[$0].value }
                    if let index { used[index] = true }
                    if case .some(.none) = value {  // removed
                        copied = m.value.upperBound
                        continue
                    }
                    copySeparator(upTo: m.key.lowerBound)
                    if case .some(.some(let new)) = value {
                        out.append(contentsOf: UnsafeRawBufferPointer(rebasing: buf[m.key.lowerBound..<m.value.lowerBound]))
                        out.append(contentsOf: new)
                    } else {
                        out.append(contentsOf: UnsafeRawBufferPointer(rebasing: buf[m.key.lowerBound..<m.value.upperBound]))
                    }
                    copied = m.value.upperBound
                    emptySoFar = false
                }
                copySeparator(upTo: close)
            }
            for (index, u) in updates.enumerated() where !used[index] {
                guard let value = u.value else { continue }
                if !emptySoFar { out.append(UInt8(ascii: ",")) }
                appendKey(u.key, value, to: &out)
                emptySoFar = false
            }
            out.append(contentsOf: UnsafeRawBufferPointer(rebasing: buf[close..<buf.count]))
        }
        return out
    }

    private func updateIndex(_ buf: UnsafeRawBufferPointer, _ m: JSONMember, _ updates: [(key: String, value: [UInt8]?)]) -> Int? {
        for (index, u) in updates.enumerated() where m.key.count - 2 >= u.key.utf8.count {  // see keyMatches
            var k = u.key
            if k.withUTF8({ keyMatches(buf, m.key, $0) }) { return index }
        }
        return nil
    }

    private func lastBrace(_ buf: UnsafeRawBufferPointer) -> Int {
        var i = buf.count - 1
        while i > 0, buf[i] != UInt8(ascii: "}") { i -= 1 }
        return i
    }

    private func appendKey(_ key: String, _ value: [UInt8], to out: inout [UInt8]) {
        JSONWriter.appendString(key, to: &out)
        out.append(UInt8(ascii: ":"))
        out.append(contentsOf: value)
    }
}

/// Where the string whose opening quote is at `open` ends: its closing quote, the first quote
/// after it with an even number of backslashes before it (the bytes are valid JSON).
private func closingQuote(_ buf: UnsafeRawBufferPointer, after open: Int) -> Int {
    var i = open + 1
    while true {
        let p = memchr(buf.baseAddress! + i, 0x22, buf.count - i)!
        let quote = buf.baseAddress!.distance(to: UnsafeRawPointer(p))
        var backslashes = 0
        while buf[quote - 1 - backslashes] == UInt8(ascii: "\\") { backslashes += 1 }
        if backslashes % 2 == 0 { return quote }
        i = quote + 1
    }
}

/// True when the quoted key at `range` spells `key`. Keys with escapes are decoded to compare.
private func keyMatches(_ buf: UnsafeRawBufferPointer, _ range: Range<Int>, _ key: UnsafeBufferPointer<UInt8>) -> Bool {
    let inner = (range.lowerBound + 1)..<(range.upperBound - 1)
    // an escape is longer than what it stands for: as long as the key, it spells it or not as
    // written; longer, only through a backslash
    if inner.count == key.count { return key.isEmpty || memcmp(buf.baseAddress! + inner.lowerBound, key.baseAddress!, key.count) == 0 }
    guard inner.count > key.count, memchr(buf.baseAddress! + inner.lowerBound, 0x5C, inner.count) != nil else { return false }
    var parser = JSONValueParser(buf, at: range.lowerBound)
    guard case .string(let s)? = try? parser.parse() else { return false }
    return Array(s.utf8) == Array(key)
}
