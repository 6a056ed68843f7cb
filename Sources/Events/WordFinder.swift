import UTF8Text

/// Whether any of a set of words occurs in bytes, ASCII case ignored, in one pass over them:
/// each position is looked up by its first two bytes, so a position no word starts with costs
/// one table read (the text pre-check's 63 booking words once took 63 searches).
struct WordFinder {
    /// By the first two bytes of a word, lowercased: 0, or 1 + its place in `wordsByPair`
    /// (a table read, where a dictionary hashed every common pair such as "re" and "co").
    private var pairSlots = [UInt16](repeating: 0, count: 1 << 16)
    /// Whether a pair starts a word, one bit each: 8 KB, read at every byte, stays in the cache.
    private var pairBits = [UInt64](repeating: 0, count: 1 << 10)
    /// Indices into `words` of the words that start with each pair.
    private var wordsByPair: [[Int]] = []
    private var singles = [Bool](repeating: false, count: 256)
    private let words: [[UInt8]]

    /// `words` as given, lowercased here.
    init(_ words: [[UInt8]]) {
        self.words = words.map { $0.map(ASCII.lowercased) }.filter { !$0.isEmpty }
        for (k, w) in self.words.enumerated() {
            if w.count == 1 {
                singles[Int(w[0])] = true
            } else {
                let key = Int(w[0]) << 8 | Int(w[1])
                pairBits[key >> 6] |= 1 << (key & 63)
                if pairSlots[key] == 0 {
                    wordsByPair.append([])
                    pairSlots[key] = UInt16(wordsByPair.count)
                }
                wordsByPair[Int(pairSlots[key]) - 1].append(k)
            }
        }
    }

    /// Whether a word starts in `range` of `b` (and `accept` takes the bytes it covers).
    func occurs(in b: UnsafeBufferPointer<UInt8>, _ range: Range<Int>, accept: (Range<Int>) -> Bool = { _ in true }) -> Bool {
        var i = range.lowerBound
        while i < range.upperBound {
            let c = ASCII.lowercased(b[i])
            if singles[Int(c)], accept(i..<i + 1) { return true }
            if i + 1 < b.count {
                let key = Int(c) << 8 | Int(ASCII.lowercased(b[i + 1]))
                if pairBits[key >> 6] & (1 << (key & 63)) != 0 {
                    for k in wordsByPair[Int(pairSlots[key]) - 1] where matches(words[k], b, at: i) && accept(i..<i + words[k].count) { return true }
                }
            }
            i += 1
        }
        return false
    }

    private func matches(_ word: [UInt8], _ b: UnsafeBufferPointer<UInt8>, at i: Int) -> Bool {
        guard word.count <= b.count - i else { return false }
        for (k, c) in word.enumerated() where ASCII.lowercased(b[i + k]) != c { return false }
        return true
    }
}
