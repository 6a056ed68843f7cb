import CivilTime
import ICalendar
import Testing
@testable import ChatSite

enum F: String, CaseIterable { case name, body, flag }

func rendered(_ template: String, _ values: [F: String]) throws -> String {
    let t = try Template<F>(name: "t.html", text: Array(template.utf8))
    var f = Fields<F>()
    for (k, v) in values { f.set(k, v) }
    var out: [UInt8] = []
    t.render(f.values, into: &out)
    return String(decoding: out, as: UTF8.self)
}

@Suite struct TemplateTests {
    @Test func fieldsAreEscapedUnlessTripleBraced() throws {
        #expect(try rendered("<p title=\"{{name}}\">{{{body}}}</p>", [.name: "a\"<b>&'", .body: "<i>x</i>"])
            == "<p title=\"a&quot;&lt;b&gt;&amp;'\"><i>x</i></p>")
    }

    @Test func sectionsShowWhenTheirFieldIsSetAndInvertedOnesWhenItIsNot() throws {
        let t = "{{#flag}}on {{name}}{{/flag}}{{^flag}}off{{/flag}}"
        #expect(try rendered(t, [.flag: "1", .name: "n"]) == "on n")
        #expect(try rendered(t, [.name: "n"]) == "off")
    }

    @Test(arguments: [
        ("a\n{{nope}}", "t.html:2: unknown field 'nope'"),
        ("{{#flag}}x", "t.html:1: section 'flag' is not closed"),
        ("{{/flag}}", "t.html:1: '{{/flag}}' closes no section"),
        ("{{name", "t.html:1: '{{' without '}}'"),
    ])
    func mistakesAreNamedWithTheirLine(_ template: String, _ message: String) {
        #expect(throws: Template<F>.SyntaxError.self) { try rendered(template, [:]) }
        do { _ = try rendered(template, [:]) } catch { #expect("\(error)".hasPrefix(message)) }
    }

    @Test func theBuiltInTemplatesParse() {
        #expect(!SiteTemplates.builtIn.stylesheet.isEmpty)
    }
}

@Suite struct LinkedTextTests {
    func html(_ s: String) -> String {
        var out: [UInt8] = []
        LinkedText.html(Array(s.utf8), into: &out)
        return String(decoding: out, as: UTF8.self)
    }

    func link(_ url: String) -> String { "<a href=\"\(url)\" rel=\"noopener noreferrer\" target=\"_blank\">\(url)</a>" }

    @Test func linksEndBeforeTheSentencesPunctuation() {
        #expect(html("see https://x.example/a.") == "see " + link("https://x.example/a") + ".")
        #expect(html("(https://x.example/a)") == "(" + link("https://x.example/a") + ")")
        #expect(html("https://en.wikipedia.org/wiki/Foo_(bar)!") == link("https://en.wikipedia.org/wiki/Foo_(bar)") + "!")
        #expect(html("<https://x.example/>") == "&lt;" + link("https://x.example/") + "&gt;")
    }

    @Test func onlyWebAndMailLinksAtAWordsStart() {
        #expect(html("javascript:alert(1) xhttps://a.example ftp://a.example") == "javascript:alert(1) xhttps://a.example ftp://a.example")
        #expect(html("MAILTO:a@b.example") == link("MAILTO:a@b.example"))
        #expect(html("http:// alone") == "http:// alone")
    }

    @Test func quotesInALinkAreEscaped() {
        #expect(html("https://x.example/?q='1'&r=2") == link("https://x.example/?q='1'&amp;r=2"))
    }
}

@Suite struct TextFactsTests {
    @Test func theLanguageOfCJKTextPicksItsGlyphs() {
        #expect(TextFacts.cjkLanguage(Array("來週の会議資料".utf8)) == "ja")
        #expect(TextFacts.cjkLanguage(Array("爸爸生日".utf8)) == "zh")
        #expect(TextFacts.cjkLanguage(Array("안녕하세요".utf8)) == "ko")
        #expect(TextFacts.cjkLanguage(Array("مرحبا hello".utf8)) == nil)
    }

    @Test func initials() {
        #expect(TextFacts.initials(name: "Alex Rivera", address: "a@x") == "AR")
        #expect(TextFacts.initials(name: "陳偉傑", address: "w@x") == "陳")
        #expect(TextFacts.initials(name: nil, address: "priya@x") == "P")
        #expect(TextFacts.initials(name: "ليلى حداد", address: "l@x") == "ل")
    }

    @Test func namesAsAPersonReadsThem() {
        #expect(TextFacts.displayName("Sato, Hana") == "Hana Sato")
        #expect(TextFacts.displayName("Rivera, Alex J.") == "Alex J. Rivera")
        #expect(TextFacts.displayName("Acme, Inc.") == "Acme, Inc.")
        #expect(TextFacts.displayName("King, Jr") == "King, Jr")
        #expect(TextFacts.displayName("Sales team, Example Corp Europe") == "Sales team, Example Corp Europe")
        #expect(TextFacts.displayName("a, b, c") == "a, b, c")
        #expect(TextFacts.givenName(name: "Sato, Hana", address: "h@x") == "Hana")
        #expect(TextFacts.givenName(name: "Alex Rivera", address: "a@x") == "Alex")
        #expect(TextFacts.givenName(name: "陳 美玲", address: "m@x") == "陳 美玲")
        #expect(TextFacts.givenName(name: nil, address: "priya@example.in") == "priya")
    }

    @Test func rightToLeftNamesAreIsolatedInALine() {
        #expect(TextFacts.isolatedIfRightToLeft("ليلى") == "\u{2068}ليلى\u{2069}")
        #expect(TextFacts.isolatedIfRightToLeft("שרה") == "\u{2068}שרה\u{2069}")
        #expect(TextFacts.isolatedIfRightToLeft("Alex") == "Alex")
        #expect(TextFacts.isolatedIfRightToLeft("陳美玲") == "陳美玲")
    }

    @Test func dayNames() {
        #expect(SiteWords.english.day(0) == "Thu 1 Jan 1970")
        #expect(SiteWords.english.day(-1) == "Wed 31 Dec 1969")
        var clock = LocalClock(zone: "Asia/Taipei")!
        #expect(clock.local(1_773_100_800).seconds == 8 * 3600)  // 2026-03-10T00:00Z is 08:00 in Taipei
    }

    /// Every hour of two years read as libical reads each instant, in an order that jumps
    /// between months: a month is learned whole when its offset does not change in it.
    @Test(arguments: ["Europe/Berlin", "America/New_York", "Australia/Lord_Howe", "Asia/Taipei", "UTC"])
    func everyHourOfTwoYearsIsReadAsLibicalReadsIt(zone: String) {
        var clock = LocalClock(zone: zone)!
        let start = CivilDate.epoch(rfc3339: "2025-01-01T00:00:00Z")!
        var hours = Array(stride(from: start, to: start + 2 * 365 * 86400, by: 3600))
        var seed: UInt64 = 42
        for k in hours.indices.reversed() {  // shuffled, the same way each run
            seed = seed &* 6364136223846793005 &+ 1442695040888963407
            hours.swapAt(k, Int(seed >> 33) % (k + 1))
        }
        for epoch in hours {
            let t = ICalTime.local(epoch: epoch, zone: zone)!
            let (days, seconds) = clock.local(epoch)
            #expect(days == CivilDate.days(year: t.year, month: t.month, day: t.day) && seconds == t.hour * 3600 + t.minute * 60 + t.second,
                    "\(zone) \(CivilDate.rfc3339(epoch))")
        }
    }

    /// Days on which a zone changes its offset (by an hour, by half an hour, at midnight) read
    /// as libical reads each instant, every minute around the change, in any order.
    @Test(arguments: [("America/New_York", "2026-03-08T00:00:00Z"), ("Europe/London", "2026-10-25T00:00:00Z"),
                      ("Australia/Lord_Howe", "2026-04-04T12:00:00Z"), ("America/Havana", "2026-03-08T00:00:00Z"),
                      ("Asia/Taipei", "2026-03-08T00:00:00Z")])
    func aDayTheOffsetChangesOnIsReadMinuteByMinute(zone: String, day: String) {
        var clock = LocalClock(zone: zone)!
        let start = CivilDate.epoch(rfc3339: day)!
        var minutes = Array(stride(from: start - 86400, to: start + 2 * 86400, by: 60))
        minutes.swapAt(0, minutes.count / 2)  // the day is first seen in its middle
        for epoch in minutes {
            let t = ICalTime.local(epoch: epoch, zone: zone)!
            let expected = CivilDate.split(CivilDate.days(year: t.year, month: t.month, day: t.day) * 86400 + t.hour * 3600 + t.minute * 60 + t.second)
            let got = clock.local(epoch)
            #expect(got.days == expected.days && got.seconds == expected.seconds, "\(zone) at \(epoch)")
        }
    }
}
