import MailParse
import UTF8Text

/// Header fields as RFC 5322 and RFC 2047 want them written: text that is not plain ASCII in
/// encoded words (UTF-8; Q for mostly-ASCII text, B otherwise), each at most 75 characters and
/// never splitting a character, and lines folded at 78 columns.
enum HeaderWriting {
    static let lineLimit = 78

    /// One piece of a header value: a word written as it is, or an encoded word; `space` says
    /// whether folding white space may stand before it.
    struct Atom {
        var text: String
        var space: Bool
    }

    /// `Name: value` with an unstructured value (Subject, Comments), folded.
    static func unstructured(_ name: String, _ value: String) -> String {
        fold(name, atoms(ofText: value))
    }

    /// `Name: a, b` with an address list, folded between and inside addresses.
    static func addresses(_ name: String, _ mailboxes: [Mailbox]) -> String {
        var all: [Atom] = []
        for (i, m) in mailboxes.enumerated() {
            var atoms = atoms(of: m)
            if i > 0, !atoms.isEmpty { atoms[0].space = true }
            if i < mailboxes.count - 1, !atoms.isEmpty { atoms[atoms.count - 1].text += "," }
            all += atoms
        }
        return fold(name, all)
    }

    /// `Name: <id1> <id2>`: message ids, one atom each.
    static func messageIDs(_ name: String, _ ids: [String]) -> String {
        fold(name, ids.enumerated().map { Atom(text: "<\($0.element)>", space: $0.offset > 0) })
    }

    /// The atoms of a mailbox: its display name (an atom phrase, a quoted string or encoded
    /// words) then `<address>`; the bare address when it has no name.
    static func atoms(of m: Mailbox) -> [Atom] {
        let name = m.name.trimmingSpaces
        guard !name.isEmpty else { return [Atom(text: m.address, space: false)] }
        var result: [Atom]
        if name.utf8.allSatisfy({ $0 >= 0x20 && $0 < 0x7F }) && !name.contains("=?") {
            if name.utf8.allSatisfy(isPhraseByte) {
                result = name.split(separator: " ").enumerated().map { Atom(text: String($0.element), space: $0.offset > 0) }
            } else {
                result = [Atom(text: quoted(name), space: false)]
            }
        } else {
            result = encodedWords(name, phrase: true)
        }
        result.append(Atom(text: "<\(m.address)>", space: true))
        return result
    }

    /// A name as an RFC 5322 quoted string.
    static func quoted(_ s: String) -> String {
        var out = "\""
        for c in s {
            if c == "\"" || c == "\\" { out.append("\\") }
            out.append(c)
        }
        return out + "\""
    }

    /// atext and the space between words: a display name made of these needs no quotes.
    private static func isPhraseByte(_ b: UInt8) -> Bool {
        switch b {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "0")...UInt8(ascii: "9"): true
        default: Array(" !#$%&'*+-/=?^_`{|}~".utf8).contains(b)
        }
    }

    /// The atoms of unstructured text: runs of plain words as they are, runs of words that need
    /// encoding (with the spaces between them) as encoded words.
    static func atoms(ofText text: String) -> [Atom] {
        let words = text.split(separator: " ", omittingEmptySubsequences: false).map(String.init)
        var result: [Atom] = []
        var pending: [String] = []
        var extraSpaces = 0  // the spaces of a run past its first, written before the word after them
        func flush() {
            guard !pending.isEmpty else { return }
            var encoded = encodedWords(pending.joined(separator: " "), phrase: false)
            if !result.isEmpty, !encoded.isEmpty { encoded[0].space = true }
            result += encoded
            pending = []
        }
        for word in words {
            if needsEncoding(word) || (!pending.isEmpty && word.isEmpty) {
                // an empty word stands for a second space in a row: kept inside the encoded run
                if pending.isEmpty { pending = Array(repeating: "", count: extraSpaces) }
                extraSpaces = 0
                pending.append(word)
            } else {
                flush()
                if word.isEmpty {
                    if !result.isEmpty { extraSpaces += 1 }
                    continue
                }
                result.append(Atom(text: String(repeating: " ", count: extraSpaces) + word, space: !result.isEmpty))
                extraSpaces = 0
            }
        }
        flush()
        return result
    }

    static func needsEncoding(_ word: String) -> Bool {
        word.contains("=?") || word.utf8.contains { $0 < 0x20 || $0 >= 0x7F }
    }

    /// `text` as encoded words of at most 75 characters, cut between characters (grapheme
    /// clusters, so that no accent is parted from its letter). In a phrase (a display name) Q
    /// encoding may hold fewer characters as they are (RFC 2047 section 5 (3)).
    static func encodedWords(_ text: String, phrase: Bool) -> [Atom] {
        let bytes = Array(text.utf8)
        let nonASCII = bytes.filter { $0 >= 0x80 }.count
        let useQ = nonASCII * 3 < bytes.count
        let prefix = useQ ? "=?UTF-8?Q?" : "=?UTF-8?B?"
        let room = 75 - prefix.count - 2
        var atoms: [Atom] = []
        var chunk: [UInt8] = []
        func encoded(_ b: [UInt8]) -> String { useQ ? qEncode(b, phrase: phrase) : Base64.encode(b) }
        func emit(_ bytes: [UInt8]) { atoms.append(Atom(text: prefix + encoded(bytes) + "?=", space: !atoms.isEmpty)) }
        for character in text {
            let piece = Array(String(character).utf8)
            if !chunk.isEmpty && encoded(chunk + piece).utf8.count > room {
                // cut after the chunk's last space when it has one: some readers (Python's email)
                // put a space between encoded words, and a word cut in two would read as two
                if let space = chunk.lastIndex(of: 0x20), space > 0 {
                    emit(Array(chunk[...space]))
                    chunk = Array(chunk[(space + 1)...])
                    if encoded(chunk + piece).utf8.count > room {
                        emit(chunk)
                        chunk = []
                    }
                } else {
                    emit(chunk)
                    chunk = []
                }
            }
            chunk += piece
        }
        if !chunk.isEmpty || atoms.isEmpty { emit(chunk) }
        return atoms
    }

    private static let hex = Array("0123456789ABCDEF".utf8)

    static func qEncode(_ bytes: [UInt8], phrase: Bool) -> String {
        var out: [UInt8] = []
        for b in bytes {
            switch b {
            case UInt8(ascii: " "): out.append(UInt8(ascii: "_"))
            case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "0")...UInt8(ascii: "9"),
                 UInt8(ascii: "!"), UInt8(ascii: "*"), UInt8(ascii: "+"), UInt8(ascii: "-"), UInt8(ascii: "/"):
                out.append(b)
            case UInt8(ascii: "."), UInt8(ascii: ","), UInt8(ascii: ":"), UInt8(ascii: ";"), UInt8(ascii: "'"), UInt8(ascii: "&"):
                // safe in unstructured text, not in a phrase
                if phrase { out += [UInt8(ascii: "="), hex[Int(b >> 4)], hex[Int(b & 15)]] } else { out.append(b) }
            default:
                out += [UInt8(ascii: "="), hex[Int(b >> 4)], hex[Int(b & 15)]]
            }
        }
        return String(decoding: out, as: UTF8.self)
    }

    /// `Name: atoms`, a line broken before an atom that may follow white space when the line
    /// would pass 78 columns (an atom longer than a line stands alone on its line).
    static func fold(_ name: String, _ atoms: [Atom]) -> String {
        var out = name + ":"
        var column = out.utf8.count
        for atom in atoms {
            let width = atom.text.utf8.count
            if atom.space || column == name.utf8.count + 1 {
                // (folding white space may follow the colon: a first atom too long for the
                // field's line starts the next)
                if column + 1 + width > lineLimit && (column > name.utf8.count + 1 || width < lineLimit) {
                    out += "\n "
                    column = 1
                } else {
                    out += " "
                    column += 1
                }
            }
            out += atom.text
            column += width
        }
        return out
    }
}

/// RFC 2231 parameters (a file's name): as a quoted string when plain ASCII and short, else
/// `name*=utf-8''…` percent-encoded, in numbered continuations when long.
enum ParameterWriting {
    static func parameter(_ name: String, _ value: String) -> [String] {
        let plain = value.utf8.allSatisfy { $0 >= 0x20 && $0 < 0x7F } && !value.contains("=?")
        if plain && value.utf8.count + name.utf8.count < 70 {
            return ["\(name)=\(HeaderWriting.quoted(value))"]
        }
        var pieces: [String] = []
        var current = ""
        for character in value {
            let encoded = percentEncoded(Array(String(character).utf8))
            if !current.isEmpty && current.utf8.count + encoded.utf8.count > 60 {
                pieces.append(current)
                current = ""
            }
            current += encoded
        }
        pieces.append(current)
        if pieces.count == 1 { return ["\(name)*=utf-8''\(pieces[0])"] }
        return pieces.enumerated().map { i, piece in i == 0 ? "\(name)*0*=utf-8''\(piece)" : "\(name)*\(i)*=\(piece)" }
    }

    private static func percentEncoded(_ bytes: [UInt8]) -> String {
        var out = ""
        for b in bytes {
            switch b {
            case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "0")...UInt8(ascii: "9"),
                 UInt8(ascii: "!"), UInt8(ascii: "#"), UInt8(ascii: "$"), UInt8(ascii: "&"), UInt8(ascii: "+"), UInt8(ascii: "-"),
                 UInt8(ascii: "."), UInt8(ascii: "^"), UInt8(ascii: "_"), UInt8(ascii: "`"), UInt8(ascii: "|"), UInt8(ascii: "~"):
                out.unicodeScalars.append(Unicode.Scalar(b))
            default:
                let digits = Array("0123456789ABCDEF")
                out += "%\(digits[Int(b >> 4)])\(digits[Int(b & 15)])"
            }
        }
        return out
    }

    /// `type; p1; p2`, one parameter a line.
    static func field(_ name: String, _ value: String, _ parameters: [String]) -> String {
        var out = "\(name): \(value)"
        for p in parameters { out += ";\n \(p)" }
        return out
    }
}

extension String {
    var trimmingSpaces: String {
        var s = Substring(self)
        while let f = s.first, f == " " || f == "\t" { s.removeFirst() }
        while let l = s.last, l == " " || l == "\t" { s.removeLast() }
        return String(s)
    }
}
