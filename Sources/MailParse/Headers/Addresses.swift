import UTF8Text
import UnicodeServices

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
/// usual breakage: missing brackets, unquoted commas in names, addresses separated by spaces,
/// encoded words anywhere. Works on bytes: every character with a meaning here is ASCII.
enum AddressListParser {
    private static let quote = UInt8(ascii: "\""), backslash = UInt8(ascii: "\\")
    private static let open = UInt8(ascii: "("), close = UInt8(ascii: ")")
    private static let lt = UInt8(ascii: "<"), gt = UInt8(ascii: ">"), at = UInt8(ascii: "@")
    private static let comma = UInt8(ascii: ","), semicolon = UInt8(ascii: ";"), colon = UInt8(ascii: ":")
    private static let dot = UInt8(ascii: ".")

    static func parse(_ raw: [UInt8], decoder: HeaderTextDecoder, defects: inout [String]) -> [Mailbox] {
        var result: [Mailbox] = []
        for item in mergeUnquotedNames(splitItems(raw)) {
            for part in splitBareAddresses(item) {
                if let mailbox = parseMailbox(part, decoder: decoder, defects: &defects) { result.append(mailbox) }
            }
        }
        return result
    }

    /// Splits at top-level commas, and at group colons and semicolons.
    private static func splitItems(_ s: [UInt8]) -> [ArraySlice<UInt8>] {
        var items: [ArraySlice<UInt8>] = []
        var start = 0
        var inQuote = false, inAngle = false
        var commentDepth = 0
        var sawAtOrAngle = false
        var i = 0
        while i < s.count {
            let c = s[i]
            if inQuote || commentDepth > 0 {
                if c == backslash {
                    i += 2
                    continue
                }
                if inQuote, c == quote { inQuote = false }
                if commentDepth > 0 {
                    if c == open { commentDepth += 1 } else if c == close { commentDepth -= 1 }
                }
                i += 1
                continue
            }
            if c == UInt8(ascii: "="), i + 1 < s.count, s[i + 1] == UInt8(ascii: "?"), let end = encodedWordEnd(s, from: i) {
                i = end  // may hold ':' or ',' of its own
                continue
            }
            switch c {
            case quote: inQuote = true
            case open: commentDepth = 1
            case lt: inAngle = true; sawAtOrAngle = true
            case gt: inAngle = false
            case at: sawAtOrAngle = true
            case comma where !inAngle, semicolon where !inAngle:
                items.append(s[start..<i])
                start = i + 1
                sawAtOrAngle = false
            case colon where !inAngle && !sawAtOrAngle:
                start = i + 1  // a group's display name: its members follow
            default: break
            }
            i += 1
        }
        items.append(s[start..<s.count])
        return items
    }

    /// The index after the `?=` closing an encoded word that starts at `i`, if it is one.
    private static func encodedWordEnd(_ s: [UInt8], from i: Int) -> Int? {
        var questionMarks = 0
        var k = i + 2
        while k + 1 < s.count, k - i < 200 {
            if s[k] == UInt8(ascii: "?") {
                questionMarks += 1
                if questionMarks >= 3, s[k + 1] == UInt8(ascii: "=") { return k + 2 }
            } else if s[k] == Bytes.space && questionMarks < 2 {
                return nil
            }
            k += 1
        }
        return nil
    }

    /// `Flores, Mary <mary@x>`: a comma in an unquoted display name. A bare word with no `@`
    /// followed by an item whose address is in angle brackets is part of that item's name.
    private static func mergeUnquotedNames(_ items: [ArraySlice<UInt8>]) -> [ArraySlice<UInt8>] {
        guard items.count > 1 else { return items }
        var result: [ArraySlice<UInt8>] = []
        var carry: [UInt8] = []
        for (k, item) in items.enumerated() {
            let merged = carry.isEmpty ? item : ArraySlice(carry + [comma] + item)
            let isBareName = !merged.contains(at) && !merged.contains(lt) && !merged.contains(quote)
                && merged.contains { !Bytes.isWhitespace($0) }
            if isBareName, k + 1 < items.count, let open = items[k + 1].firstIndex(of: lt),
                !items[k + 1][..<open].contains(at)
            {
                carry = Array(merged)
                continue
            }
            result.append(merged)
            carry = []
        }
        return result
    }

    /// `a@x b@y`: addresses separated by spaces instead of commas, with no names or brackets.
    private static func splitBareAddresses(_ item: ArraySlice<UInt8>) -> [ArraySlice<UInt8>] {
        guard !item.contains(lt), !item.contains(quote), !item.contains(open) else { return [item] }
        let words = item.split(whereSeparator: Bytes.isWhitespace)
        guard words.count > 1, words.allSatisfy({ $0.contains(at) && $0.first != at && $0.last != at }) else { return [item] }
        return words
    }

    private static func parseMailbox(_ item: ArraySlice<UInt8>, decoder: HeaderTextDecoder, defects: inout [String]) -> Mailbox? {
        // separate comments, quoted strings and the angle address
        var phrase: [UInt8] = []
        phrase.reserveCapacity(item.count)
        var comments: [[UInt8]] = []
        var angle: ArraySlice<UInt8>?
        var i = item.startIndex
        let end = item.endIndex
        while i < end {
            let c = item[i]
            if c == quote && angle == nil {  // keep quoted strings whole in the phrase
                let start = i
                i += 1
                while i < end, item[i] != quote {
                    if item[i] == backslash { i += 1 }
                    i += 1
                }
                i = min(i + 1, end)
                phrase.append(contentsOf: item[start..<i])
                continue
            }
            if c == open {
                var depth = 1
                var text: [UInt8] = []
                i += 1
                while i < end, depth > 0 {
                    let d = item[i]
                    if d == backslash, i + 1 < end {
                        text.append(item[i + 1])
                        i += 2
                        continue
                    }
                    if d == open { depth += 1 } else if d == close { depth -= 1 }
                    if depth > 0 { text.append(d) }
                    i += 1
                }
                comments.append(text)
                continue
            }
            if c == lt && angle == nil {
                let start = i + 1
                while i < end, item[i] != gt { i += 1 }
                if i >= end { defects.append("unterminated_angle_address") }
                angle = item[start..<min(i, end)]
                i += 1
                continue
            }
            if angle == nil { phrase.append(c) }
            i += 1
        }
        if var spec = angle {
            // obsolete route: <@a,@b:user@host>
            if spec.first == at, let colonIndex = spec.firstIndex(of: colon) { spec = spec[(colonIndex + 1)...] }
            let address = cleanAddress(spec)
            var name = decodePhrase(phrase, decoder: decoder, defects: &defects)
            if name.isEmpty, let comment = comments.first { name = decoder.decode(comment).collapsingWhitespace }
            if address.isEmpty && name.isEmpty { return nil }
            return Mailbox(name: name, address: address)
        }
        // addr-spec alone
        let address = cleanAddress(phrase[...])
        if address.isEmpty { return nil }
        let name = comments.first.map { decoder.decode($0).collapsingWhitespace } ?? ""
        if !address.contains("@") {
            // words without an address are a name alone; one word may be a local user
            let words = phrase.split(whereSeparator: Bytes.isWhitespace)
            if words.count > 1 || address.hasPrefix("=?") {
                defects.append("missing_address")
                return Mailbox(name: decodePhrase(phrase, decoder: decoder, defects: &defects), address: "")
            }
        }
        return Mailbox(name: name, address: address)
    }

    /// The address without whitespace or comments, its quoted local part unquoted when it needs
    /// no quotes; raw 8-bit bytes read as UTF-8, else windows-1252.
    private static func cleanAddress(_ s: ArraySlice<UInt8>) -> String {
        var lo = s.startIndex, hi = s.endIndex
        while lo < hi, Bytes.isWhitespace(s[lo]) { lo += 1 }
        while hi > lo, Bytes.isWhitespace(s[hi - 1]) { hi -= 1 }
        if !s[lo..<hi].contains(where: { $0 == quote || $0 == open || Bytes.isWhitespace($0) || $0 >= 0x80 }) {
            return String(decoding: s[lo..<hi], as: UTF8.self)  // the usual case: nothing to clean
        }
        var out: [UInt8] = []
        out.reserveCapacity(s.count)
        var inQuote = false
        var quoted: [UInt8] = []
        var escaped = false  // after a backslash in the quoted string: the next byte as it is
        var commentDepth = 0
        for c in s {
            if !inQuote {  // comments may stand anywhere in an address: pete(his account)@silly.test
                if c == open { commentDepth += 1; continue }
                if c == close && commentDepth > 0 { commentDepth -= 1; continue }
                if commentDepth > 0 { continue }
            }
            if c == quote && !escaped {
                if inQuote {
                    if needsQuotes(quoted) {
                        out.append(quote)
                        for q in quoted {
                            if q == quote || q == backslash { out.append(backslash) }
                            out.append(q)
                        }
                        out.append(quote)
                    } else {
                        out.append(contentsOf: quoted)
                    }
                    quoted = []
                }
                inQuote.toggle()
                continue
            }
            if inQuote {
                if c == backslash && !escaped {
                    escaped = true
                } else {
                    quoted.append(c)
                    escaped = false
                }
                continue
            }
            if Bytes.isWhitespace(c) { continue }
            out.append(c)
        }
        if inQuote { out.append(contentsOf: quoted) }
        return out.withUnsafeBytes { lenientString($0) }
    }

    /// Whether a quoted local part needs its quotes (RFC 5322 3.4.1): it is no dot-atom, having
    /// a byte outside atext (a space, `@`, `"`…), a dot first or last, or two dots together.
    /// UTF-8 is atext (RFC 6532).
    private static func needsQuotes(_ local: [UInt8]) -> Bool {
        guard let first = local.first, let last = local.last, first != dot, last != dot else { return true }
        var previous: UInt8 = 0
        for c in local {
            if c == dot && previous == dot { return true }
            if c < 0x80 && c != dot && !atext.contains(c) { return true }
            previous = c
        }
        return false
    }

    private static let atext = Set(Array("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789!#$%&'*+-/=?^_`{|}~".utf8))

    /// A display name: quoted strings unquoted, encoded words decoded, whitespace collapsed.
    private static func decodePhrase(_ s: [UInt8], decoder: HeaderTextDecoder, defects: inout [String]) -> String {
        if !s.contains(where: { $0 == quote || $0 >= 0x80 || $0 == UInt8(ascii: "=") }) {
            return collapsedASCII(s)  // the usual case: a plain name
        }
        var out = ""
        var plain: [UInt8] = []
        var i = 0
        while i < s.count {
            let c = s[i]
            if c == quote {
                if !plain.isEmpty {
                    out += decoder.decode(plain, defects: &defects)
                    plain = []
                }
                var q: [UInt8] = []
                i += 1
                while i < s.count, s[i] != quote {
                    if s[i] == backslash, i + 1 < s.count { i += 1 }
                    q.append(s[i])
                    i += 1
                }
                out += decoder.decode(q, defects: &defects)  // encoded words inside quotes: not allowed, but common
                i += 1
                continue
            }
            plain.append(c)
            i += 1
        }
        if !plain.isEmpty { out += decoder.decode(plain, defects: &defects) }
        return out.collapsingWhitespace
    }
}

extension AddressListParser {
    /// ASCII words joined by single spaces.
    static func collapsedASCII(_ s: [UInt8]) -> String {
        // already so (the usual case): no other white space than single spaces between words
        let isCollapsed = s.first != Bytes.space && s.last != Bytes.space
            && !s.contains { Bytes.isWhitespace($0) && $0 != Bytes.space }
            && !zip(s, s.dropFirst()).contains { $0 == Bytes.space && $1 == Bytes.space }
        if isCollapsed { return String(decoding: s, as: UTF8.self) }
        var out: [UInt8] = []
        out.reserveCapacity(s.count)
        for word in s.split(whereSeparator: Bytes.isWhitespace) {
            if !out.isEmpty { out.append(Bytes.space) }
            out.append(contentsOf: word)
        }
        return String(decoding: out, as: UTF8.self)
    }
}

/// Bytes as text: UTF-8 when valid, else windows-1252.
func lenientString(_ bytes: UnsafeRawBufferPointer) -> String {
    UTF8Bytes.string(lenient: bytes)
}
