import UTF8Text

/// Outlook's "downlevel-revealed" conditional comments, `<![if !mso]>` … `<![endif]>`: a
/// browser shows what is between them and ignores the markers, but libxml2 reads the markers
/// as text. They are taken out before parsing. (The hidden kind, `<!--[if mso]>…<![endif]-->`,
/// is a comment and goes with the other comments.)
enum ConditionalComments {
    private static let open = Array("<!".utf8), commentEnd = Array("-->".utf8), markerEnd = Array("]>".utf8)

    static func removingRevealed(_ html: [UInt8]) -> [UInt8] {
        guard ByteSearch.contains(html, Array("<![".utf8)) else { return html }
        var out: [UInt8] = []
        out.reserveCapacity(html.count)
        var i = 0
        while let lt = ByteSearch.firstIndex(of: open, in: html, from: i) {
            var next = lt + 2
            if html[lt...].starts(with: "<!--".utf8) {  // a comment, hidden conditional ones included, stays as it is
                next = ByteSearch.firstIndex(of: commentEnd, in: html, from: lt + 4).map { $0 + 3 } ?? html.count
                out += html[i..<next]
            } else if lt + 3 < html.count, html[lt + 2] == UInt8(ascii: "["), isMarker(html[(lt + 3)...]),
                      let close = ByteSearch.firstIndex(of: markerEnd, in: html, from: lt + 3) {
                out += html[i..<lt]
                next = close + 2
            } else {
                out += html[i..<next]
            }
            i = next
        }
        out += html[i...]
        return out
    }

    private static func isMarker(_ s: ArraySlice<UInt8>) -> Bool {
        let head = s.prefix(5).map { $0 | 0x20 }
        return head.starts(with: "if".utf8) && head.count > 2 && (head[2] == 0x20 || head[2] == 0x29 || head[2] == 0x28 || head[2] == 0x21 | 0x20)
            || head.starts(with: "endif".utf8)
    }
}
