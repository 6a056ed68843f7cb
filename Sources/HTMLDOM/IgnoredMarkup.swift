#if canImport(Glibc)
import Glibc
#endif

/// Markup a browser ignores but libxml2 reads as text (and may lose its way after), taken out
/// before parsing so that both read the same document:
/// - Outlook's "downlevel-revealed" conditional comments, `<![if !mso]>` … `<![endif]>`: a
///   browser shows what is between them and ignores the markers. (The hidden kind,
///   `<!--[if mso]>…<![endif]-->`, is a comment and goes with the other comments.)
/// - HTML5's bogus comments: `<!` followed by anything but `--` or a doctype, and `<?`, up to
///   the next `>` (`<!VR>`, `<![CDATA[…]>`, Office's `<?xml:namespace … />`). libxml2 takes
///   `<?` for a processing instruction and, when it is not one, raises an error at every byte
///   it then skips (two junk documents of the corpus raised 24,000).
enum IgnoredMarkup {
    static func removed(_ html: [UInt8]) -> [UInt8] {
        var cut: [Range<Int>] = []
        var kept: [Range<Int>] = []  // comments and doctypes, whose insides are not markup
        html.withUnsafeBufferPointer { p in
            var i = 0
            while let lt = next(UInt8(ascii: "!"), after: UInt8(ascii: "<"), in: p, from: i) {
                let rest = html[(lt + 2)...]
                if rest.starts(with: "--".utf8) {  // a comment, hidden conditional ones included, stays as it is
                    // the first "-->" after "<!--", as libxml2 reads it
                    var end = html.count
                    var j = lt + 5
                    while let dash = next(UInt8(ascii: ">"), after: UInt8(ascii: "-"), in: p, from: j) {
                        if dash - 1 >= lt + 4, p[dash - 1] == UInt8(ascii: "-") {
                            end = dash + 2
                            break
                        }
                        j = dash + 2
                    }
                    i = end
                    kept.append(lt..<end)
                } else if rest.prefix(7).map({ $0 | 0x20 }).elementsEqual("doctype".utf8) {
                    i = html[lt...].firstIndex(of: UInt8(ascii: ">")).map { $0 + 1 } ?? html.count
                    kept.append(lt..<i)
                } else if rest.first == UInt8(ascii: "["), isMarker(rest.dropFirst()),
                          let close = next(UInt8(ascii: ">"), after: UInt8(ascii: "]"), in: p, from: lt + 3) {
                    i = close + 2
                    cut.append(lt..<i)
                } else {
                    i = html[lt...].firstIndex(of: UInt8(ascii: ">")).map { $0 + 1 } ?? html.count
                    cut.append(lt..<i)
                }
            }
            var skipped = (cut + kept).sorted { $0.lowerBound < $1.lowerBound }[...]
            i = 0
            while let lt = next(UInt8(ascii: "?"), after: UInt8(ascii: "<"), in: p, from: i) {
                while let first = skipped.first, first.upperBound <= lt { skipped = skipped.dropFirst() }
                if let first = skipped.first, first.contains(lt) {
                    i = first.upperBound
                    continue
                }
                i = html[lt...].firstIndex(of: UInt8(ascii: ">")).map { $0 + 1 } ?? html.count
                cut.append(lt..<i)
            }
        }
        guard !cut.isEmpty else { return html }
        cut.sort { $0.lowerBound < $1.lowerBound }
        var out: [UInt8] = []
        out.reserveCapacity(html.count)
        var start = 0
        for range in cut where range.upperBound > start {  // a "<?" cut may hold a "<!" one
            out += html[start..<max(start, range.lowerBound)]
            start = range.upperBound
        }
        out += html[start...]
        return out
    }

    /// Where the next `first` followed by `second` starts, at or after `from`; by memchr for
    /// `second` (the rarer byte: '!' or '>'), which is many times faster than a two-byte search.
    private static func next(_ second: UInt8, after first: UInt8, in p: UnsafeBufferPointer<UInt8>, from: Int) -> Int? {
        var j = max(from + 1, 1)
        while let k = p.firstIndex(of: second, from: j) {
            if p[k - 1] == first { return k - 1 }
            j = k + 1
        }
        return nil
    }

    private static func isMarker(_ s: ArraySlice<UInt8>) -> Bool {
        let head = s.prefix(5).map { $0 | 0x20 }
        return head.starts(with: "if".utf8) && head.count > 2 && (head[2] == 0x20 || head[2] == 0x29 || head[2] == 0x28 || head[2] == 0x21 | 0x20)
            || head.starts(with: "endif".utf8)
    }
}
