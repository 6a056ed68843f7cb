/// A mailbox: display name (decoded, may be empty) and address (as written, without brackets).
public struct Mailbox: Equatable, Sendable {
    public var name: String
    public var address: String

    public init(name: String, address: String) {
        self.name = name
        self.address = address
    }
}

/// RFC 5322 address lists, with groups, comments, quoted local parts, obsolete routes and the
/// usual breakage: missing brackets, unquoted commas in names, encoded words anywhere.
enum AddressListParser {
    static func parse(_ raw: [UInt8], decoder: HeaderTextDecoder, defects: inout [String]) -> [Mailbox] {
        let chars = Array(String(decoding: raw, as: UTF8.self).unicodeScalars)
        var result: [Mailbox] = []
        for item in mergeUnquotedNames(splitItems(chars)) {
            for part in splitBareAddresses(item) {
                if let mailbox = parseMailbox(part, decoder: decoder, defects: &defects) { result.append(mailbox) }
            }
        }
        return result
    }

    /// `a@x b@y`: addresses separated by spaces instead of commas, with no names or brackets.
    private static func splitBareAddresses(_ item: [Unicode.Scalar]) -> [[Unicode.Scalar]] {
        guard !item.contains("<"), !item.contains("\""), !item.contains("(") else { return [item] }
        let words = item.split(whereSeparator: { $0 == " " || $0 == "\t" || $0 == "\r" || $0 == "\n" })
        guard words.count > 1, words.allSatisfy({ $0.contains("@") && $0.first != "@" && $0.last != "@" }) else { return [item] }
        return words.map(Array.init)
    }

    /// `Flores, Mary <mary@x>`: a comma in an unquoted display name. A bare word with no `@`
    /// followed by an item whose address is in angle brackets is part of that item's name.
    private static func mergeUnquotedNames(_ items: [[Unicode.Scalar]]) -> [[Unicode.Scalar]] {
        var result: [[Unicode.Scalar]] = []
        var carry: [Unicode.Scalar] = []
        for (k, item) in items.enumerated() {
            let merged = carry.isEmpty ? item : carry + [","] + item
            let isBareName = !merged.contains("@") && !merged.contains("<") && !merged.contains("\"")
                && merged.contains { $0 != " " && $0 != "\t" }
            if isBareName, k + 1 < items.count, let open = items[k + 1].firstIndex(of: "<"),
                !items[k + 1][..<open].contains("@")
            {
                carry = merged
                continue
            }
            result.append(merged)
            carry = []
        }
        return result
    }

    /// Splits at top-level commas, and at group colons and semicolons.
    private static func splitItems(_ s: [Unicode.Scalar]) -> [[Unicode.Scalar]] {
        var items: [[Unicode.Scalar]] = []
        var current: [Unicode.Scalar] = []
        var inQuote = false, inAngle = false
        var commentDepth = 0
        var i = 0
        while i < s.count {
            let c = s[i]
            if inQuote {
                current.append(c)
                if c == "\\", i + 1 < s.count {
                    current.append(s[i + 1])
                    i += 2
                    continue
                }
                if c == "\"" { inQuote = false }
            } else if commentDepth > 0 {
                current.append(c)
                if c == "\\", i + 1 < s.count {
                    current.append(s[i + 1])
                    i += 2
                    continue
                }
                if c == "(" { commentDepth += 1 } else if c == ")" { commentDepth -= 1 }
            } else if c == "=", i + 1 < s.count, s[i + 1] == "?", let end = encodedWordEnd(s, from: i) {
                current.append(contentsOf: s[i..<end])  // may hold ':' or ',' of its own
                i = end
                continue
            } else {
                switch c {
                case "\"": inQuote = true; current.append(c)
                case "(": commentDepth = 1; current.append(c)
                case "<": inAngle = true; current.append(c)
                case ">": inAngle = false; current.append(c)
                case "," where !inAngle, ";" where !inAngle:
                    items.append(current)
                    current = []
                case ":" where !inAngle && !current.contains("@") && !current.contains("<"):
                    current = []  // group display name: its members follow
                default:
                    current.append(c)
                }
            }
            i += 1
        }
        items.append(current)
        return items
    }

    /// The index after the `?=` closing an encoded word that starts at `i`, if it is one.
    private static func encodedWordEnd(_ s: [Unicode.Scalar], from i: Int) -> Int? {
        var questionMarks = 0
        var k = i + 2
        while k + 1 < s.count, k - i < 200 {
            if s[k] == "?" {
                questionMarks += 1
                if questionMarks >= 3, s[k + 1] == "=" { return k + 2 }
            } else if s[k] == " " && questionMarks < 2 {
                return nil
            }
            k += 1
        }
        return nil
    }

    private static func parseMailbox(_ item: [Unicode.Scalar], decoder: HeaderTextDecoder, defects: inout [String]) -> Mailbox? {
        // separate comments, quoted strings and the angle address
        var phrase: [Unicode.Scalar] = []
        var comments: [String] = []
        var angle: [Unicode.Scalar]?
        var afterAngle = false
        var i = 0
        while i < item.count {
            let c = item[i]
            if c == "(" {
                var depth = 1
                var text: [Unicode.Scalar] = []
                i += 1
                while i < item.count, depth > 0 {
                    let d = item[i]
                    if d == "\\", i + 1 < item.count {
                        text.append(item[i + 1])
                        i += 2
                        continue
                    }
                    if d == "(" { depth += 1 } else if d == ")" { depth -= 1 }
                    if depth > 0 { text.append(d) }
                    i += 1
                }
                comments.append(String(String.UnicodeScalarView(text)))
                continue
            }
            if c == "<" && angle == nil {
                var text: [Unicode.Scalar] = []
                i += 1
                while i < item.count, item[i] != ">" {
                    text.append(item[i])
                    i += 1
                }
                if i >= item.count { defects.append("unterminated_angle_address") }
                angle = text
                afterAngle = true
                i += 1
                continue
            }
            if !afterAngle { phrase.append(c) }
            i += 1
        }
        if var spec = angle {
            // obsolete route: <@a,@b:user@host>
            if spec.first == "@", let colon = spec.firstIndex(of: ":") { spec = Array(spec[(colon + 1)...]) }
            let address = cleanAddress(spec)
            var name = decodePhrase(phrase, decoder: decoder, defects: &defects)
            if name.isEmpty, let comment = comments.first { name = decoder.decode(Array(comment.utf8)).collapsingWhitespace }
            if address.isEmpty && name.isEmpty { return nil }
            return Mailbox(name: name, address: address)
        }
        // addr-spec alone; a quoted local part keeps its quotes out of the phrase
        let address = cleanAddress(phrase)
        if address.isEmpty { return nil }
        let name = comments.first.map { decoder.decode(Array($0.utf8)).collapsingWhitespace } ?? ""
        if !address.contains("@") {
            // words without an address are a name alone; one word may be a local user
            let words = String(String.UnicodeScalarView(phrase)).split(whereSeparator: { $0 == " " || $0 == "\t" })
            if words.count > 1 || address.hasPrefix("=?") {
                defects.append("missing_address")
                return Mailbox(name: decodePhrase(phrase, decoder: decoder, defects: &defects), address: "")
            }
        }
        return Mailbox(name: name, address: address)
    }

    /// The address without whitespace, its quoted local part unquoted when it needs no quotes.
    private static func cleanAddress(_ s: [Unicode.Scalar]) -> String {
        var out = String.UnicodeScalarView()
        var inQuote = false
        var quoted = String.UnicodeScalarView()
        var commentDepth = 0
        for c in s {
            if !inQuote {  // comments may stand anywhere in an address: pete(his account)@silly.test
                if c == "(" { commentDepth += 1; continue }
                if c == ")" && commentDepth > 0 { commentDepth -= 1; continue }
                if commentDepth > 0 { continue }
            }
            if c == "\"" {
                if inQuote {
                    // keep quotes only if the local part needs them
                    let needsQuotes = quoted.contains { $0 == " " || $0 == "," || $0 == "@" || $0 == "\"" || $0 == "(" || $0 == ")" || $0 == "<" || $0 == ">" || $0 == ":" || $0 == ";" }
                    if needsQuotes { out.append("\""); out.append(contentsOf: quoted); out.append("\"") } else { out.append(contentsOf: quoted) }
                    quoted = String.UnicodeScalarView()
                }
                inQuote.toggle()
                continue
            }
            if inQuote {
                if c != "\\" { quoted.append(c) }
                continue
            }
            if c == " " || c == "\t" || c == "\r" || c == "\n" { continue }
            out.append(c)
        }
        if inQuote { out.append(contentsOf: quoted) }
        return String(out)
    }

    /// A display name: quoted strings unquoted, encoded words decoded, whitespace collapsed.
    private static func decodePhrase(_ s: [Unicode.Scalar], decoder: HeaderTextDecoder, defects: inout [String]) -> String {
        var out = ""
        var plain = String.UnicodeScalarView()
        var i = 0
        func flushPlain() {
            if !plain.isEmpty {
                out += decoder.decode(Array(String(plain).utf8), defects: &defects)
                plain = String.UnicodeScalarView()
            }
        }
        while i < s.count {
            let c = s[i]
            if c == "\"" {
                flushPlain()
                var q = String.UnicodeScalarView()
                i += 1
                while i < s.count, s[i] != "\"" {
                    if s[i] == "\\", i + 1 < s.count { i += 1 }
                    q.append(s[i])
                    i += 1
                }
                // encoded words inside quotes are not allowed, but common
                out += decoder.decode(Array(String(q).utf8), defects: &defects)
                i += 1
                continue
            }
            plain.append(c)
            i += 1
        }
        flushPlain()
        return out.collapsingWhitespace
    }
}
