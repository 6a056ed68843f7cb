import Testing
@testable import BodyText

@Suite struct HTMLTextTests {
    private func suffix(_ href: String, _ text: String) -> String? {
        HTMLText.linkSuffix(href: Array(href.utf8), text: Array(text.utf8)[...]).map { String(decoding: $0, as: UTF8.self) }
    }

    @Test func aLinkShowsItsURLOnlyWhenItSaysMore() {
        #expect(suffix("https://shop.example/sale", "Summer sale") == "https://shop.example/sale")
        #expect(suffix(" https://shop.example/sale\n", " Summer sale ") == "https://shop.example/sale")
        #expect(suffix("HTTPS://www.Example.com/", "example.com") == nil)  // scheme, www, case, last slash
        #expect(suffix("http://example.com", "https://example.com") == nil)
        #expect(suffix("https://example.com/a", "see example.com/a") == nil)  // the text ends with it
        #expect(suffix("mailto:Mei@example.tw", "write to me") == "Mei@example.tw")
        #expect(suffix("mailto:mei@example.tw", "MEI@example.tw") == nil)
        #expect(suffix("http://café.example", "CAFÉ.example") == nil)  // lowercase beyond ASCII
        #expect(suffix("javascript:alert(1)", "click") == nil)
        #expect(suffix("https://example.com", " \u{A0}") == nil)  // no text: nothing to say more than
    }

    @Test func elementsByName() {
        func element(_ name: String) -> HTMLText.Element { Array(name.utf8).withUnsafeBufferPointer(HTMLText.element) }
        #expect(element("blockquote").kind == .blockquote && element("blockquote").breaks == 2)
        #expect(element("div").breaks == 1 && element("div").kind == .other && !element("div").skipped)
        #expect(element("script").skipped && element("li").kind == .li && element("td").kind == .cell)
        #expect(element("span").breaks == 0 && element("an-element-of-more-than-16-bytes").kind == .other)
    }
}
