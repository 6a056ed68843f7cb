import CLibcExtras
import JSONLines
import UTF8Text

/// The text carrier-detect reads from a message: the subject and body as one string, and the
/// links in it. An HTML body is reduced to its text here without a parser: tags dropped (block
/// tags become line breaks, inline ones nothing, so a number split across `<span>`s joins up),
/// entities decoded, style and script skipped, every `href` kept.
struct MessageText {
    var text: [UInt16] = []
    var links: [String] = []

    init(subject: String, body: String?, html: [UInt8]?) {
        var utf8 = Array(subject.utf8)
        utf8.append(0x0A)
        if let body {
            utf8 += body.utf8
        } else if let html {
            utf8 += htmlText(html, links: &links)
        }
        // Links written out in the text: taken as links, blanked in the text so their digits are
        // not read as numbers.
        var i = 0
        while i < utf8.count {
            if (utf8[i] == UInt8(ascii: "h") || utf8[i] == UInt8(ascii: "H")) && startsURL(utf8, at: i) {
                var end = i
                while end < utf8.count && !isURLEnd(utf8[end]) { end += 1 }
                links.append(String(decoding: utf8[i..<end], as: UTF8.self))
                for k in i..<end { utf8[k] = 0x20 }
                i = end
            } else {
                i += 1
            }
        }
        text = utf16(utf8)
    }
}

private func startsURL(_ b: [UInt8], at i: Int) -> Bool {
    for scheme in ["http://", "https://"] {
        let s = Array(scheme.utf8)
        if i + s.count <= b.count && zip(b[i..<(i + s.count)], s).allSatisfy({ ($0 | 0x20) == $1 }) { return true }
    }
    return false
}

private func isURLEnd(_ c: UInt8) -> Bool {
    c <= 0x20 || c == UInt8(ascii: "\"") || c == UInt8(ascii: "<") || c == UInt8(ascii: ">") || c == UInt8(ascii: "'")
        || c == UInt8(ascii: ")") || c == UInt8(ascii: "]") || c >= 0x80
}

private let inlineTags: Set<String> = ["a", "span", "b", "strong", "i", "em", "u", "font", "small", "big", "sup", "sub", "abbr", "code", "wbr", "s", "strike", "mark", "label"]

/// The visible text of HTML, roughly, and the href of each link.
func htmlText(_ html: [UInt8], links: inout [String]) -> [UInt8] {
    var out = [UInt8]()
    out.reserveCapacity(html.count / 2)
    var i = 0
    let n = html.count
    while i < n {
        let c = html[i]
        if c == UInt8(ascii: "<") {
            if html[i...].starts(with: Array("<!--".utf8)) {
                i = ByteSearch.firstIndex(of: Array("-->".utf8), in: html, from: i + 4).map { $0 + 3 } ?? n
                continue
            }
            var end = i + 1
            var quote: UInt8 = 0
            while end < n {
                let d = html[end]
                if quote != 0 { if d == quote { quote = 0 } }
                else if d == UInt8(ascii: "\"") || d == UInt8(ascii: "'") { quote = d }
                else if d == UInt8(ascii: ">") { break }
                end += 1
            }
            let tag = html[(i + 1)..<min(end, n)]
            let name = tagName(tag)
            if name == "style" || name == "script" {
                i = ByteSearch.firstIndex(of: Array("</\(name)".utf8), in: html, from: end, ignoringASCIICase: true) ?? n
                i = html[i...].firstIndex(of: UInt8(ascii: ">")).map { $0 + 1 } ?? n
                continue
            }
            if name == "a", let href = attribute(tag, "href") { links.append(decodeEntities(href)) }
            if !inlineTags.contains(name) { out.append(0x0A) }
            i = end + 1
        } else if c == UInt8(ascii: "&") {
            var end = i + 1
            while end < n && end - i < 12 && html[end] != UInt8(ascii: ";") && html[end] != UInt8(ascii: "&") && html[end] > 0x20 { end += 1 }
            if end < n && html[end] == UInt8(ascii: ";"), let decoded = entity(html[(i + 1)..<end]) {
                out += decoded
                i = end + 1
            } else {
                out.append(c)
                i += 1
            }
        } else {
            out.append(c)
            i += 1
        }
    }
    return out
}

private func tagName(_ tag: ArraySlice<UInt8>) -> String {
    var t = tag.drop { $0 == UInt8(ascii: "/") }
    t = t.prefix { $0 > 0x20 && $0 != UInt8(ascii: "/") && $0 != UInt8(ascii: ">") }
    return String(decoding: t.map { $0 &- 0x41 < 26 ? $0 | 0x20 : $0 }, as: UTF8.self)
}

private func attribute(_ tag: ArraySlice<UInt8>, _ name: String) -> String? {
    let lower = tag.map { $0 &- 0x41 < 26 ? $0 | 0x20 : $0 }
    let key = Array(name.utf8)
    var i = 0
    while let at = ByteSearch.firstIndex(of: key, in: lower, from: i) {
        i = at + key.count
        guard at > 0, lower[at - 1] <= 0x20 else { continue }
        var j = i
        while j < lower.count && lower[j] <= 0x20 { j += 1 }
        guard j < lower.count, lower[j] == UInt8(ascii: "=") else { continue }
        j += 1
        while j < lower.count && lower[j] <= 0x20 { j += 1 }
        guard j < lower.count else { return nil }
        let base = tag.startIndex
        if lower[j] == UInt8(ascii: "\"") || lower[j] == UInt8(ascii: "'") {
            let q = lower[j]
            let end = lower[(j + 1)...].firstIndex(of: q) ?? lower.count
            return String(decoding: tag[(base + j + 1)..<(base + end)], as: UTF8.self)
        }
        let end = lower[j...].firstIndex { $0 <= 0x20 || $0 == UInt8(ascii: ">") } ?? lower.count
        return String(decoding: tag[(base + j)..<(base + end)], as: UTF8.self)
    }
    return nil
}

private func entity(_ name: ArraySlice<UInt8>) -> [UInt8]? {
    if name.first == UInt8(ascii: "#") {
        let digits = name.dropFirst()
        let hex = digits.first == UInt8(ascii: "x") || digits.first == UInt8(ascii: "X")
        guard let v = UInt32(String(decoding: hex ? digits.dropFirst() : digits, as: UTF8.self), radix: hex ? 16 : 10),
              let scalar = Unicode.Scalar(v) else { return nil }
        if v == 0xA0 { return [0x20] }
        return Array(String(Character(scalar)).utf8)
    }
    switch String(decoding: name, as: UTF8.self) {
    case "nbsp", "ensp", "emsp", "thinsp": return [0x20]
    case "amp": return [UInt8(ascii: "&")]
    case "lt": return [UInt8(ascii: "<")]
    case "gt": return [UInt8(ascii: ">")]
    case "quot": return [UInt8(ascii: "\"")]
    case "apos": return [UInt8(ascii: "'")]
    case "zwnj", "zwj", "shy": return []
    case "middot": return Array("·".utf8)
    case "rarr": return Array("→".utf8)
    default: return nil
    }
}

/// An attribute value with its entities decoded (`&amp;` in hrefs above all).
func decodeEntities(_ s: String) -> String {
    guard s.utf8.contains(UInt8(ascii: "&")) else { return s }
    var links: [String] = []
    return String(decoding: htmlText(Array(s.utf8).map { $0 == UInt8(ascii: "<") ? 0x20 : $0 }, links: &links), as: UTF8.self)
}

/// The href of every tag in HTML given as a JSON string as written (quotes escaped as `\"`),
/// found by byte search without decoding the whole: only the links are wanted.
func hrefs(inJSONString json: ArraySlice<UInt8>) -> [String] {
    var out: [String] = []
    let key = Array("href=".utf8)
    json.withUnsafeBytes { html in
        var i = 0
        while i < html.count, let p = mp_memmem(html.baseAddress! + i, html.count - i, key, key.count) {
            var j = html.baseAddress!.distance(to: p) + key.count
            var quote: [UInt8] = []
            if html[j...].starts(with: [0x5C, 0x22]) { quote = [0x5C, 0x22] } else if j < html.count && html[j] == 0x27 { quote = [0x27] }
            j += quote.count
            var end = j
            while end < html.count && (quote.isEmpty ? html[end] > 0x20 && html[end] != UInt8(ascii: ">") : !html[end...].starts(with: quote)) {
                end += html[end] == 0x5C ? 2 : 1  // an escape is two bytes at least
            }
            end = min(end, html.count)
            let literal = [UInt8(ascii: "\"")] + html[j..<end] + [UInt8(ascii: "\"")]
            if case .string(let href)? = try? JSONValue.parse(literal) { out.append(decodeEntities(href)) }
            i = end
        }
    }
    return out
}

/// UTF-8 to UTF-16, ASCII passed straight through (decoding to a String first copies twice).
func utf16(_ utf8: [UInt8]) -> [UInt16] {
    var out = [UInt16]()
    out.reserveCapacity(utf8.count)
    var i = 0
    while i < utf8.count {
        if utf8[i] < 0x80 {
            out.append(UInt16(utf8[i]))
            i += 1
            continue
        }
        var j = i + 1
        while j < utf8.count && utf8[j] >= 0x80 { j += 1 }
        out += String(decoding: utf8[i..<j], as: UTF8.self).utf16
        i = j
    }
    return out
}
