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
        var out: [UInt8] = []
        out.reserveCapacity(text.utf8.count * 2)
        var previous: Unicode.Scalar?  // the run's last character, while in a run
        for s in text.unicodeScalars {
            guard isIdeographic(s) else {
                if previous != nil { out.append(0x20) }
                previous = nil
                out.append(contentsOf: UTF8.encode(s)!)
                continue
            }
            if let p = previous {
                out.append(0x20)
                out.append(contentsOf: UTF8.encode(p)!)
                out.append(contentsOf: UTF8.encode(s)!)
            }
            out.append(0x20)
            out.append(contentsOf: UTF8.encode(s)!)
            previous = s
        }
        if previous != nil { out.append(0x20) }
        return String(decoding: out, as: UTF8.self)
    }

    static func containsIdeographic(_ text: String) -> Bool { text.unicodeScalars.contains(where: isIdeographic) }

    /// The lines of `seen` (the text a reader sees of a message's HTML alternative) that hold a
    /// word `plain` (the body text indexed) lacks, LF between them: what the HTML adds. Whole
    /// lines, so that a phrase of the HTML is found; lines that say what the plain part says
    /// (most of a message whose two alternatives agree) are left out. Words are compared as
    /// runs of letters and digits, ASCII ones in any case: a word told apart wrongly only keeps
    /// a line that did not need keeping. At most `maxBytes`.
    static func linesAdding(_ seen: [UInt8], to plain: String, maxBytes: Int = 1 << 20) -> String {
        var known = Set<UInt64>()
        var plain = plain
        plain.withUTF8 { forEachWord(in: $0) { known.insert($0) } }
        var out: [UInt8] = []
        seen.withUnsafeBufferPointer { all in
            var start = 0
            while start < all.count, out.count < maxBytes {
                let end = all[start...].firstIndex(of: 0x0A) ?? all.count
                let line = UnsafeBufferPointer(rebasing: all[start..<end])
                var adds = false
                forEachWord(in: line) { if !adds && !known.contains($0) { adds = true } }
                if adds {
                    if !out.isEmpty { out.append(0x0A) }
                    out += line.prefix(maxBytes - out.count)
                }
                start = end + 1
            }
        }
        return String(decoding: out, as: UTF8.self)
    }

    /// Calls `body` with a hash of each word of `text` (FNV-1a of its bytes, ASCII lowercased).
    private static func forEachWord(in text: UnsafeBufferPointer<UInt8>, _ body: (UInt64) -> Void) {
        let basis: UInt64 = 0xCBF2_9CE4_8422_2325, prime: UInt64 = 0x100_0000_01B3
        var hash = basis, inWord = false, i = 0
        while i < text.count {
            let b = text[i]
            var length = 1
            let isWordByte: Bool
            if b < 0x80 {
                isWordByte = b &- 0x30 < 10 || (b | 0x20) &- 0x61 < 26
            } else {
                // a letter or digit of another script (or a mark on one) is part of a word
                length = b >= 0xF0 ? 4 : b >= 0xE0 ? 3 : b >= 0xC0 ? 2 : 1
                length = min(length, text.count - i)
                var decoder = UTF8()
                var bytes = text[i..<(i + length)].makeIterator()
                if case .scalarValue(let s) = decoder.decode(&bytes) {
                    let p = s.properties
                    isWordByte = p.isAlphabetic || p.numericType != nil || p.generalCategory == .nonspacingMark
                } else {
                    isWordByte = false
                }
            }
            if isWordByte {
                for k in i..<(i + length) {
                    let c = text[k]
                    hash = (hash ^ UInt64(c &- 0x41 < 26 ? c | 0x20 : c)) &* prime
                }
                inWord = true
            } else if inWord {
                body(hash)
                hash = basis
                inWord = false
            }
            i += length
        }
        if inWord { body(hash) }
    }
}
