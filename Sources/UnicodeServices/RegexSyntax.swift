/// A pattern in ICU's regular-expression syntax read into a tree, as far as mailpipe needs to
/// reason about one: which literals every match holds (LiteralCues) and, for the common subset,
/// matching without ICU (FoldedMatcher). What the reader does not understand it throws on;
/// what it reads but does not model (back references, `\X`, most `\p{…}`) it keeps as opaque.
indirect enum RegexNode {
    case literal([Unicode.Scalar])
    case set(CharacterSet?)  // nil: a set not modelled here
    case any  // `.`
    case startOfText  // `^`
    case opaqueAnchor  // `$`, `\A`, `\z`, `\Z`, `\G`: zero-width, not modelled
    case wordBoundary(Bool)  // `\b` true, `\B` false
    case opaque  // consumes text in a way not modelled
    case concat([RegexNode])
    case alternation([RegexNode])
    case repetition(RegexNode, min: Int, max: Int?, lazy: Bool, possessive: Bool)
    case look(RegexNode, behind: Bool, negative: Bool)
    case flags  // `(?i)` and the like: zero-width

    static func parse(_ pattern: String) throws(RegexSyntaxError) -> RegexNode {
        var reader = RegexReader(Array(pattern.unicodeScalars))
        let node = try reader.alternation()
        guard reader.atEnd else { throw RegexSyntaxError() }
        return node
    }
}

/// A bracketed set or a class escape such as `\s`: one character.
struct CharacterSet {
    enum Item {
        case scalar(Unicode.Scalar)
        case range(Unicode.Scalar, Unicode.Scalar)
        case space, digit, word, letter  // \s \d \w \p{L}
        case notSpace, notDigit, notWord, notLetter
    }
    var items: [Item]
    var negated: Bool
}

struct RegexSyntaxError: Error {}

private struct RegexReader {
    private let s: [Unicode.Scalar]
    private var i = 0
    private var lastAtomWasQuoted = false

    init(_ scalars: [Unicode.Scalar]) { s = scalars }

    var atEnd: Bool { i == s.count }

    private func peek(_ offset: Int = 0) -> Unicode.Scalar? { i + offset < s.count ? s[i + offset] : nil }

    private mutating func take() throws(RegexSyntaxError) -> Unicode.Scalar {
        guard i < s.count else { throw RegexSyntaxError() }
        i += 1
        return s[i - 1]
    }

    mutating func alternation() throws(RegexSyntaxError) -> RegexNode {
        var branches = [try concatenation()]
        while peek() == "|" {
            i += 1
            branches.append(try concatenation())
        }
        return branches.count == 1 ? branches[0] : .alternation(branches)
    }

    private mutating func concatenation() throws(RegexSyntaxError) -> RegexNode {
        var items: [RegexNode] = []
        while let c = peek(), c != "|", c != ")" {
            let item = try quantified(try atom())
            // adjacent literals are one literal
            if case .literal(let b) = item, case .literal(let a)? = items.last {
                items[items.count - 1] = .literal(a + b)
            } else {
                items.append(item)
            }
        }
        return items.count == 1 ? items[0] : .concat(items)
    }

    private mutating func quantified(_ node: RegexNode) throws(RegexSyntaxError) -> RegexNode {
        let quoted = lastAtomWasQuoted
        lastAtomWasQuoted = false
        guard let c = peek() else { return node }
        var minimum: Int, maximum: Int?
        switch c {
        case "*": (minimum, maximum) = (0, nil); i += 1
        case "+": (minimum, maximum) = (1, nil); i += 1
        case "?": (minimum, maximum) = (0, 1); i += 1
        case "{":
            i += 1
            minimum = try number()
            maximum = minimum
            if peek() == "," {
                i += 1
                maximum = peek() == "}" ? nil : try number()
            }
            guard try take() == "}" else { throw RegexSyntaxError() }
        default: return node
        }
        var lazy = false, possessive = false
        if peek() == "?" { lazy = true; i += 1 } else if peek() == "+" { possessive = true; i += 1 }
        // a quantifier after \Q…\E binds to its last character
        if quoted, case .literal(let run) = node, run.count > 1 {
            return .concat([.literal(Array(run.dropLast())),
                            .repetition(.literal([run.last!]), min: minimum, max: maximum, lazy: lazy, possessive: possessive)])
        }
        return .repetition(node, min: minimum, max: maximum, lazy: lazy, possessive: possessive)
    }

    private mutating func number() throws(RegexSyntaxError) -> Int {
        var n = 0, digits = 0
        while let c = peek(), c.value >= 0x30 && c.value <= 0x39 {
            n = n * 10 + Int(c.value - 0x30)
            digits += 1
            i += 1
        }
        guard digits > 0 else { throw RegexSyntaxError() }
        return n
    }

    private mutating func atom() throws(RegexSyntaxError) -> RegexNode {
        let c = try take()
        switch c {
        case "(": return try group()
        case "[": return .set(try bracketSet())
        case "\\": return try escape()
        case ".": return .any
        case "^": return .startOfText
        case "$": return .opaqueAnchor
        case "*", "+", "?", "{", "}", "]": throw RegexSyntaxError()
        default: return .literal([c])
        }
    }

    private mutating func group() throws(RegexSyntaxError) -> RegexNode {
        var look: (behind: Bool, negative: Bool)?
        if peek() == "?" {
            i += 1
            switch try take() {
            case ":", ">": break
            case "=": look = (false, false)
            case "!": look = (false, true)
            case "<" where peek() == "=": i += 1; look = (true, false)
            case "<" where peek() == "!": i += 1; look = (true, true)
            case "<":
                while try take() != ">" {}  // a named group
            case "#":
                while try take() != ")" {}
                return .flags
            default:
                // flags: (?i) (?-i) (?i:…); free spacing (x) changes how the rest reads
                i -= 1
                var on = true
                while let c = peek(), "imsw-x".unicodeScalars.contains(c) {
                    if c == "-" { on = false }
                    if c == "x", on { throw RegexSyntaxError() }
                    i += 1
                }
                if peek() == ")" {
                    i += 1
                    return .flags
                }
                guard try take() == ":" else { throw RegexSyntaxError() }
            }
        }
        let inner = try alternation()
        guard try take() == ")" else { throw RegexSyntaxError() }
        if let look { return .look(inner, behind: look.behind, negative: look.negative) }
        return inner
    }

    /// `[…]`: plain members, ranges and class escapes are modelled; nested sets, set
    /// operations and POSIX classes are read but not modelled (nil).
    private mutating func bracketSet() throws(RegexSyntaxError) -> CharacterSet? {
        var items: [CharacterSet.Item] = []
        var modelled = true
        let negated = peek() == "^"
        if negated { i += 1 }
        var depth = 1
        while depth > 0 {
            let c = try take()
            switch c {
            case "\\":
                let e = try take()
                if let item = Self.classItem(e) {
                    items.append(item)
                } else if "pPNx".unicodeScalars.contains(e) {
                    modelled = false
                    if e == "p" || e == "P", let item = try property(negated: e == "P") {
                        items.append(item)
                        modelled = true
                    } else if peek() == "{" {
                        while try take() != "}" {}
                    }
                } else if e.properties.isAlphabetic || e.properties.numericType != nil {
                    modelled = false
                } else {
                    items.append(.scalar(e))
                }
            case "[": depth += 1; modelled = false
            case "]": depth -= 1
            case "&", "{", "}", "$": modelled = false
            case "-" where !items.isEmpty && peek() != "]":
                guard case .scalar(let low) = items.last, let high = peek(), high != "\\", high != "[" else {
                    modelled = false
                    continue
                }
                i += 1
                items[items.count - 1] = .range(low, high)
            default: items.append(.scalar(c))
            }
        }
        if items.count > 1, case .scalar(":") = items.first, case .scalar(":") = items.last { modelled = false }  // [:alpha:]
        return modelled && !items.isEmpty ? CharacterSet(items: items, negated: negated) : nil
    }

    /// `\p{L}` and `\P{L}` (after the `p`); nil for other properties, which are skipped.
    private mutating func property(negated: Bool) throws(RegexSyntaxError) -> CharacterSet.Item? {
        var name: [Unicode.Scalar] = []
        if peek() == "{" {
            i += 1
            while let c = peek(), c != "}" { name.append(c); i += 1 }
            guard try take() == "}" else { throw RegexSyntaxError() }
        } else {
            name.append(try take())
        }
        guard name == ["L"] else { return nil }
        return negated ? .notLetter : .letter
    }

    private static func classItem(_ e: Unicode.Scalar) -> CharacterSet.Item? {
        switch e {
        case "s": .space
        case "S": .notSpace
        case "d": .digit
        case "D": .notDigit
        case "w": .word
        case "W": .notWord
        default: nil
        }
    }

    private mutating func escape() throws(RegexSyntaxError) -> RegexNode {
        let c = try take()
        if let item = Self.classItem(c) { return .set(CharacterSet(items: [item], negated: false)) }
        switch c {
        case "Q":
            var text: [Unicode.Scalar] = []
            while i < s.count, !(s[i] == "\\" && peek(1) == "E") {
                text.append(s[i])
                i += 1
            }
            if i < s.count { i += 2 }
            lastAtomWasQuoted = true
            return .literal(text)
        case "b": return .wordBoundary(true)
        case "B": return .wordBoundary(false)
        case "A": return .startOfText
        case "z", "Z", "G": return .opaqueAnchor
        case "p", "P":
            if let item = try property(negated: c == "P") { return .set(CharacterSet(items: [item], negated: false)) }
            return .set(nil)
        case "N", "x", "k":
            let close: Unicode.Scalar = c == "k" ? ">" : "}"
            if peek() == "{" || (c == "k" && peek() == "<") {
                while try take() != close {}
            } else {
                i += c == "x" ? 2 : 1
            }
            return .opaque
        case "u": i += 4; return .opaque
        case "U": i += 8; return .opaque
        case "c": i += 1; return .opaque
        case "0", "1", "2", "3", "4", "5", "6", "7", "8", "9":
            while let d = peek(), d.value >= 0x30 && d.value <= 0x39 { i += 1 }
            return .opaque
        case "h", "H", "v", "V", "R", "X", "t", "n", "r", "f", "e", "a": return .opaque
        default:
            if c.properties.isAlphabetic || c.properties.numericType != nil { throw RegexSyntaxError() }
            return .literal([c])
        }
    }
}
