import Testing
@testable import HTMLDOM

@Suite(.serialized) struct PlaceholdersTests {
    /// The events of `html` parsed with runs swapped out.
    private func swappedEvents(_ html: [UInt8]) -> [String] {
        HTMLStream.parse(html) { StreamRecorder() }.events
    }

    /// The swapped document parsed with its runs restored: the scan's runs, the restorer, the events.
    private func restoredParse(_ prepared: UnsafeBufferPointer<UInt8>) throws -> (Placeholders, PlaceholderRestorer, StreamRecorder) {
        let p = try #require(Placeholders(prepared))
        let restorer = PlaceholderRestorer(prepared, p)
        let handler = StreamRecorder()
        handler.restorer = restorer
        p.swapped.withUnsafeBufferPointer { HTMLStream.parse($0, handler: handler) }
        return (p, restorer, handler)
    }

    private func plainEvents(_ html: [UInt8]) -> [String] {
        let r = StreamRecorder()
        HTMLStream.parse(html, handler: r)
        return r.events
    }

    /// Markup the scan may read otherwise than libxml2: the events must be the same either way.
    static let tricky: [String] = [
        "<p>Hello world, this is text &amp; more text</p>",
        "<a href=\"https://x.example/?a=1&amp;b=2&c=3\" title='it&#39;s here' style=\"color: red\">link text</a>",
        "<a \"foo>bar baz\">text here</a> and after",
        "<td width=\"10\"\">cell text</td><td class=\"x y\">next cell</td>",
        "<!-- comment with <b class=\"x y\"> --> text after the comment",
        "<!-- a --!> <a title=\"--> <b style='x y'>\">text</b> tail text",
        "<style>p { color: red } </style><p>after style</p><script>var a = \"<b title='x y'>\";</script>tail text",
        "<!DOCTYPE html PUBLIC \"-//W3C//DTD XHTML 1.0>\" \"x\"><p class=\"a b\">text text</p>",
        "<!DOCTYPE html><p class=\"a b\">text text</p>",
        "<html> some text <head> <title>The title</title> more words </head><body>body text</body></html>",
        "<p style=\"color: red\" STYLE=\"color: blue\" title=\"one two\">text text</p>",
        "<p>bell\u{7}char and form\u{0C}feed text</p><p title=\"bell\u{7}in value\">x</p>",
        "<p>x\u{FFFE}yzzz and more \u{FFFF} text</p>",
        "leading text <html><body>body text</body></html>",
        "<p>" + String(repeating: "word ", count: 300) + String(repeating: " ", count: 1500) + "</p>",
        "<html>" + String(repeating: " ", count: 1200) + "text in html" + String(repeating: " ", count: 1200) + "<body>x</body></html>",
        "<p>AT&T rocks &copy 2024 and &#169 more &#xA9; &unknown; &amp text</p>",
        "<p>a < b and c > d text</p><p>x </ y> z text</p><p>x </> y text</p><p>q <3 r text</p>",
        "<td width=100 class=foo bar=baz>text text</td>",
        "<a title=\"a<b\" href=x>text text</a><a title = \"spaced out\" >more</a>",
        "<p title=\"never closed>text text text",
        "<br/>text after<img src=\"a b.png\"/>more text<img src='c d.png' / >end text",
        "<a data-x.y:z=\"value here\" _under=\"value two\" :colon=\"value three\" .dot=\"four four\">t</a>",
        "<meta charset=\"iso-8859-1\"><meta http-equiv=\"Content-Type\" content=\"text/html; charset=koi8-r\"><p>日本語のテキスト</p>",
        "<body class=\"a b\"><p>x</p><body style=\"color: red\" class=\"c d\">y text</body>",
        "<html lang=\"en us\"><html class=\"two words\"><p>text text</p>",
        "<textarea>a <b class=\"q r\"> c</textarea><title>a <b class=\"s t\"> c</title><xmp>x <i class=\"u v\">y</xmp>",
        "<plaintext>a <b class=\"q r\"> c text text",
        "<p>text<!DOCTYPE html>more text</p><p>text <!doctype \"x>\"> more text</p>",
        "<p>line one\r\nline two\rline three</p>",
        "<style>a{}</STYLE >after text</p><script>x</scriptfoo>y</script>z text",
        "<style>a{b:c}</style  ><p>after text</p><script type=\"text/javascript\">if (a < b && c) {}</script>text",
        "<script/>text after self-closing script<style/>and style",
        "<p>" + String(repeating: "a", count: 150) + "<" + String(repeating: "b", count: 120) + " title=\"long name tag\">x</p>",
        "<p " + String(repeating: "c", count: 120) + "=\"long attribute\" title=\"after it\">text text</p>",
        "<p>tab\there and\nnewline text</p>   \n  trailing text after all  \n",
        "<div><p>one para<p>two para<li>item text<table><td>cell text</table></div>",
        "<p>text &lt;b&gt; escaped &quot;quotes&quot; text</p><p title=\"&lt;b&gt; &quot;q&quot;\">x</p>",
        "<a href=\"x\" href=\"y\" title=\"z z\">dup</a>",
        "<p title=\"\">empty</p><p title=\"\" class=\"\">empty two</p>",
        "<p title='mixed \"quotes\" inside'>text</p><p title=\"mixed 'quotes' inside\">text</p>",
        "<x:y a:b=\"c d\">namespaced text</x:y><o:p>office text</o:p>",
        "<p>a\u{7F}b</p>",
        "<p>a\u{1}b</p><p title=\"a\u{1}b\">c</p>",
        "<ul>\n  <li>one item</li>\n  <li>two item</li>\n</ul>\n",
        "text only, no markup at all, long enough",
        "<p>unterminated entity &amp",
        "<table><tr><td>cell</td></tr>stray text in a table<tr><td>cell two</td></tr></table>",
        "<p>a <!-- c --> b text</p><p>a <!---> b text --> c text</p><p>d <!----> e text</p>",
        "<p>one &amp; two &lt;three&gt; &quot;four&quot; &#65;&#x42;&#X43; &#127; &#1; &#0; &#99999999; &#xD800; &#65 x</p>",
        "<p>&AMP; &Amp; &ampx; &amp &lt &#x; &#; &#xFFFE; &#12;&#9;&#10;&#13; &#8364;&#x1F600; &#x10FFFF; &#x110000; text</p>",
        "<html>&amp; <head>&lt;x&gt; </head><body> &#32; </body></html>",
        "<p title=\"a &amp; b &#65; c\">x &amp;</p><p>&amp;</p>&#32;<p>  &quot;  </p>",
        // raw text swapped whole: long (libxml2 hands it over in pieces), with what it drops or decodes
        "<style>" + String(repeating: "p.a { color: red } é ", count: 120) + "</style><p>after the style</p>",
        "<style>a { b: c } \u{7} d</style><style>x &amp; y &lt; z</style><script>if (a < b) {}</script>",
        "<a title=\"x\"y\"><style>p { x: y }</style> text</a>",
        "<!-- <style> --> p { x: y } </style> text text",
        "<table><style>td { x: y }</style><tr><td>cell text</td></tr></table>",
        // found by the fuzzer: raw text that starts with an end tag is read as markup
        "<lin><textarea><title><style></textarea><img src=x onerror=ale)1tr>(</style></title></sk rel=\"import\" href=\"test.svg\" #/>nk r<svg></p>",
        "<style></p>p { x: y }</style>text<script></b>if (a) {}</script>more text",
        // comments swapped whole, and those that may end otherwise
        "<!-- a long comment --><p>text</p><!--[if mso]><table><tr><td class=\"x y\"><![endif]-->tail text",
        "<p>a <!--> b text --> c</p><p>d <!---> e text --> f</p><p>g <!-- h --!> i text --> j</p>",
        "<!-- one -- two --- three ---><p>text after</p><!---- four ----><p>more text</p>",
        "<p title=\"<!-- not a comment -->\">x</p><style><!-- p { x: y } --></style>text",
        // found by the fuzzer: a reference to the text mark's character, where libxml2 reports it as
        // text while the mark it stands beside went into a value
        "&#x7f</<a :=\">\u{FFFD}:",
        // found by the fuzzer: "</" with no name, which libxml2 takes alone, reading on from there
        "</<F f=\"><x o='ing\"'`>l",
        "<p>a</ b=\"c d\">text text</p></>more text</1 x=\"y z\">end text",
        "<p>a &#127; b text</p><p>c &#x007F d text</p><p>e &#1270; &#x7f0; f text</p>",
        // attribute lists swapped whole: plain ones, and those that must not be
        "<td width=100 height=\"20\" nowrap class='a b' data-x = \"y y\">cell</td><img src=a.png/><br clear=all />",
        "<td WIDTH=\"100\" class=\"a\">caps</td><td class=\"a\" class=\"b\">twice</td><td class=\"a\" CLASS=\"b\">twice</td>",
        "<a href=x&amp;y title=\"q\">unquoted ref</a><a href=\"x&#38;y\" title=q>quoted ref</a><a title=>empty</a>",
        "<p a=\"b\" c>one<p c d=\"\">two<p e = f g=\"h\" / >three<p i=\"j\"/>four",
        "<div id=\"a\" \"bogus\" class=\"b\">x</div><div class=\"c\" =\"d\">y</div><div class=\"e\"/ title=\"f\">z</div>",
        "<select name=\"s s\"><option value=\"1\" selected>one</option></select><input type=text value=\"v v\">",
        "<meta name=\"a\" content=\"b c\"><link rel=\"x\" href=\"y z\"><base href=\"q r\"><p class=\"after\">t</p>",
        // blanks between tags, swapped in a body only: before it libxml2 skips them or reads them in html or head
        "    \n  <html>\n    <head>\n      <title>t</title>\n    </head>\n    <body>\n      <p>text</p>\n    </body>\n  </html>\n    \n  ",
        "<head><noscript><body>\n    <p>x</p>\n    </noscript>\n    <p>after text</p>\n    </body>",
        "<body>\n    <p>one</p>\n    </body>\n    <p>after the body</p>\n    </html>\n    <p>after the html</p>\n    ",
        "<body>\n    <pre>\n    </pre>\n    <textarea>\n    </textarea>\n    <listing>\n    </listing>\n    </body>",
        "<frameset>\n    <frame src=\"a\">\n    </frameset>\n    <body>\n    <p>x</p>\n    </body>",
        "<body>\n    <table>\n      <tr>\n        <td>cell</td>\n      </tr>\n    </table>\n    <select>\n    <option>o</option>\n    </select>\n  </body>",
        "<p>x</p>\n    <body class=\"a b\">\n    <head>\n    <p>y</p>\n    </BODY >\n    <p>z text</p>",
        "<div>\n    <body>\n    <p>x</p>\n    </body>\n  </div>\n    <p>y</p>\n    ",
    ]

    @Test func swappedRunsGiveTheSameEvents() {
        for html in Self.tricky {
            let bytes = Array(html.utf8)
            #expect(swappedEvents(bytes) == plainEvents(bytes), "\(html)")
        }
    }

    @Test func aReferenceToTheTextMarkIsParsedAsItIs() {
        for html in ["a &#127; b", "a &#x7f b", "a &#X007F; b", "&#00127"] {
            #expect(Array(html.utf8).withUnsafeBufferPointer { Placeholders.refersToTextMark($0) }, "\(html)")
        }
        for html in ["a &#1270; b", "a &#x7f0 b", "a &#126; b", "a & #127 b", "&#"] {
            #expect(!Array(html.utf8).withUnsafeBufferPointer { Placeholders.refersToTextMark($0) }, "\(html)")
        }
    }

    @Test func invalidUTF8IsParsedAsItIs() {
        let bytes = Array("<p title=\"a b c\">text text ".utf8) + [0xFF, 0xC3] + Array(" more text é</p>".utf8)
        #expect(swappedEvents(bytes) == plainEvents(bytes))
        #expect(bytes.withUnsafeBufferPointer { Placeholders($0) } == nil)
    }

    @Test func textAndValuesAreSwapped() throws {
        let html = Array("<p class=\"one two\" id=x>Hello, world &amp; all</p><a href=\"/a?b=1&amp;c=2\" title=\"t t\">x</a><b title=\"abcd &amp bc\">y</b>".utf8)
        let p = try #require(html.withUnsafeBufferPointer { Placeholders($0) })
        // plain attributes are taken out of their tag; a value with a reference libxml2 may read
        // otherwise is swapped in pieces
        #expect(String(decoding: p.swapped, as: UTF8.self) == "<p>\u{7F}</p><a>x</a><b title=\"\u{1}&amp bc\">y</b>")
        #expect(p.textRuns.map { String(decoding: $0.isDecoded ? p.decoded[$0.bytes] : html[$0.bytes], as: UTF8.self) } == ["Hello, world & all"])
        #expect(p.valueRuns.map { String(decoding: html[$0], as: UTF8.self) } == ["abcd "])
        #expect(p.attributeLists.map(\.tagEnd) == [2, 10])
        #expect(p.listAttributes.map { a in
            String(decoding: html[a.name], as: UTF8.self) + "="
                + (a.value.map { String(decoding: a.isDecoded ? p.listDecoded[$0] : html[$0], as: UTF8.self) } ?? "nil")
        } == ["class=one two", "id=x", "href=/a?b=1&c=2", "title=t t"])
        #expect(swappedEvents(html) == ["<html>", "<body>", "<p class=one two id=x>", "Hello, world & all", "</p>",
                                        "<a href=/a?b=1&c=2 title=t t>", "x", "</a>", "<b title=abcd &amp bc>", "y", "</b>", "</body>", "</html>"])
    }

    /// Every run swapped out comes back where libxml2 reports it, on the markup above: the
    /// swapped parse is kept, not redone.
    @Test func theSwappedParseIsKeptOnWellFormedMarkup() throws {
        let html = Array("<html><head><style>p{x:y}</style></head><body class=\"b c\"><p style=\"color: red\">Hello &amp; bye</p><!-- note --><a href=\"https://a.example/x?y=1&amp;z=2\">link text</a></body></html>".utf8)
        try html.withUnsafeBufferPointer { prepared in
            let (p, restorer, _) = try restoredParse(prepared)
            #expect(restorer.restoredAll)
            #expect(p.textRuns.map(\.kind) == [.raw, .text, .comment, .text])  // style, text, comment, text
            #expect(p.valueRuns.isEmpty)  // the p's and the a's attributes are taken out whole
            #expect(p.attributeLists.count == 2)
        }
    }

    /// The indentation of a body's markup is swapped out, and the swapped parse kept.
    @Test func blanksInABodyAreSwapped() throws {
        let html = Array("<html>\n  <head>\n    <title>t</title>\n  </head>\n  <body>\n    <table>\n      <tr><td>cell text</td></tr>\n    </table>\n  </body>\n</html>".utf8)
        try html.withUnsafeBufferPointer { prepared in
            let (p, restorer, handler) = try restoredParse(prepared)
            #expect(restorer.restoredAll)
            #expect(p.textRuns.map(\.kind) == [.blanks, .blanks, .text, .blanks])  // "\n  " is too short
            #expect(handler.events == plainEvents(html))
        }
    }

    /// A body opened inside another element and closed by that element's end: the blanks after
    /// it either come back where libxml2 reports them or the document is parsed again as it is.
    @Test func blanksAfterABodyClosedByAnotherEnd() throws {
        let html = Array("<head><noscript><body>\n    <p>x</p>\n    </noscript>\n    <p>after text</p>".utf8)
        try html.withUnsafeBufferPointer { prepared in
            let (p, restorer, handler) = try restoredParse(prepared)
            #expect(p.textRuns.contains { $0.kind == .blanks })
            #expect(handler.events == plainEvents(html) || !restorer.restoredAll)
        }
        #expect(swappedEvents(html) == plainEvents(html))
    }

    /// A blanks' mark that libxml2 reports in a paragraph it invented counts as missing.
    @Test func blanksInAnInventedParagraphAreMissing() throws {
        let html = Array("<body>\n    <p>x</p>".utf8)
        try html.withUnsafeBufferPointer { prepared in
            let p = try #require(Placeholders(prepared))
            #expect(p.textRuns.map(\.kind) == [.blanks])
            let mark = [Placeholders.textMark]
            let restorer = PlaceholderRestorer(prepared, p)
            mark.withUnsafeBufferPointer { restorer.restoringText($0, raw: false, inventedParagraph: true) { _ in } }
            #expect(!restorer.restoredAll)
            let kept = PlaceholderRestorer(prepared, p)
            var restored: [UInt8] = []
            mark.withUnsafeBufferPointer { kept.restoringText($0, raw: false, inventedParagraph: false) { restored = Array($0) } }
            #expect(kept.restoredAll)
            #expect(restored == Array("\n    ".utf8))
        }
    }
}
