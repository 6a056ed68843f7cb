import Testing
@testable import HTMLDOM

@Suite struct ReferencesTests {
    private func events(_ html: String) -> [String] {
        let r = StreamRecorder()
        HTMLStream.parse(Array(html.utf8), handler: r)
        return r.events
    }

    /// What libxml2 makes of `html` given as it is, without References.
    private func eventsOfLibxml2(_ html: String) -> [String] {
        let r = StreamRecorder()
        Array(html.utf8).withUnsafeBufferPointer { HTMLStream.parse($0, handler: r) }
        return r.events
    }

    @Test func commonReferencesAreTheCharactersLibxml2ReadsThemAs() {
        for (name, value) in References.commonEntities {
            let html = "<p title=\"&\(name);\">&\(name);</p>"
            let expected = eventsOfLibxml2(html)
            #expect(expected.contains("\(String(Unicode.Scalar(value)!))"), "libxml2 does not know &\(name);")
            #expect(events(html) == expected, "&\(name);")
            #expect(References.prepared(Array(html.utf8)) != Array(html.utf8), "&\(name); is not decoded before parsing")
        }
    }

    @Test func referencesInStyleAndScriptStayAsWritten() {
        let css = "p:after{content:\"&nbsp;&rarr;\"}"
        for html in ["<style>\(css)</style><p title='a&nbsp;b'>x&zwnj;y&rarr;&amp;lt;</p>",
                     "<STYLE type=text/css>\(css)</STYLE ><p title='a&nbsp;b'>x&zwnj;y&rarr;&amp;lt;</p>",
                     "<StYlE>\(css)</sTyLe><p title='a&nbsp;b'>x&zwnj;y&rarr;&amp;lt;</p>"] {
            #expect(events(html) == eventsOfLibxml2(html))
            #expect(events(html).contains(css))
            #expect(events(html).contains("x\u{200C}y→&lt;"))
        }
        // a style without its end tag runs to the end; a script is raw text too
        let unclosed = "<p>a&nbsp;b</p><style>\(css)<p>&rarr;"
        #expect(events(unclosed) == eventsOfLibxml2(unclosed))
        let script = "<script>var s = '&nbsp;';</script><p>&nbsp;</p>"
        #expect(events(script) == eventsOfLibxml2(script))
        #expect(References.prepared(Array(script.utf8)) == Array("<script>var s = '&nbsp;';</script><p>\u{A0}</p>".utf8))
    }

    @Test func bareAmpersandsAndOtherReferences() {
        #expect(References.prepared(Array("a&b &amp; &#38; &lt; &nbsp &unknown; &nbsp;".utf8))
            == Array("a&amp;b &amp; &#38; &lt; &amp;nbsp &unknown; \u{A0}".utf8))
    }
}
