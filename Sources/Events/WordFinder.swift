import UTF8Text

/// Whether any of a set of words occurs in bytes, ASCII case ignored, in one pass over them:
/// each position is looked up by its first two bytes, so a position no word starts with costs
/// one table read (the text pre-check's 63 booking words once took 63 searches).
struct WordFinder {
    /// Indices into `words` by their first two bytes, lowercased; one-byte words by that byte.
    private var byPair: [UInt16: [Int]] = [:]
    private var pairs = [Bool](repeating: false, count: 1 << 16)
    private var singles = [Bool](repeating: false, count: 256)
    private let words: [[UInt8]]

    /// `words` as given, lowercased here.
    init(_ words: [[UInt8]]) {
        self.words = words.map { $0.map(ASCII.lowercased) }.filter { !$0.isEmpty }
        for (k, w) in self.words.enumerated() {
            if w.count == 1 {
                singles[Int(w[0])] = true
            } else {
                let key = UInt16(w[0]) << 8 | UInt16(w[1])
                pairs[Int(key)] = true
                byPair[key, default: []].append(k)
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
                let key = UInt16(c) << 8 | UInt16(ASCII.lowercased(b[i + 1]))
                if pairs[Int(key)] {
                    for k in byPair[key]! where matches(words[k], b, at: i) && accept(i..<i + words[k].count) { return true }
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
