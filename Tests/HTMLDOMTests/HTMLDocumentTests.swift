import Testing
import HTMLDOM

@Suite struct HTMLDocumentTests {
    @Test func parsesBrokenHTMLAndWalksIt() {
        let doc = HTMLDocument(utf8: Array("<p class=x>Hello <b>wörld<script>evil()</script><table><td>cell".utf8))
        #expect(doc.textContent == "Hello wörldcell")
        var elements: [String] = []
        var classes: [String] = []
        doc.walk { node in
            if node.kind == .element {
                elements.append(node.name)
                classes += node.attributes.filter { $0.name == "class" }.map(\.value)
            }
            return true
        }
        #expect(elements.contains("table"))
        #expect(elements.contains("td"))
        #expect(classes == ["x"])
    }

    @Test func ignoresAContradictingMetaCharset() {
        let doc = HTMLDocument(utf8: Array("<meta charset=iso-8859-1><p>日本</p>".utf8))
        #expect(doc.textContent == "日本")
    }

    @Test func nulBytesAreReadAsReplacementCharacters() {
        // libxml2 alone stops at a NUL, and takes leading NULs for UTF-32
        let doc = HTMLDocument(utf8: [0, 0, 0] + Array("<p>hello</p><p>a".utf8) + [0] + Array("b</p>".utf8))
        #expect(doc.textContent == "\u{FFFD}\u{FFFD}\u{FFFD}helloa\u{FFFD}b")
    }

    @Test func streamReportsElementsAndTextButNoInventedParagraph() {
        let r = StreamRecorder()
        HTMLStream.parse(Array("hi <b class=x nowrap>there</b><p>para</p>".utf8), handler: r)
        #expect(r.events == ["<html>", "<body>", "hi ", "<b class=x nowrap=>", "there", "</b>", "<p>", "para", "</p>", "</body>", "</html>"])
    }
}
