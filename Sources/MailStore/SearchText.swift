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
}
