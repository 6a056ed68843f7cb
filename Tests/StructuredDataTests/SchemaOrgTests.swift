import JSONLines
import Testing
@testable import StructuredData

struct LenientJSONTests {
    func repaired(_ s: String) -> String { String(decoding: LenientJSON.repaired(Array(s.utf8)), as: UTF8.self) }

    @Test func markupIsNoticedWhereverItIs() {
        // the look is one pass, 16 bytes at a time: either word at every place, the end included,
        // and neither cut short by the end or split by a byte
        for word in ["ld+json", "itemscope"] {
            for length in word.count..<60 {
                for place in 0...(length - word.count) {
                    var html = [UInt8](repeating: UInt8(ascii: "l"), count: length)
                    html.replaceSubrange(place..<(place + word.count), with: Array(word.utf8))
                    #expect(SchemaOrg.mayHaveMarkup(html[...]))
                    html[place + word.count / 2] = UInt8(ascii: "X")
                    #expect(!SchemaOrg.mayHaveMarkup(html[...]))
                }
            }
            #expect(!SchemaOrg.mayHaveMarkup(Array(word.utf8.dropLast())[...]))
        }
        #expect(!SchemaOrg.mayHaveMarkup([][...]))
    }

    @Test func validJSONComesOutUnchanged() {
        for s in [#"{"a":[1,2,{"b":"x, }"}],"c":"\"}{\""}"#, "[]", #""a\\""#] { #expect(repaired(s) == s) }
    }

    @Test func trailingCommasGo() {
        #expect(repaired(#"{"a":[1,2,],}"#) == #"{"a":[1,2]}"#)
    }

    @Test func missingCommasBetweenValuesAreAdded() {
        #expect(repaired(#"[{"a":1}{"b":2}]"#) == #"[{"a":1},{"b":2}]"#)
        #expect(repaired(#"{"a":"x" "b":"y"}"#) == #"{"a":"x", "b":"y"}"#)
    }

    @Test func rawControlCharactersInStringsAreEscaped() {
        #expect(repaired("{\"a\":\"x\ny\tz\"}") == #"{"a":"x\ny\tz"}"#)
    }

    @Test func entitiesAreDecoded() {
        #expect(HTMLEntities.decoded(Array("&quot;a&quot; &amp;&#233;&#x41; &bogus; &".utf8)) == Array("\"a\" &éA &bogus; &".utf8))
    }
}

struct SchemaOrgTests {
    func read(_ html: String) -> SchemaOrg.Markup { SchemaOrg.read(html: Array(html.utf8)) }

    @Test func aGraphAndAListAreFlattened() throws {
        let m = read(#"<script type="application/ld+json">[{"@context":"https://schema.org","@graph":[{"@type":"A"},{"@type":"B"}]},{"@type":"C"}]</script>"#)
        #expect(m.items.map { SchemaOrg.types($0) } == [["A"], ["B"], ["C"]])
        #expect(m.items[0]["@context"] == .string("https://schema.org"))
    }

    @Test func typesLoseTheirPrefixAndMayBeSeveral() throws {
        let item = try JSONValue.parse(Array(#"{"@type":["http://schema.org/Hotel","schema:Hostel"]}"#.utf8))
        #expect(SchemaOrg.types(item) == ["Hotel", "Hostel"])
    }

    @Test func scriptTextIsReadAsWritten() {
        // an HTML parser would have made the bare & into &amp; and cut at the </p>
        let m = read(#"<SCRIPT TYPE="application/ld+json">{"name":"A & B </p>"}</SCRIPT>"#)
        #expect(m.items == [.object([("name", .string("A & B </p>"))])])
    }

    @Test func anUnreadableScriptIsNamedOnce() {
        let m = read(#"<script type="application/ld+json">{oops</script><script type="application/ld+json">nope</script>"#)
        #expect(m.items.isEmpty && m.defects == ["unreadable_json_ld"])
    }

    @Test func microdataPropertiesNestAndRepeat() {
        let m = read("""
            <div itemscope itemtype="http://schema.org/Event"><span itemprop="name">Fête\u{A0} de
              la musique</span><a itemprop="url" href="https://x.example/">x</a>
              <span itemprop="performer" itemscope itemtype="http://schema.org/Person"><span itemprop="name">A</span></span>
              <span itemprop="performer">B</span><time itemprop="startDate" datetime="2026-06-21">21 June</time></div>
            """)
        #expect(m.items.count == 1)
        let e = m.items[0]
        #expect(e["@type"] == .string("Event") && e["@context"] == .string("http://schema.org"))
        #expect(e["name"] == .string("Fête de\nla musique"))
        #expect(e["url"] == .string("https://x.example/"))
        #expect(e["startDate"] == .string("2026-06-21"))
        let person = JSONValue.object([("@context", .string("http://schema.org")), ("@type", .string("Person")), ("name", .string("A"))])
        #expect(e["performer"] == .array([person, .string("B")]))
    }

    @Test func anItemWithoutPropertiesIsLeftOut() {
        #expect(read(#"<div itemscope itemtype="http://schema.org/WebPage"><p>hi</p></div>"#).items.isEmpty)
    }

    @Test func noMarkupNoParse() {
        #expect(!SchemaOrg.mayHaveMarkup(Array("<p>itemscop</p>".utf8)[...]))
        #expect(SchemaOrg.mayHaveMarkup(Array(#"<script type=\"application/ld+json\">"#.utf8)[...]))
    }
}
