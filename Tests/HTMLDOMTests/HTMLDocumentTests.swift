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
}
