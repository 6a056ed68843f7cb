/// ICU's answers for a case-insensitive pattern (does it match all of a text, a start of it,
/// where is its first match) for the common subset of its syntax, without ICU: a backtracking
/// matcher over case-folded UTF-16. Literals are compared as folded units, with no folding at match time,
/// and an alternation tries only the branches that can start with the next unit. Patterns
/// outside the subset (look-behind, back references, possessive or counted groups, flags,
/// properties other than `\p{L}`, ranges of cased letters…) get nil from init: use ICU.
///
/// The text must be `CaseFolding.folded` and be read one scalar per unit, which
/// `FoldedMatcher.canRead(original:folded:)` checks: no surrogates, and folding changed no
/// length (`ß` → `ss` would shift what `.{0,40}` and `\b` see).
public final class FoldedMatcher {
    private enum Op {
        case end  // the end of the pattern: the end of the text too, for a whole match
        case accept  // the end of a look-ahead
        case literal(start: Int, count: Int)
        case set(Int)
        case any
        case startOfText
        case wordBoundary(Bool)
        case alternation(start: Int, count: Int)
        /// `follow`: the units what comes after can start with (an index into `unitSets`), -1
        /// when anything can; positions where it cannot are not tried.
        case repeatOne(matcher: Int, min: Int, max: Int, lazy: Bool, follow: Int)
        case look(child: Int, negative: Bool)
    }

    private struct Node {
        var op: Op
        var next: Int
    }

    private var nodes: [Node] = [Node(op: .end, next: -1), Node(op: .accept, next: -1)]
    private var units: [UInt16] = []
    private var sets: [FoldedSet] = []
    /// Alternation branches: their first node, and the unit they must start with (-1: any).
    private var branches: [Int] = []
    private var branchFirstUnit: [Int] = []
    private var entry = 0
    private var unitSets: [UnitSet] = []
    /// The ASCII part of each of unitSets, apart: reading a UnitSet would retain its array.
    private var followLow: [UInt64] = [], followHigh: [UInt64] = []

    /// A few units, ASCII by bitmap.
    private struct UnitSet {
        var low: UInt64 = 0, high: UInt64 = 0
        var other: [UInt16] = []

        mutating func insert(_ u: UInt16) {
            if u < 64 { low |= 1 << UInt64(u) } else if u < 128 { high |= 1 << UInt64(u - 64) } else if !other.contains(u) { other.append(u) }
        }
    }

    private struct Unsupported: Error {}

    public init?(pattern: String) {
        guard let tree = try? RegexNode.parse(pattern), let start = try? compile(tree, next: 0) else { return nil }
        entry = start
    }

    public static func canRead(original: [UInt16], folded: [UInt16]) -> Bool {
        original.count == folded.count && !folded.contains { $0 & 0xF800 == 0xD800 }
    }

    /// Whether the pattern matches all of `folded`.
    public func matchesWhole(_ folded: [UInt16]) -> Bool {
        folded.withUnsafeBufferPointer { run(entry, 0, $0, whole: true) }
    }

    /// Whether the pattern matches a start of `folded`.
    public func matchesStart(_ folded: [UInt16]) -> Bool {
        folded.withUnsafeBufferPointer { run(entry, 0, $0, whole: false) }
    }

    /// The first match at or after `from`, as ICU finds it (the leftmost start, and the end its
    /// order of trying gives: greedy repetitions longest first, alternatives left to right).
    public func firstMatch(in folded: [UInt16], from: Int = 0) -> Range<Int>? {
        folded.withUnsafeBufferPointer { t in
            var start = from
            while start <= t.count {
                if run(entry, start, t, whole: false) { return start..<matchEnd }
                start += 1
            }
            return nil
        }
    }

    /// Where the last successful `run` ended (one matcher per thread, as for ICU's).
    private var matchEnd = 0

    // MARK: compiling, from the last piece to the first: each node knows what follows it

    private func add(_ op: Op, next: Int) -> Int {
        nodes.append(Node(op: op, next: next))
        return nodes.count - 1
    }

    private func compile(_ node: RegexNode, next: Int) throws(Unsupported) -> Int {
        switch node {
        case .literal(let scalars):
            let folded = try Self.folded(scalars)
            guard !folded.isEmpty else { return next }
            units += folded
            return add(.literal(start: units.count - folded.count, count: folded.count), next: next)
        case .set(let set?):
            guard let folded = FoldedSet(set) else { throw Unsupported() }
            sets.append(folded)
            return add(.set(sets.count - 1), next: next)
        case .any: return add(.any, next: next)
        case .startOfText: return add(.startOfText, next: next)
        case .wordBoundary(let on): return add(.wordBoundary(on), next: next)
        case .set(nil), .opaque, .opaqueAnchor, .flags: throw Unsupported()
        case .concat(let items):
            var n = next
            for item in items.reversed() { n = try compile(item, next: n) }
            return n
        case .alternation(let options):
            let entries = try options.map { (o) throws(Unsupported) in try compile(o, next: next) }
            return alternation(entries, next: next)
        case .repetition(let child, let minimum, let maximum, let lazy, let possessive):
            guard !possessive else { throw Unsupported() }
            if isOneCharacter(child) {
                let matcher = try compile(child, next: -1)
                var follow = -1
                if let units = firstUnits(next) {
                    unitSets.append(units)
                    followLow.append(units.low)
                    followHigh.append(units.high)
                    follow = unitSets.count - 1
                }
                return add(.repeatOne(matcher: matcher, min: minimum, max: maximum ?? Int.max, lazy: lazy, follow: follow), next: next)
            }
            if minimum == 1, maximum == 1 { return try compile(child, next: next) }
            guard minimum == 0, maximum == 1 else { throw Unsupported() }
            let once = try compile(child, next: next)
            return alternation(lazy ? [next, once] : [once, next], next: next)
        case .look(let child, let behind, let negative):
            guard !behind else { throw Unsupported() }
            return add(.look(child: try compile(child, next: 1), negative: negative), next: next)
        }
    }

    private func alternation(_ entries: [Int], next: Int) -> Int {
        let start = branches.count
        for e in entries {
            branches.append(e)
            if e >= 0, case .literal(let s, _) = nodes[e].op { branchFirstUnit.append(Int(units[s])) } else { branchFirstUnit.append(-1) }
        }
        return add(.alternation(start: start, count: entries.count), next: next)
    }

    /// The units a match from node `n` can start with; nil when it can start with anything or
    /// match nothing at all.
    private func firstUnits(_ n: Int) -> UnitSet? {
        guard n >= 0 else { return nil }
        switch nodes[n].op {
        case .literal(let s, _):
            var set = UnitSet()
            set.insert(units[s])
            return set
        case .wordBoundary, .startOfText, .look: return firstUnits(nodes[n].next)
        case .alternation(let s, let count):
            var set = UnitSet()
            for k in s..<(s + count) {
                guard let b = firstUnits(branches[k]) else { return nil }
                set.low |= b.low
                set.high |= b.high
                for u in b.other { set.insert(u) }
            }
            return set
        default: return nil
        }
    }

    private func isOneCharacter(_ node: RegexNode) -> Bool {
        switch node {
        case .literal(let scalars): scalars.count == 1 && (try? Self.folded(scalars))?.count == 1
        case .set(_?), .any: true
        default: false
        }
    }

    private static func folded(_ scalars: [Unicode.Scalar]) throws(Unsupported) -> [UInt16] {
        var u: [UInt16] = []
        for c in scalars { u += String(c).utf16 }
        let f = CaseFolding.folded(u)
        guard !f.contains(where: { $0 & 0xF800 == 0xD800 }) else { throw Unsupported() }
        return f
    }

    // MARK: matching

    private func run(_ start: Int, _ position: Int, _ t: UnsafeBufferPointer<UInt16>, whole: Bool) -> Bool {
        var n = start, i = position
        while true {
            let node = nodes[n]
            switch node.op {
            case .end:
                guard !whole || i == t.count else { return false }
                matchEnd = i
                return true
            case .accept: return true
            case .literal(let s, let count):
                guard count <= t.count - i else { return false }
                for k in 0..<count where units[s + k] != t[i + k] { return false }
                i += count
            case .set, .any:
                guard matchesOne(n, t, i) else { return false }
                i += 1
            case .startOfText:
                guard i == 0 else { return false }
            case .wordBoundary(let on):
                guard Self.isWordBoundary(t, i) == on else { return false }
            case .alternation(let s, let count):
                for k in s..<(s + count) {
                    let first = branchFirstUnit[k]
                    if first >= 0, i >= t.count || Int(t[i]) != first { continue }
                    if run(branches[k], i, t, whole: whole) { return true }
                }
                return false
            case .repeatOne(let matcher, let minimum, let maximum, let lazy, let follow):
                var j = 0
                if lazy {
                    while j < minimum {
                        guard matchesOne(matcher, t, i + j) else { return false }
                        j += 1
                    }
                    while true {
                        if mayFollow(follow, t, i + j), run(node.next, i + j, t, whole: whole) { return true }
                        guard j < maximum, matchesOne(matcher, t, i + j) else { return false }
                        j += 1
                    }
                } else {
                    while j < maximum, matchesOne(matcher, t, i + j) { j += 1 }
                    guard j >= minimum else { return false }
                    while true {
                        if mayFollow(follow, t, i + j), run(node.next, i + j, t, whole: whole) { return true }
                        guard j > minimum else { return false }
                        j -= 1
                    }
                }
            case .look(let child, let negative):
                guard run(child, i, t, whole: false) != negative else { return false }
            }
            n = node.next
        }
    }

    /// Whether what follows a repetition (its `follow` set) can start at `p`: a cheap look
    /// before trying it.
    @inline(__always) private func mayFollow(_ follow: Int, _ t: UnsafeBufferPointer<UInt16>, _ p: Int) -> Bool {
        guard follow >= 0 else { return true }
        guard p < t.count else { return false }
        let u = t[p]
        if u < 64 { return (followLow[follow] >> UInt64(u)) & 1 == 1 }
        if u < 128 { return (followHigh[follow] >> UInt64(u - 64)) & 1 == 1 }
        return unitSets[follow].other.contains(u)
    }

    /// Whether the one-character node `n` matches the unit at `i`.
    private func matchesOne(_ n: Int, _ t: UnsafeBufferPointer<UInt16>, _ i: Int) -> Bool {
        guard i < t.count else { return false }
        let c = t[i]
        switch nodes[n].op {
        case .literal(let s, _): return units[s] == c
        case .set(let k): return sets[k].contains(c)
        case .any: return !((c >= 0x0A && c <= 0x0D) || c == 0x85 || c == 0x2028 || c == 0x2029)
        default: return false
        }
    }

    /// ICU's `\b`: a word character on one side and not on the other, combining marks and
    /// format characters skipped.
    private static func isWordBoundary(_ t: UnsafeBufferPointer<UInt16>, _ i: Int) -> Bool {
        var here = false
        if i < t.count {
            if FoldedSet.isExtendOrFormat(t[i]) { return false }
            here = FoldedSet.isWord(t[i])
        }
        var j = i
        while j > 0 {
            j -= 1
            if !FoldedSet.isExtendOrFormat(t[j]) { return here != FoldedSet.isWord(t[j]) }
        }
        return here
    }
}

/// A set of characters as it applies to folded text: ASCII by bitmap, the rest by property.
private struct FoldedSet {
    private var low: UInt64 = 0, high: UInt64 = 0  // ASCII members
    private let items: [CharacterSet.Item]
    private let negated: Bool

    init?(_ set: CharacterSet) {
        negated = set.negated
        var items: [CharacterSet.Item] = []
        for item in set.items {
            switch item {
            case .scalar(let c):
                // a member that folds to another character stands for that one
                let f = CaseFolding.folded(Array(String(c).utf16))
                guard f.count == 1, let s = Unicode.Scalar(f[0]) else { return nil }
                items.append(.scalar(s))
            case .range(let a, let b):
                guard a.value <= b.value, b.value - a.value < 0x10000,
                      (a.value...b.value).allSatisfy({ Unicode.Scalar($0).map { !$0.properties.changesWhenCaseFolded } ?? true })
                else { return nil }
                items.append(item)
            default: items.append(item)
            }
        }
        self.items = items
        for c in 0..<128 where Self.inItems(items, Unicode.Scalar(UInt8(c))) {
            if c < 64 { low |= 1 << UInt64(c) } else { high |= 1 << UInt64(c - 64) }
        }
    }

    func contains(_ u: UInt16) -> Bool {
        if u < 64 { return (low >> UInt64(u)) & 1 == 1 ? !negated : negated }
        if u < 128 { return (high >> UInt64(u - 64)) & 1 == 1 ? !negated : negated }
        guard let c = Unicode.Scalar(u) else { return negated }
        return Self.inItems(items, c) != negated
    }

    private static func inItems(_ items: [CharacterSet.Item], _ c: Unicode.Scalar) -> Bool {
        items.contains { item in
            switch item {
            case .scalar(let s): s == c
            case .range(let a, let b): c.value >= a.value && c.value <= b.value
            case .space: c.properties.isWhitespace
            case .notSpace: !c.properties.isWhitespace
            case .digit: c.properties.generalCategory == .decimalNumber
            case .notDigit: c.properties.generalCategory != .decimalNumber
            case .word: isWord(c)
            case .notWord: !isWord(c)
            case .letter: isLetter(c)
            case .notLetter: !isLetter(c)
            }
        }
    }

    private static func isLetter(_ c: Unicode.Scalar) -> Bool {
        switch c.properties.generalCategory {
        case .uppercaseLetter, .lowercaseLetter, .titlecaseLetter, .modifierLetter, .otherLetter: true
        default: false
        }
    }

    /// ICU's word characters: `[\p{Alphabetic}\p{M}\p{Nd}\p{Pc}\u200c\u200d]`.
    static func isWord(_ c: Unicode.Scalar) -> Bool {
        if c.value < 128 {
            let b = UInt8(c.value)
            return (b >= 0x30 && b <= 0x39) || (b >= 0x41 && b <= 0x5A) || (b >= 0x61 && b <= 0x7A) || b == 0x5F
        }
        if c.value == 0x200C || c.value == 0x200D || c.properties.isAlphabetic { return true }
        switch c.properties.generalCategory {
        case .nonspacingMark, .spacingMark, .enclosingMark, .decimalNumber, .connectorPunctuation: return true
        default: return false
        }
    }

    static func isWord(_ u: UInt16) -> Bool { Unicode.Scalar(u).map(isWord) ?? false }

    static func isExtendOrFormat(_ u: UInt16) -> Bool {
        guard u >= 0x80, let c = Unicode.Scalar(u) else { return false }
        return c.properties.isGraphemeExtend || c.properties.generalCategory == .format
    }
}
