/// Strings one of which is in every text an ICU regular expression matches, read off the
/// pattern (the prefilter idea of RE2 and codesearch): a search for them is far cheaper than
/// the match, and a text without any of them cannot match. Kept case-folded, so they serve
/// case-insensitive patterns: compare with `CaseFolding.folded` text.
public struct LiteralCues: Sendable, Equatable {
    /// Each group's literals, folded: a text must hold one literal of every group.
    public let groups: [[[UInt16]]]

    /// nil when the pattern gives no such strings (e.g. `\d+\s\w+`) or uses syntax not read here:
    /// then every text may match.
    public init?(pattern: String) {
        guard let tree = try? RegexNode.parse(pattern) else { return nil }
        self.init(CueAnalysis.info(tree))
    }

    /// The cues of each pattern and of their alternation, `(?:(?:a)|(?:b)|…)`, each pattern
    /// read once.
    public static func ofAlternatives(_ patterns: [String]) -> (each: [LiteralCues?], whole: LiteralCues?) {
        let infos = patterns.map { (try? RegexNode.parse($0)).map(CueAnalysis.info) }
        let each = infos.map { $0.flatMap(LiteralCues.init) }
        let read = infos.compactMap { $0 }
        guard read.count == patterns.count, let first = read.first else { return (each, nil) }
        return (each, LiteralCues(read.count == 1 ? first : CueAnalysis.alternation(read)))
    }

    /// Cues read before (`groups` as they were): nil when there are none.
    public init?(groups: [[[UInt16]]]) {
        guard !groups.isEmpty else { return nil }
        self.groups = groups
    }

    private init?(_ info: PieceInfo) {
        // the most telling first: the longest shortest string, then the fewest strings
        let sets = info.required.sorted { PieceInfo.score($0) > PieceInfo.score($1) }.prefix(3)
        guard !sets.isEmpty else { return nil }
        groups = sets.map { $0.sorted { $0.lexicographicallyPrecedes($1) } }
    }

    /// Whether `folded` (case-folded text) holds a literal of every group. For one text: many
    /// texts, or many patterns, are read through a CueIndex of their groups (built here each call).
    public func mayMatch(folded text: [UInt16]) -> Bool {
        let hits = text.withUnsafeBufferPointer(CueIndex(groups: groups).hits)
        return groups.indices.allSatisfy(hits.contains)
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
        guard set.count > 1 else { return set }
        return set.filter { s in !set.contains { t in t != s && t.count < s.count && contains(s, t) } }
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
            for c in scalars { units.append(contentsOf: c.utf16) }
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

    static func alternation(_ branches: [PieceInfo]) -> PieceInfo {
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
