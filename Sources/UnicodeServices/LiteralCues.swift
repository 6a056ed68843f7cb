/// Strings one of which is in every text an ICU regular expression matches, read off the
/// pattern (the prefilter idea of RE2 and codesearch): a search for them is far cheaper than
/// the match, and a text without any of them cannot match. Kept case-folded, so they serve
/// case-insensitive patterns: compare with `CaseFolding.folded` text.
public struct LiteralCues: Sendable {
    /// Each group's literals, folded: a text must hold one literal of every group.
    public let groups: [[[UInt16]]]
    private let tables: [LiteralTable]

    /// nil when the pattern gives no such strings (e.g. `\d+\s\w+`) or uses syntax not read here:
    /// then every text may match.
    public init?(pattern: String) {
        guard let tree = try? RegexNode.parse(pattern) else { return nil }
        let info = CueAnalysis.info(tree)
        // the most telling first: the longest shortest string, then the fewest strings
        let sets = info.required.sorted { PieceInfo.score($0) > PieceInfo.score($1) }.prefix(3)
        guard !sets.isEmpty else { return nil }
        groups = sets.map { $0.sorted { $0.lexicographicallyPrecedes($1) } }
        tables = groups.map(LiteralTable.init)
    }

    /// Whether `folded` (case-folded text) holds a literal of every group.
    public func mayMatch(folded text: [UInt16]) -> Bool {
        tables.allSatisfy { $0.anyIn(text) }
    }
}

/// Literals indexed for one pass over a text: one-unit literals in a bitmap (ASCII) or a
/// list, longer ones bucketed by their first two units, so that a text position has rarely
/// more than one candidate. Flat arrays: an array of arrays costs a retain and a release at
/// every text position.
private struct LiteralTable: Sendable {
    private var singleASCII: (UInt64, UInt64) = (0, 0)
    private var singleOther: [UInt16] = []
    /// The longer literals end to end; literal n is `units[bounds[n]..<bounds[n + 1]]`.
    private let units: [UInt16]
    private let bounds: [Int]
    /// The literals of bucket b are `order[bucketStart[b]..<bucketStart[b + 1]]`.
    private let bucketStart: [Int]
    private let order: [Int]

    private static func bucket(_ a: UInt16, _ b: UInt16) -> Int { Int(a & 0x3F) << 6 | Int(b & 0x3F) }

    init(_ literals: [[UInt16]]) {
        var long: [[UInt16]] = []
        for l in literals {
            if l.count > 1 {
                long.append(l)
            } else if l[0] < 64 {
                singleASCII.0 |= 1 << UInt64(l[0])
            } else if l[0] < 128 {
                singleASCII.1 |= 1 << UInt64(l[0] - 64)
            } else {
                singleOther.append(l[0])
            }
        }
        units = long.flatMap { $0 }
        bounds = long.reduce(into: [0]) { $0.append($0.last! + $1.count) }
        let key = long.map { Self.bucket($0[0], $0[1]) }
        order = long.indices.sorted { (key[$0], $0) < (key[$1], $1) }
        var start = [Int](repeating: 0, count: 4097)
        for k in key { start[k + 1] += 1 }
        for b in 0..<4096 { start[b + 1] += start[b] }
        bucketStart = start
    }

    func anyIn(_ text: [UInt16]) -> Bool {
        text.withUnsafeBufferPointer { t in
            units.withUnsafeBufferPointer { u in
                bounds.withUnsafeBufferPointer { bounds in
                    bucketStart.withUnsafeBufferPointer { bucketStart in
                        order.withUnsafeBufferPointer { order in
                            let n = t.count
                            for i in 0..<n {
                                let c = t[i]
                                if c < 64 ? (singleASCII.0 >> UInt64(c)) & 1 == 1
                                    : c < 128 ? (singleASCII.1 >> UInt64(c - 64)) & 1 == 1
                                    : !singleOther.isEmpty && singleOther.contains(c) { return true }
                                guard i + 1 < n else { break }
                                let b = Self.bucket(c, t[i + 1])
                                for k in bucketStart[b]..<bucketStart[b + 1] {
                                    let l = order[k]
                                    let start = bounds[l], count = bounds[l + 1] - start
                                    guard count <= n - i else { continue }
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

private enum CueAnalysis {
    static let maxStrings = 16

    static func info(_ node: RegexNode) -> PieceInfo {
        switch node {
        case .literal(let scalars):
            var units: [UInt16] = []
            for c in scalars { units += String(c).utf16 }
            return .exact([CaseFolding.folded(units)])
        case .set(let set?) where !set.negated && set.items.count <= 4:
            var strings: Set<[UInt16]> = []
            for item in set.items {
                guard case .scalar(let c) = item else { return .unknown }
                strings.insert(CaseFolding.folded(Array(String(c).utf16)))
            }
            return .exact(strings)
        case .set, .any, .opaque: return .unknown
        case .startOfText, .opaqueAnchor, .wordBoundary, .flags: return .empty
        case .concat(let items): return concatenation(items.map(info))
        case .alternation(let branches): return alternation(branches.map(info))
        case .repetition(let child, let minimum, let maximum, _, _):
            let piece = info(child)
            if minimum == 0, maximum == 1, case .exact(let set) = piece { return .exact(set.union([[]])) }
            if minimum == 1, maximum == 1 { return piece }
            return minimum == 0 ? .unknown : .contains(piece.required)
        case .look(let child, _, let negative):
            // what a positive look-around sees is in the text, if not in the match
            return negative ? .empty : .contains(info(child).required)
        }
    }

    private static func alternation(_ branches: [PieceInfo]) -> PieceInfo {
        var exact: Set<[UInt16]> = []
        var allExact = true
        for b in branches {
            if case .exact(let set) = b { exact.formUnion(set) } else { allExact = false }
        }
        if allExact, exact.count <= maxStrings { return .exact(exact) }
        var union: Set<[UInt16]> = []
        for b in branches {
            guard let r = b.best else { return .unknown }
            union.formUnion(r)
        }
        return .contains([PieceInfo.minimal(union)])
    }

    private static func concatenation(_ pieces: [PieceInfo]) -> PieceInfo {
        var required: [Set<[UInt16]>] = []
        var run: Set<[UInt16]> = [[]]
        var allExact = true
        for piece in pieces {
            switch piece {
            case .exact(let set):
                var product: Set<[UInt16]> = []
                for a in run { for b in set { product.insert(a + b) } }
                if product.count > maxStrings {
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
}
