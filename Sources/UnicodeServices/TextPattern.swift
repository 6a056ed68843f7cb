internal import CICU

/// A regular expression in ICU's syntax (named groups, look-around, `\b`), for the patterns in
/// data files: carrier specs are written for PCRE-like engines and ICU reads them as written.
/// Text is UTF-16 and positions are UTF-16 offsets. Owns one ICU regex; not for concurrent use.
public final class TextPattern {
    public let pattern: String
    private let caseInsensitive: Bool
    private var compiled: OpaquePointer?
    private var regex: OpaquePointer { compiled ?? compile() }
    private var groups: Int?
    public var groupCount: Int {
        if let groups { return groups }
        var status = U_ZERO_ERROR
        let n = Int(mp_uregex_groupCount(regex, &status))
        groups = n
        return n
    }

    public struct SyntaxError: Error, CustomStringConvertible {
        public var pattern: String
        public var offset: Int
        public var description: String { "bad regular expression at offset \(offset): \(pattern)" }
    }

    /// One match: the range of each group by its number, 0 being the whole match (nil when a
    /// group took no part).
    public struct Match {
        public var groups: [Range<Int>?]
        public var range: Range<Int> { groups[0]! }
    }

    /// Compiles `pattern` at once: a mistake in it (a user's file) is said here.
    public init(_ pattern: String, caseInsensitive: Bool = false) throws(SyntaxError) {
        (self.pattern, self.caseInsensitive) = (pattern, caseInsensitive)
        var offset: Int32 = 0
        guard let re = Self.open(pattern, caseInsensitive: caseInsensitive, offset: &offset) else {
            throw SyntaxError(pattern: pattern, offset: Int(offset))
        }
        compiled = re
    }

    /// A pattern known to be good (compiled in, and compiled by a test), compiled when first
    /// used: a program that starts for one message compiles only the patterns it tries.
    public init(known pattern: String, caseInsensitive: Bool = false) {
        (self.pattern, self.caseInsensitive) = (pattern, caseInsensitive)
    }

    private func compile() -> OpaquePointer {
        var offset: Int32 = 0
        guard let re = Self.open(pattern, caseInsensitive: caseInsensitive, offset: &offset) else {
            fatalError("a built-in pattern does not compile, at offset \(offset): \(pattern)")
        }
        compiled = re
        return re
    }

    private static func open(_ pattern: String, caseInsensitive: Bool, offset: inout Int32) -> OpaquePointer? {
        let utf16 = Array(pattern.utf16)
        var status = U_ZERO_ERROR
        let re = utf16.withUnsafeBufferPointer {
            mp_uregex_open($0.baseAddress, Int32($0.count), caseInsensitive ? 2 /* UREGEX_CASE_INSENSITIVE */ : 0, &offset, &status)
        }
        guard let re, mp_u_failure(status) == 0 else {
            if let re { mp_uregex_close(re) }
            return nil
        }
        return re
    }

    deinit { if let compiled { mp_uregex_close(compiled) } }

    /// The number of the group called `name`, nil when there is none.
    public func group(named name: String) -> Int? {
        let utf16 = Array(name.utf16)
        var status = U_ZERO_ERROR
        let n = utf16.withUnsafeBufferPointer { mp_uregex_groupNumberFromName(regex, $0.baseAddress, Int32($0.count), &status) }
        return mp_u_failure(status) == 0 ? Int(n) : nil
    }

    /// Every match in `text`, scanning on from each match's end; `body` returns false to stop.
    public func forEachMatch(in text: [UInt16], _ body: (Match) -> Bool) {
        text.withUnsafeBufferPointer { buf in
            var status = U_ZERO_ERROR
            mp_uregex_setText(regex, buf.baseAddress ?? UnsafePointer(bitPattern: 1), Int32(buf.count), &status)
            var start: Int32 = 0
            while start <= buf.count {
                status = U_ZERO_ERROR
                guard mp_uregex_find(regex, start, &status) != 0, mp_u_failure(status) == 0 else { break }
                let m = currentMatch()
                if !body(m) { break }
                start = Int32(m.range.isEmpty ? m.range.lowerBound + 1 : m.range.upperBound)
            }
        }
    }

    /// The match that starts at each of `starts` (ascending), where there is one: matches may
    /// overlap. What scanning on from each match's start + 1 finds, less those starting
    /// elsewhere, which are not tried for; look-behind and `\b` see the text before a start.
    public func forEachMatch(in text: [UInt16], startingAt starts: [Int], _ body: (Match) -> Bool) {
        text.withUnsafeBufferPointer { buf in
            var status = U_ZERO_ERROR
            mp_uregex_setText(regex, buf.baseAddress ?? UnsafePointer(bitPattern: 1), Int32(buf.count), &status)
            for start in starts where start <= buf.count {
                status = U_ZERO_ERROR
                guard mp_uregex_lookingAtIndex(regex, Int32(start), &status) != 0, mp_u_failure(status) == 0 else { continue }
                if !body(currentMatch()) { break }
            }
        }
    }

    /// The first match in `text`, nil when there is none.
    public func firstMatch(in text: [UInt16]) -> Match? {
        var first: Match?
        forEachMatch(in: text) { match in
            first = match
            return false
        }
        return first
    }

    /// The match of the whole of `text`, nil when it does not match.
    public func wholeMatch(_ text: [UInt16]) -> Match? {
        text.withUnsafeBufferPointer { buf in
            var status = U_ZERO_ERROR
            mp_uregex_setText(regex, buf.baseAddress ?? UnsafePointer(bitPattern: 1), Int32(buf.count), &status)
            guard mp_uregex_matches(regex, &status) != 0, mp_u_failure(status) == 0 else { return nil }
            return currentMatch()
        }
    }

    /// Whether the pattern matches a start of `text`.
    public func matchesStart(_ text: [UInt16]) -> Bool {
        text.withUnsafeBufferPointer { buf in
            var status = U_ZERO_ERROR
            mp_uregex_setText(regex, buf.baseAddress ?? UnsafePointer(bitPattern: 1), Int32(buf.count), &status)
            return mp_uregex_lookingAt(regex, &status) != 0 && mp_u_failure(status) == 0
        }
    }

    private func currentMatch() -> Match {
        var groups: [Range<Int>?] = []
        groups.reserveCapacity(groupCount + 1)
        for g in 0...groupCount {
            var status = U_ZERO_ERROR
            let s = mp_uregex_start(regex, Int32(g), &status)
            let e = mp_uregex_end(regex, Int32(g), &status)
            groups.append(s >= 0 && e >= s && mp_u_failure(status) == 0 ? Int(s)..<Int(e) : nil)
        }
        if groups[0] == nil { groups[0] = 0..<0 }
        return Match(groups: groups)
    }
}
