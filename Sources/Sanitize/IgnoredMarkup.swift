import UTF8Text

/// Markup a browser ignores but libxml2 reads as text (and may lose its way after), taken out
/// before parsing so that both read the same document:
/// - Outlook's "downlevel-revealed" conditional comments, `<![if !mso]>` … `<![endif]>`: a
///   browser shows what is between them and ignores the markers. (The hidden kind,
///   `<!--[if mso]>…<![endif]-->`, is a comment and goes with the other comments.)
/// - HTML5's bogus comments: `<!` followed by anything but `--` or a doctype, up to the next
///   `>` (`<!VR>`, `<![CDATA[…]>`).
enum IgnoredMarkup {
    private static let open = Array("<!".utf8), commentEnd = Array("-->".utf8), markerEnd = Array("]>".utf8)

    static func removed(_ html: [UInt8]) -> [UInt8] {
        var cut: [Range<Int>] = []
        var i = 0
        while let lt = ByteSearch.firstIndex(of: open, in: html, from: i) {
            let rest = html[(lt + 2)...]
            if rest.starts(with: "--".utf8) {  // a comment, hidden conditional ones included, stays as it is
                i = ByteSearch.firstIndex(of: commentEnd, in: html, from: lt + 4).map { $0 + 3 } ?? html.count
            } else if rest.prefix(7).map({ $0 | 0x20 }).elementsEqual("doctype".utf8) {
                i = lt + 2
            } else if rest.first == UInt8(ascii: "["), isMarker(rest.dropFirst()),
                      let close = ByteSearch.firstIndex(of: markerEnd, in: html, from: lt + 3) {
                i = close + 2
                cut.append(lt..<i)
            } else {
                i = html[lt...].firstIndex(of: UInt8(ascii: ">")).map { $0 + 1 } ?? html.count
                cut.append(lt..<i)
            }
        }
        guard !cut.isEmpty else { return html }
        var out: [UInt8] = []
        out.reserveCapacity(html.count)
        var start = 0
        for range in cut {
            out += html[start..<range.lowerBound]
            start = range.upperBound
        }
        out += html[start...]
        return out
    }

    private static func isMarker(_ s: ArraySlice<UInt8>) -> Bool {
        let head = s.prefix(5).map { $0 | 0x20 }
        return head.starts(with: "if".utf8) && head.count > 2 && (head[2] == 0x20 || head[2] == 0x29 || head[2] == 0x28 || head[2] == 0x21 | 0x20)
            || head.starts(with: "endif".utf8)
    }
}
