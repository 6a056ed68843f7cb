/// The fewest characters, whitespace not counted, that a regular expression can match; nil
/// for syntax it does not know (the caller then assumes 0). Knows what tracking-number specs
/// use: literals, escapes, classes, groups of every kind (look-arounds match nothing),
/// alternation, and the quantifiers `* + ? {n} {n,} {n,m}`, lazy or possessive.
func minimumMatchLength(_ pattern: String) -> Int? {
    var p = PatternReader(Array(pattern.unicodeScalars), counting: .characters)
    guard let n = p.alternation(), p.i == p.s.count else { return nil }
    return n
}

/// The fewest digits a match has: characters matched by an atom that matches only digits (a
/// digit, `\d`, a class of digits and digit ranges such as `[0-9]`); nil as for
/// `minimumMatchLength`.
func minimumDigitCount(_ pattern: String) -> Int? {
    var p = PatternReader(Array(pattern.unicodeScalars), counting: .digits)
    guard let n = p.alternation(), p.i == p.s.count else { return nil }
    return n
}

private struct PatternReader {
    enum Counting { case characters, digits }
    let s: [Unicode.Scalar]
    let counting: Counting
    var i = 0

    init(_ s: [Unicode.Scalar], counting: Counting) {
        self.s = s
        self.counting = counting
    }

    mutating func alternation() -> Int? {
        guard var best = sequence() else { return nil }
        while i < s.count && s[i] == "|" {
            i += 1
            guard let n = sequence() else { return nil }
            best = min(best, n)
        }
        return best
    }

    mutating func sequence() -> Int? {
        var total = 0
        while i < s.count && s[i] != "|" && s[i] != ")" {
            guard let atom = atom() else { return nil }
            guard let times = quantifier() else { return nil }
            total += atom * times
        }
        return total
    }

    /// One atom's minimum: 1 for a character or class, 0 for whitespace, anchors and
    /// look-arounds, the inside's for a group.
    mutating func atom() -> Int? {
        let c = s[i]
        i += 1
        switch c {
        case "(":
            var lookaround = false
            if i < s.count && s[i] == "?" {
                i += 1
                guard i < s.count else { return nil }
                switch s[i] {
                case ":", ">": i += 1
                case "=", "!": lookaround = true; i += 1
                case "<":
                    if i + 1 < s.count && (s[i + 1] == "=" || s[i + 1] == "!") {
                        lookaround = true
                        i += 2
                    } else {
                        while i < s.count && s[i] != ">" { i += 1 }
                        i += 1
                    }
                default: return nil
                }
            }
            guard let inner = alternation(), i < s.count, s[i] == ")" else { return nil }
            i += 1
            return lookaround ? 0 : inner
        case "[":
            var onlyDigits = !(i < s.count && s[i] == "^")
            if i < s.count && s[i] == "^" { i += 1 }
            if i < s.count && s[i] == "]" { i += 1; onlyDigits = false }
            while i < s.count && s[i] != "]" {
                if s[i] == "\\" {
                    i += 1
                    if i < s.count && s[i] != "d" { onlyDigits = false }
                } else if !Self.isDigit(s[i]) && !(s[i] == "-" && i + 1 < s.count && Self.isDigit(s[i + 1])) {
                    onlyDigits = false
                }
                i += 1
            }
            guard i < s.count else { return nil }
            i += 1
            return counting == .characters || onlyDigits ? 1 : 0
        case "\\":
            guard i < s.count else { return nil }
            let e = s[i]
            i += 1
            switch e {
            case "s", "b", "B", "A", "z", "Z", "G": return 0
            default: return counting == .characters || e == "d" ? 1 : 0
            }
        case "^", "$": return 0
        case ".": return counting == .characters ? 1 : 0
        case "*", "+", "?", "{", ")": return nil
        default: return counting == .characters || Self.isDigit(c) ? 1 : 0
        }
    }

    private static func isDigit(_ c: Unicode.Scalar) -> Bool { c >= "0" && c <= "9" }

    /// The least number of times the atom before it must match.
    mutating func quantifier() -> Int? {
        guard i < s.count else { return 1 }
        var least: Int
        switch s[i] {
        case "*", "?":
            i += 1
            least = 0
        case "+":
            i += 1
            least = 1
        case "{":
            var j = i + 1
            var digits = ""
            while j < s.count && s[j].properties.numericType != nil { digits.unicodeScalars.append(s[j]); j += 1 }
            guard let n = Int(digits), j < s.count, s[j] == "," || s[j] == "}" else { return 1 }  // a literal brace
            while j < s.count && s[j] != "}" { j += 1 }
            guard j < s.count else { return nil }
            i = j + 1
            least = n
        default:
            return 1
        }
        if i < s.count && (s[i] == "?" || s[i] == "+") { i += 1 }
        return least
    }
}
