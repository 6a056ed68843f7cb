/// Strings one of which is in every text an ICU regular expression matches, read off the
/// pattern (the prefilter idea of RE2 and codesearch): a search for them is far cheaper than
/// the match, and a text without any of them cannot match. Kept case-folded, so they serve
/// case-insensitive patterns: compare with `CaseFolding.folded` text.
public struct LiteralCues: Sendable {
    /// Each group's literals, folded: a text must hold one literal of every group.
    public let groups: [[[UInt16]]]
    private let tables: [FirstUnitTable]

    /// nil when the pattern gives no such strings (e.g. `\w+:`) or uses syntax not read here:
    /// then every text may match.
    public init?(pattern: String) {
        var analyzer = PatternAnalyzer(Array(pattern.unicodeScalars))
        guard let info = try? analyzer.alternation(), analyzer.atEnd else { return nil }
        // the most telling first: the longest shortest string, then the fewest strings
        let sets = info.required.sorted { PieceInfo.score($0) > PieceInfo.score($1) }.prefix(3)
        guard !sets.isEmpty else { return nil }
        groups = sets.map { $0.sorted { $0.lexicographicallyPrecedes($1) } }
        tables = groups.map(FirstUnitTable.init)
    }

    /// Whether `folded` (case-folded text) holds a literal of every group.
    public func mayMatch(folded text: [UInt16]) -> Bool {
        tables.allSatisfy { $0.anyIn(text) }
    }
}

/// Literals by the low byte of their first unit, for one pass over a text. Flat arrays: an
/// array of arrays costs a retain and a release at every text position.
private struct FirstUnitTable: Sendable {
    /// The literals end to end; literal n is `units[bounds[n]..<bounds[n + 1]]`.
    let units: [UInt16]
    let bounds: [Int]
    /// The literals starting with low byte b are `order[first[b]..<first[b + 1]]`.
    let first: [Int]
    let order: [Int]

    init(_ literals: [[UInt16]]) {
        units = literals.flatMap { $0 }
        bounds = literals.reduce(into: [0]) { $0.append($0.last! + $1.count) }
        let byte = literals.map { Int($0[0] & 0xFF) }
        order = literals.indices.sorted { (byte[$0], $0) < (byte[$1], $1) }
        var first = [Int](repeating: 0, count: 257)
        for b in byte { first[b + 1] += 1 }
        for b in 0..<256 { first[b + 1] += first[b] }
        self.first = first
    }

    func anyIn(_ text: [UInt16]) -> Bool {
        text.withUnsafeBufferPointer { t in
            units.withUnsafeBufferPointer { u in
                bounds.withUnsafeBufferPointer { bounds in
                    first.withUnsafeBufferPointer { first in
                        order.withUnsafeBufferPointer { order in
                            for i in t.indices {
                                let b = Int(t[i] & 0xFF)
                                for k in first[b]..<first[b + 1] {
                                    let n = order[k]
                                    let start = bounds[n], count = bounds[n + 1] - start
                                    guard count <= t.count - i else { continue }
                                    var j = 0
                                    while j < count, u[start + j] == t[i + j] { j += 1 }
                                    if j == count { return true }
                                }
                            }
                            return false
                        }
                    }
                }
            }
        }
    }
}

/// What a piece of a pattern says about the text it matches.
private enum PieceInfo {
    /// It matches exactly one of these strings (folded); `[[]]` for zero-width pieces.
    case exact(Set<[UInt16]>)
    /// Every match holds one string of each set (none: nothing is known).
    case contains([Set<[UInt16]>])

    static let empty = PieceInfo.exact([[]])
    static let unknown = PieceInfo.contains([])

    /// Sets of strings every match holds one of each; sets holding the empty string say
    /// nothing and are left out.
    var required: [Set<[UInt16]>] {
        switch self {
        case .exact(let set): set.contains([]) ? [] : [Self.minimal(set)]
        case .contains(let sets): sets.filter { !$0.contains([]) }
        }
    }

    /// Without the strings that hold another of the set: a text holding "kind regards" holds
    /// "regards".
    static func minimal(_ set: Set<[UInt16]>) -> Set<[UInt16]> {
        set.filter { s in !set.contains { t in t != s && t.count < s.count && contains(s, t) } }
    }

    private static func contains(_ s: [UInt16], _ t: [UInt16]) -> Bool {
        guard !t.isEmpty else { return true }
        return (0...(s.count - t.count)).contains { s[$0..<($0 + t.count)].elementsEqual(t) }
    }

    /// The single most telling set.
    var best: Set<[UInt16]>? { required.max { Self.score($0) < Self.score($1) } }

    static func score(_ set: Set<[UInt16]>) -> (Int, Int) { (set.map(\.count).min() ?? 0, -set.count) }
}

/// A recursive-descent reader of ICU's regular-expression syntax, just enough to find required
/// literals. What it does not understand it throws on, and the pattern gets no cues.
private struct PatternAnalyzer {
    struct Unsupported: Error {}
    private let s: [Unicode.Scalar]
    private var i = 0
    private static let maxStrings = 16

    init(_ scalars: [Unicode.Scalar]) { s = scalars }

    var atEnd: Bool { i == s.count }

    private func peek(_ offset: Int = 0) -> Unicode.Scalar? { i + offset < s.count ? s[i + offset] : nil }

    mutating func alternation() throws(Unsupported) -> PieceInfo {
        var branches = [try concatenation()]
        while peek() == "|" {
            i += 1
            branches.append(try concatenation())
        }
        guard branches.count > 1 else { return branches[0] }
        var exact: Set<[UInt16]> = []
        var allExact = true
        for b in branches {
            if case .exact(let set) = b { exact.formUnion(set) } else { allExact = false }
        }
        if allExact, exact.count <= Self.maxStrings { return .exact(exact) }
        var union: Set<[UInt16]> = []
        for b in branches {
            guard let r = b.best else { return .unknown }
            union.formUnion(r)
        }
        return .contains([PieceInfo.minimal(union)])
    }

    private mutating func concatenation() throws(Unsupported) -> PieceInfo {
        var required: [Set<[UInt16]>] = []
        var run: Set<[UInt16]> = [[]]
        var allExact = true
        while let c = peek(), c != "|", c != ")" {
            let piece = try quantified(try atom())
            switch piece {
            case .exact(let set):
                var product: Set<[UInt16]> = []
                for a in run { for b in set { product.insert(a + b) } }
                if product.count > Self.maxStrings {
                    required.append(PieceInfo.minimal(run))
                    run = set
                    allExact = false
                } else {
                    run = product
                }
            case .contains(let sets):
                required += sets
                required.append(PieceInfo.minimal(run))
                run = [[]]
                allExact = false
            }
        }
        if allExact { return .exact(run) }
        required.append(PieceInfo.minimal(run))
        return .contains(required.filter { !$0.contains([]) })
    }

    private mutating func quantified(_ piece: PieceInfo) throws(Unsupported) -> PieceInfo {
        guard let c = peek() else { return piece }
        var minimum: Int, maximum: Int?
        switch c {
        case "*": (minimum, maximum) = (0, nil); i += 1
        case "+": (minimum, maximum) = (1, nil); i += 1
        case "?": (minimum, maximum) = (0, 1); i += 1
        case "{":
            i += 1
            minimum = try number()
            maximum = minimum
            if peek() == "," {
                i += 1
                maximum = peek() == "}" ? nil : try number()
            }
            guard peek() == "}" else { throw Unsupported() }
            i += 1
        default: return piece
        }
        if peek() == "?" || peek() == "+" { i += 1 }  // lazy, possessive
        if minimum == 0, maximum == 1, case .exact(let set) = piece { return .exact(set.union([[]])) }
        if minimum == 1, maximum == 1 { return piece }
        return minimum == 0 ? .unknown : .contains(piece.required)
    }

    private mutating func number() throws(Unsupported) -> Int {
        var n = 0, digits = 0
        while let c = peek(), let d = c.properties.numericType == .decimal ? Int(String(c)) : nil {
            n = n * 10 + d
            digits += 1
            i += 1
        }
        guard digits > 0 else { throw Unsupported() }
        return n
    }

    private mutating func atom() throws(Unsupported) -> PieceInfo {
        let c = s[i]
        i += 1
        switch c {
        case "(": return try group()
        case "[": return try characterClass()
        case "\\": return try escape()
        case ".": return .unknown
        case "^", "$": return .empty
        case "*", "+", "?", "{", "}", "]": throw Unsupported()
        default: return literal(c)
        }
    }

    private func literal(_ c: Unicode.Scalar) -> PieceInfo { .exact([CaseFolding.folded(Array(String(c).utf16))]) }

    private mutating func group() throws(Unsupported) -> PieceInfo {
        var lookaround: Bool?  // true: positive, false: negative
        if peek() == "?" {
            i += 1
            switch peek() {
            case ":", ">": i += 1
            case "=": i += 1; lookaround = true
            case "!": i += 1; lookaround = false
            case "<" where peek(1) == "=": i += 2; lookaround = true
            case "<" where peek(1) == "!": i += 2; lookaround = false
            case "<":
                while let c = peek(), c != ">" { i += 1 }  // a named group
                i += 1
            case "#":
                while let c = peek(), c != ")" { i += 1 }
                i += 1
                return .empty
            default:
                // flags: (?i) (?-i) (?i:…); free spacing (x) changes how the rest reads
                var on = true
                while let c = peek(), "imsw-".unicodeScalars.contains(c) || c == "x" {
                    if c == "-" { on = false }
                    if c == "x", on { throw Unsupported() }
                    i += 1
                }
                if peek() == ")" {
                    i += 1
                    return .empty
                }
                guard peek() == ":" else { throw Unsupported() }
                i += 1
            }
        }
        let inner = try alternation()
        guard peek() == ")" else { throw Unsupported() }
        i += 1
        switch lookaround {
        case true?: return .contains(inner.required)  // in the text, if not in the match
        case false?: return .empty
        case nil: return inner
        }
    }

    /// A set `[…]`: up to four plain characters are exact, anything else unknown.
    private mutating func characterClass() throws(Unsupported) -> PieceInfo {
        var depth = 1
        var members: [Unicode.Scalar] = []
        var plain = peek() != "^"
        while depth > 0 {
            guard let c = peek() else { throw Unsupported() }
            i += 1
            switch c {
            case "\\":
                plain = false
                guard let e = peek() else { throw Unsupported() }
                i += 1
                if "pPNx".unicodeScalars.contains(e), peek() == "{" {
                    while let b = peek(), b != "}" { i += 1 }
                    i += 1
                }
            case "[": depth += 1; plain = false
            case "]": depth -= 1
            case "-", "&", "{", "}", "$", "^": plain = false
            default: members.append(c)
            }
        }
        let posix = members.count > 1 && members.first == ":" && members.last == ":"  // [:alpha:]
        guard plain, !posix, !members.isEmpty, members.count <= 4 else { return .unknown }
        var set: Set<[UInt16]> = []
        for m in members { if case .exact(let f) = literal(m) { set.formUnion(f) } }
        return .exact(set)
    }

    private mutating func escape() throws(Unsupported) -> PieceInfo {
        guard let c = peek() else { throw Unsupported() }
        i += 1
        switch c {
        case "Q":
            var text: [Unicode.Scalar] = []
            while i < s.count, !(s[i] == "\\" && peek(1) == "E") {
                text.append(s[i])
                i += 1
            }
            if i < s.count { i += 2 }
            var units: [UInt16] = []
            for t in text { units += String(t).utf16 }
            return .exact([CaseFolding.folded(units)])
        case "b", "B", "A", "z", "Z", "G": return .empty
        case "p", "P", "N", "x", "k":
            let close: Unicode.Scalar = c == "k" ? ">" : "}"
            if peek() == "{" || (c == "k" && peek() == "<") {
                while let b = peek(), b != close { i += 1 }
                guard peek() == close else { throw Unsupported() }
                i += 1
            } else {
                i += c == "x" ? 2 : 1
            }
            return .unknown
        case "u": i += 4; return .unknown
        case "U": i += 8; return .unknown
        case "c": i += 1; return .unknown
        case "0", "1", "2", "3", "4", "5", "6", "7", "8", "9":
            while let d = peek(), d.properties.numericType == .decimal { i += 1 }
            return .unknown
        case "s", "S", "d", "D", "w", "W", "h", "H", "v", "V", "R", "X", "t", "n", "r", "f", "e", "a": return .unknown
        default:
            if c.properties.isAlphabetic || c.properties.numericType != nil { throw Unsupported() }
            return literal(c)
        }
    }
}
