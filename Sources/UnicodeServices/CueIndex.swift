/// Groups of literals (the cues of many patterns, see LiteralCues) found in one pass over a
/// text: which groups have a literal in it. A splitter that tries twenty lists of patterns on
/// a line reads the line once, and then asks each pattern's groups by number.
///
/// One-unit literals are looked up by table (ASCII) or list. Longer ones are a trie, entered by
/// the first two units through a table of buckets, so that most text positions cost one
/// lookup, and literals that share a start ("the information in this email", "… message")
/// are read together. Flat arrays: an array of arrays costs a retain and a release at every
/// text position.
public final class CueIndex: Sendable {
    public let groupCount: Int
    /// UInt64 words in a CueHits.
    let words: Int
    /// Literal n's groups, a bit each: `masks[n * words..<(n + 1) * words]`.
    private let masks: [UInt64]
    /// The one-unit literal of each ASCII unit, -1 for none.
    private let singleASCII: [Int32]
    private let singleOther: [UInt16]
    private let singleOtherLiteral: [Int]
    /// The trie below its second level; a node's children are contiguous.
    private let trie: [TrieNode]
    /// The second-level nodes of bucket b (their first two units and their index in `trie`)
    /// are `entries[bucketStart[b]..<bucketStart[b + 1]]`.
    private let bucketStart: [Int32]
    private let entries: [(units: UInt32, node: Int32)]

    private struct TrieNode {
        var unit: UInt16
        /// The literal that ends here, -1 for none.
        var literal: Int32 = -1
        var firstChild: Int32 = 0
        var childCount: Int32 = 0
    }

    private static func bucket(_ a: UInt16, _ b: UInt16) -> Int { Int(a & 0x3F) << 6 | Int(b & 0x3F) }
    private static func bucket(_ pair: UInt32) -> Int { bucket(UInt16(pair >> 16), UInt16(truncatingIfNeeded: pair)) }

    /// `groups[g]`: the literals of group g, case-folded.
    public init(groups: [[[UInt16]]]) {
        groupCount = groups.count
        let words = max(1, (groups.count + 63) / 64)
        self.words = words
        var literalNumber: [[UInt16]: Int] = [:]
        var literals: [[UInt16]] = []
        var masks: [UInt64] = []
        for (g, group) in groups.enumerated() {
            for literal in group where !literal.isEmpty {
                let n = literalNumber[literal] ?? {
                    literals.append(literal)
                    masks += repeatElement(0, count: words)
                    literalNumber[literal] = literals.count - 1
                    return literals.count - 1
                }()
                masks[n * words + g / 64] |= 1 << UInt64(g % 64)
            }
        }
        self.masks = masks
        var singleASCII = [Int32](repeating: -1, count: 128)
        var singleOther: [UInt16] = [], singleOtherLiteral: [Int] = []
        for (n, l) in literals.enumerated() where l.count == 1 {
            if l[0] < 128 {
                singleASCII[Int(l[0])] = Int32(n)
            } else {
                singleOther.append(l[0])
                singleOtherLiteral.append(n)
            }
        }
        self.singleASCII = singleASCII
        self.singleOther = singleOther
        self.singleOtherLiteral = singleOtherLiteral
        // The longer literals in order: a trie node is a run of them sharing its prefix, and its
        // children are the runs that share one more unit, found in order without building a map.
        let sorted = literals.indices.filter { literals[$0].count > 1 }
            .sorted { literals[$0].lexicographicallyPrecedes(literals[$1]) }
        func children(of run: Range<Int>, depth: Int) -> [(unit: UInt16, run: Range<Int>, literal: Int32)] {
            var kids: [(unit: UInt16, run: Range<Int>, literal: Int32)] = []
            var k = run.lowerBound
            while k < run.upperBound, literals[sorted[k]].count == depth { k += 1 }  // ends at this node
            while k < run.upperBound {
                let unit = literals[sorted[k]][depth]
                var end = k + 1
                while end < run.upperBound, literals[sorted[end]][depth] == unit { end += 1 }
                kids.append((unit, k..<end, literals[sorted[k]].count == depth + 1 ? Int32(sorted[k]) : -1))
                k = end
            }
            return kids
        }
        // laid out breadth first from the second level, each node's children together
        var secondLevel: [(units: UInt32, run: Range<Int>, literal: Int32)] = []
        for first in children(of: 0..<sorted.count, depth: 0) {
            for second in children(of: first.run, depth: 1) {
                secondLevel.append((UInt32(first.unit) << 16 | UInt32(second.unit), second.run, second.literal))
            }
        }
        var queue: [(run: Range<Int>, depth: Int)] = secondLevel.map { ($0.run, 2) }
        var head = 0
        var trie = secondLevel.map { TrieNode(unit: UInt16(truncatingIfNeeded: $0.units), literal: $0.literal) }
        while head < queue.count {
            let kids = children(of: queue[head].run, depth: queue[head].depth)
            trie[head].firstChild = Int32(trie.count)
            trie[head].childCount = Int32(kids.count)
            for kid in kids {
                queue.append((kid.run, queue[head].depth + 1))
                trie.append(TrieNode(unit: kid.unit, literal: kid.literal))
            }
            head += 1
        }
        self.trie = trie
        let keyed = secondLevel.indices.sorted { (Self.bucket(secondLevel[$0].units), $0) < (Self.bucket(secondLevel[$1].units), $1) }
        entries = keyed.map { (secondLevel[$0].units, Int32($0)) }
        var start = [Int32](repeating: 0, count: 4097)
        for e in entries { start[Self.bucket(e.units) + 1] += 1 }
        for b in 0..<4096 { start[b + 1] += start[b] }
        bucketStart = start
    }

    /// The groups with a literal in `folded` (case-folded text).
    public func hits(in folded: UnsafeBufferPointer<UInt16>) -> CueHits { hits(units: folded) }

    /// The groups with a literal in ASCII text, as `hits(in:)` finds them in its folded form.
    public func hits(inASCII text: UnsafeRawBufferPointer) -> CueHits { hits(units: text.assumingMemoryBound(to: UInt8.self)) }

    /// ASCII letters are lowercased as they are read (folded text has no capitals).
    private func hits<Unit: FixedWidthInteger & UnsignedInteger>(units text: UnsafeBufferPointer<Unit>) -> CueHits {
        guard groupCount > 0, let t = text.baseAddress else { return CueHits() }
        let n = text.count
        @inline(__always) func unit(_ i: Int) -> UInt16 {
            let c = UInt16(t[i])
            return c &- 0x41 < 26 ? c | 0x20 : c
        }
        let words = self.words
        return withUnsafeTemporaryAllocation(of: UInt64.self, capacity: words) { found in
            found.initialize(repeating: 0)
            masks.withUnsafeBufferPointer { masks in
                singleASCII.withUnsafeBufferPointer { singleASCII in
                    trie.withUnsafeBufferPointer { trie in
                        bucketStart.withUnsafeBufferPointer { bucketStart in
                            entries.withUnsafeBufferPointer { entries in
                                @inline(__always) func add(_ literal: Int32) {
                                    let m = Int(literal) &* words
                                    for w in 0..<words { found[w] |= masks[m &+ w] }
                                }
                                let checkOther = !singleOther.isEmpty
                                var c = n > 0 ? unit(0) : 0
                                for i in 0..<n {
                                    if c < 128 {
                                        let l = singleASCII[Int(c)]
                                        if l >= 0 { add(l) }
                                    } else if checkOther, let k = singleOther.firstIndex(of: c) {
                                        add(Int32(singleOtherLiteral[k]))
                                    }
                                    guard i &+ 1 < n else { break }
                                    let next = unit(i &+ 1)
                                    let b = Self.bucket(c, next)
                                    let first = Int(bucketStart[b]), end = Int(bucketStart[b &+ 1])
                                    let pair = UInt32(c) << 16 | UInt32(next)
                                    c = next
                                    guard first < end else { continue }
                                    var k = first
                                    while k < end, entries[k].units != pair { k &+= 1 }
                                    guard k < end else { continue }
                                    var node = Int(entries[k].node)
                                    var j = i &+ 2
                                    while true {
                                        let here = trie[node]
                                        if here.literal >= 0 { add(here.literal) }
                                        guard j < n, here.childCount > 0 else { break }
                                        let x = unit(j)
                                        var child = Int(here.firstChild)
                                        let last = child &+ Int(here.childCount)
                                        while child < last, trie[child].unit != x { child &+= 1 }
                                        guard child < last else { break }
                                        node = child
                                        j &+= 1
                                    }
                                }
                            }
                        }
                    }
                }
            }
            return CueHits(words: UnsafeBufferPointer(found))
        }
    }
}

/// The groups of a CueIndex found in a text, by number: the first 256 in place (no allocation
/// for a line), any further ones in an array.
public struct CueHits: Sendable {
    private var first = SIMD4<UInt64>()
    private var rest: [UInt64] = []

    init() {}

    init(words: UnsafeBufferPointer<UInt64>) {
        for w in 0..<min(4, words.count) { first[w] = words[w] }
        if words.count > 4 { rest = Array(words[4...]) }
    }

    public func contains(_ group: Int) -> Bool {
        let w = group / 64
        let word = w < 4 ? first[w] : w - 4 < rest.count ? rest[w - 4] : 0
        return word >> UInt64(group % 64) & 1 == 1
    }

    /// Whether every one of `groups` was found.
    public func containsAll(_ groups: [Int]) -> Bool { groups.allSatisfy(contains) }
}

extension CueIndex {
    /// Gathers the groups of many LiteralCues, the same group once.
    public struct Builder {
        public private(set) var groups: [[[UInt16]]] = []
        private var number: [[[UInt16]]: Int] = [:]

        public init() {}

        /// The numbers of the cues' groups in the index to be built.
        public mutating func add(_ cues: LiteralCues) -> [Int] {
            cues.groups.map { group in
                if let n = number[group] { return n }
                groups.append(group)
                number[group] = groups.count - 1
                return groups.count - 1
            }
        }

        public func build() -> CueIndex { CueIndex(groups: groups) }
    }
}
