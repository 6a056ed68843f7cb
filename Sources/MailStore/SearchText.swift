/// Text as the search index reads it. FTS5's unicode61 tokenizer splits words at spaces and
/// punctuation, which Chinese and Japanese do not write: 請於3/25前取件 would be one word, and
/// 取件 would not find it. So every run of Han, kana and Hangul is written as each character
/// and each overlapping pair (前 前取 取 取件 件), as Xapian (notmuch) and Lucene's CJK analyser
/// index these scripts: a word of any length is then the phrase of its own characters and pairs,
/// found wherever it stands. ICU's dictionary word breaks were the other choice; they split a
/// word differently in different contexts (a query alone, the same letters inside a sentence),
/// so a word could miss itself. The trigram tokenizer cannot find words of two characters,
/// which most Chinese words are.
enum SearchText {
    static func isIdeographic(_ s: Unicode.Scalar) -> Bool {
        switch s.value {
        case 0x3040...0x30FF,  // hiragana, katakana
             0x3400...0x4DBF, 0x4E00...0x9FFF, 0xF900...0xFAFF,  // Han
             0x20000...0x2FA1F,
             0x31F0...0x31FF, 0xFF66...0xFF9D,  // katakana extensions, half-width
             0xAC00...0xD7AF, 0x1100...0x11FF, 0x3130...0x318F:  // Hangul
            true
        default:
            false
        }
    }

    /// `text` with each ideographic run written as its characters and pairs, apart from the
    /// words around it. Most mail has no such run: its text comes back as it is.
    static func indexed(_ text: String) -> String {
        // every scalar the runs are made of is U+1100 or above: three or four UTF-8 bytes whose
        // first is 0xE1 or above
        guard text.utf8.contains(where: { $0 >= 0xE1 }) else { return text }
        var text = text
        return text.withUTF8 { b in
            // each character of a run becomes at most four times its bytes (" 前取 取"), and a
            // space ends a run: written in place, not appended a piece at a time
            let out = [UInt8](unsafeUninitializedCapacity: 4 * b.count + 1) { buffer, written in
                var n = 0
                func put(_ bytes: UnsafeBufferPointer<UInt8>) {
                    UnsafeMutableRawPointer(buffer.baseAddress! + n).copyMemory(from: bytes.baseAddress!, byteCount: bytes.count)
                    n += bytes.count
                }
                func space() {
                    buffer[n] = 0x20
                    n += 1
                }
                var previous: Range<Int>?  // the run's last character, while in a run
                var i = 0
                while i < b.count {
                    guard b[i] >= 0xE1 else {
                        // bytes below 0xE1 start no ideographic character (nor continue one): copied as they are
                        var j = i + 1
                        while j < b.count, b[j] < 0xE1 { j += 1 }
                        if previous != nil { space() }
                        previous = nil
                        put(UnsafeBufferPointer(rebasing: b[i..<j]))
                        i = j
                        continue
                    }
                    let end = min(i + (b[i] >= 0xF0 ? 4 : 3), b.count)
                    let character = UnsafeBufferPointer(rebasing: b[i..<end])
                    guard let s = scalar(character), isIdeographic(s) else {
                        if previous != nil { space() }
                        previous = nil
                        put(character)
                        i = end
                        continue
                    }
                    if let p = previous {
                        space()
                        put(UnsafeBufferPointer(rebasing: b[p]))
                        put(character)
                    }
                    space()
                    put(character)
                    previous = i..<end
                    i = end
                }
                if previous != nil { space() }
                written = n
            }
            return String(decoding: out, as: UTF8.self)
        }
    }

    /// The scalar of a UTF-8 sequence of three or four bytes.
    private static func scalar(_ c: UnsafeBufferPointer<UInt8>) -> Unicode.Scalar? {
        var v = UInt32(c[0] & (c.count == 4 ? 0x07 : 0x0F))
        for b in c.dropFirst() { v = v << 6 | UInt32(b & 0x3F) }
        return Unicode.Scalar(v)
    }

    static func containsIdeographic(_ text: String) -> Bool { text.unicodeScalars.contains(where: isIdeographic) }

    /// The words of `seen` (the text a reader sees of a message's HTML alternative) that
    /// `plain` (the body text indexed) lacks, each once, in the order they first appear, a space
    /// between them: what the HTML adds. Words alone, not the lines they are in: the HTML of a
    /// newsletter says most words many times, and a line with one new word would index the
    /// others again (issue 47: the load's cost). Words are compared as runs of letters and
    /// digits, ASCII ones in any case; a word told apart wrongly is only indexed twice. At most
    /// `maxBytes`.
    static func wordsAdding(_ seen: [UInt8], to plain: String, maxBytes: Int = 1 << 20) -> String {
        var known = WordHashes()
        var plain = plain
        plain.withUTF8 { forEachWord(in: $0) { hash, _ in known.insert(hash) } }
        var out: [UInt8] = []
        seen.withUnsafeBufferPointer { all in
            forEachWord(in: all) { hash, word in
                guard out.count + word.count < maxBytes, known.insert(hash) else { return }
                if !out.isEmpty { out.append(0x20) }
                out.append(contentsOf: UnsafeBufferPointer(rebasing: all[word]))
            }
        }
        return String(decoding: out, as: UTF8.self)
    }

    /// A set of word hashes, kept by the hash itself (a `Set` would hash each again): open
    /// addressing, at most half full.
    struct WordHashes {
        private var slots = [UInt64](repeating: 0, count: 256)  // 0: empty
        private var count = 0

        /// Whether `hash` was not in the set before.
        @discardableResult
        mutating func insert(_ hash: UInt64) -> Bool {
            let h = hash == 0 ? 1 : hash
            if 2 * (count + 1) > slots.count { grow() }
            let mask = slots.count - 1
            var i = Int(truncatingIfNeeded: h ^ (h >> 32)) & mask
            while slots[i] != 0 {
                if slots[i] == h { return false }
                i = (i + 1) & mask
            }
            slots[i] = h
            count += 1
            return true
        }

        private mutating func grow() {
            let old = slots
            slots = [UInt64](repeating: 0, count: old.count * 2)
            count = 0
            for h in old where h != 0 { insert(h) }
        }
    }

    /// Calls `body` with a hash of each word of `text` (FNV-1a of its bytes, ASCII lowercased)
    /// and where it is.
    /// Outside ASCII a character is part of a word unless it is in a block of punctuation,
    /// symbols and spaces (U+0080–U+00BF, U+2000–U+2BFF, U+3000–U+303F, U+FE30–U+FE4F,
    /// U+FF00–U+FF0F, U+FEFF): a guess that errs on the side of words.
    private static func forEachWord(in text: UnsafeBufferPointer<UInt8>, _ body: (UInt64, Range<Int>) -> Void) {
        let basis: UInt64 = 0xCBF2_9CE4_8422_2325, prime: UInt64 = 0x100_0000_01B3
        var hash = basis, start = -1, i = 0
        asciiWordBytes.withUnsafeBufferPointer { ascii in
            while i < text.count {
                let b = text[i]
                if b < 0x80 {  // most text: a letter or digit (lowercased) or not
                    let c = ascii[Int(b)]
                    if c != 0 {
                        hash = (hash ^ UInt64(c)) &* prime
                        if start < 0 { start = i }
                    } else if start >= 0 {
                        body(hash, start..<i)
                        hash = basis
                        start = -1
                    }
                    i += 1
                    continue
                }
                let length = min(b >= 0xF0 ? 4 : b >= 0xE0 ? 3 : b >= 0xC0 ? 2 : 1, text.count - i)
                var v = UInt32(b & (length == 4 ? 0x07 : length == 3 ? 0x0F : 0x1F))
                for k in (i + 1)..<(i + length) { v = v << 6 | UInt32(text[k] & 0x3F) }
                let isWord: Bool
                switch v {
                case 0x80...0xBF, 0x2000...0x2BFF, 0x3000...0x303F, 0xFE30...0xFE4F, 0xFF00...0xFF0F, 0xFEFF: isWord = false
                default: isWord = length > 1
                }
                if isWord {
                    for k in i..<(i + length) { hash = (hash ^ UInt64(text[k])) &* prime }
                    if start < 0 { start = i }
                } else if start >= 0 {
                    body(hash, start..<i)
                    hash = basis
                    start = -1
                }
                i += length
            }
        }
        if start >= 0 { body(hash, start..<text.count) }
    }

    /// For each ASCII byte: the byte in lowercase when it is a letter or digit, else 0.
    private static let asciiWordBytes: [UInt8] = (0..<128).map { (b: UInt8) -> UInt8 in
        switch b {
        case 0x30...0x39, 0x61...0x7A: b
        case 0x41...0x5A: b | 0x20
        default: 0
        }
    }
}
