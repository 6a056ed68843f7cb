import Testing
@testable import ChatSite

struct SiteWordsTests {
    static let translations = ["de", "ja", "zh-Hant", "zh-Hans"]

    /// A word the site shows must have its English: the built-in words do not load without it.
    @Test func englishHasEveryWord() {
        #expect(SiteWordCatalog.builtIn.missing(in: "en").map(\.rawValue) == [])
    }

    /// The words a translation lacks (shown in English until someone writes them).
    @Test(arguments: translations) func translationsHaveEveryWord(_ language: String) {
        let missing = SiteWordCatalog.builtIn.missing(in: language).map(\.rawValue)
        #expect(missing == [], "words/\(language).json has no \(missing.joined(separator: ", ")): the pages show them in English")
    }

    /// Every key a built-in file writes is one the site knows (else the files would not load),
    /// and each language is a language of ICU's.
    @Test func everyLanguageLoadsWithItsDates() throws {
        for language in ["en"] + Self.translations {
            let words = try SiteWords(language: language, catalog: .builtIn)
            #expect(words.language == language)
            #expect(!words.day(20_529).isEmpty && !words.clock(3600).isEmpty)
        }
    }

    @Test func tagsResolveToTheLanguagesThereAre() {
        let available: Set<String> = ["en", "de", "ja", "zh-Hant", "zh-Hans"]
        let cases = [
            ("zh-TW", "zh-Hant"), ("zh_TW", "zh-Hant"), ("zh-HK", "zh-Hant"), ("zh-Hant", "zh-Hant"), ("zh-hant-tw", "zh-Hant"),
            ("zh", "zh-Hans"), ("zh-CN", "zh-Hans"), ("zh-SG", "zh-Hans"), ("zh-Hans-HK", "zh-Hans"),
            ("de-AT", "de"), ("DE", "de"), ("ja-JP", "ja"), ("en-GB", "en"), ("fr", "en"), ("x-klingon", "en"), ("", "en"),
        ]
        for (tag, language) in cases {
            #expect(SiteWords.resolve(tag, available: available) == language, "\(tag)")
        }
        // a language of the user's own, and a region of it
        #expect(SiteWords.resolve("fr-CA", available: available.union(["fr"])) == "fr")
        #expect(SiteWords.resolve("pt-BR", available: available.union(["pt", "pt-BR"])) == "pt-BR")
    }

    @Test func theLocaleIsReadInPosixOrder() {
        func tag(_ env: [String: String]) -> String? { SiteWords.localeTag { env[$0] } }
        #expect(tag(["LANG": "de_DE.UTF-8"]) == "de-DE")
        #expect(tag(["LANG": "de_DE.UTF-8", "LC_MESSAGES": "ja_JP.UTF-8"]) == "ja-JP")
        #expect(tag(["LANG": "de_DE", "LC_MESSAGES": "ja_JP", "LC_ALL": "zh_TW.Big5"]) == "zh-TW")
        #expect(tag(["LANG": "de_DE", "LC_ALL": ""]) == "de-DE")  // set but empty: the next
        #expect(tag(["LANG": "de_DE.UTF-8@euro"]) == "de-DE")
        #expect(tag(["LANG": "C.UTF-8"]) == nil && tag(["LC_ALL": "POSIX", "LANG": "de_DE"]) == nil && tag([:]) == nil)
    }

    @Test func pluralsFollowTheLanguage() throws {
        let en = SiteWords.english
        #expect(en.count(.messages_after_count, 1) == "message")
        #expect(en.count(.messages_after_count, 0) == "messages" && en.count(.messages_after_count, 2) == "messages")
        #expect(en.count(.earlier_parcels_link, 1, ["days": "60"]) == "1 parcel with no news for 60 days")
        #expect(en.count(.earlier_parcels_link, 3, ["days": "60"]) == "3 parcels with no news for 60 days")
        let de = try SiteWords(language: "de", catalog: .builtIn)
        #expect(de.count(.messages_after_count, 1) == "Nachricht" && de.count(.messages_after_count, 4) == "Nachrichten")
        let ja = try SiteWords(language: "ja", catalog: .builtIn)
        #expect(ja.count(.earlier_parcels_link, 1, ["days": "60"]) == "60日間更新のない荷物 1件")
    }

    @Test func datesAreTheLanguages() throws {
        let day = 20_529  // 2026-03-17, a Tuesday
        #expect(SiteWords.english.day(day) == "Tue 17 Mar 2026")
        #expect(SiteWords.english.shortDay(day) == "17 Mar 2026")
        #expect(SiteWords.english.clock(9 * 3600 + 5 * 60) == "09:05")
        #expect(SiteWords.english.dayAndTime(day, 16 * 3600) == "Tue 17 Mar 2026, 16:00")
        #expect(try SiteWords(language: "de", catalog: .builtIn).day(day) == "Di., 17. März 2026")
        #expect(try SiteWords(language: "ja", catalog: .builtIn).day(day) == "2026年3月17日(火)")
        let hant = try SiteWords(language: "zh-Hant", catalog: .builtIn)
        #expect(hant.day(day) == "2026年3月17日 週二")
        #expect(hant.dayAndTime(day, 16 * 3600 + 5 * 60) == "2026年3月17日 週二 下午4:05")
        #expect(try SiteWords(language: "zh-Hans", catalog: .builtIn).day(day) == "2026年3月17日周二")
    }

    @Test func placesAreFilledAndStatusesNamed() throws {
        let en = SiteWords.english
        #expect(en.text(.read_by, ["person": "Alex"]) == "Read by Alex")
        #expect(en.html(.message_from, ["name": "<b>"]) == "Message from &lt;b&gt;")
        #expect(SiteWords.fill("{a} and {b} {unknown} {", ["a": "1", "b": "2"]) == "1 and 2 {unknown} {")
        #expect(en.parcelStatus("available_for_pickup") == "Waiting for pickup")
        #expect(en.parcelStatus("a_status_nobody_named") == "a_status_nobody_named")
        #expect(try SiteWords(language: "zh-Hant", catalog: .builtIn).parcelStatus("available_for_pickup") == "待取件")
    }

    @Test func aUsersFileAddsALanguageAndIsCheckedAsStrictly() throws {
        var catalog = SiteWordCatalog.builtIn
        try catalog.add(json: Array(#"{"comment": "mine", "fr": {"today": "Aujourd’hui", "messages_after_count": {"one": "message", "other": "messages"}}}"#.utf8))
        let fr = try SiteWords(language: "fr", catalog: catalog)
        #expect(fr.text(.today) == "Aujourd’hui" && fr.text(.tomorrow) == "Tomorrow")  // English where it has none
        #expect(fr.count(.messages_after_count, 0) == "message")  // French counts 0 as one
        #expect(catalog.missing(in: "fr").count == SiteWord.allCases.count - 2)
        // and the site rendered in it is another site
        #expect(fr.fingerprint != SiteWords.english.fingerprint)

        let wrong = [
            #"{"fr": {"todya": "x"}}"#, #"{"fr": {"today": 3}}"#, #"{"fr": {"messages_after_count": {"one": "x"}}}"#,
            #"{"fr": {"messages_after_count": {"some": "x", "other": "y"}}}"#, #"{"fr": {"date_day": "EEE"}}"#,
            #"{"not a tag": {}}"#, #"["fr"]"#,
        ]
        for json in wrong {
            var c = SiteWordCatalog.builtIn
            #expect(throws: SiteWordCatalog.FileError.self, "\(json)") { try c.add(json: Array(json.utf8)) }
        }
    }

    @Test func templatesNameKnownWordsAndShowThemInTheLanguage() throws {
        #expect(throws: Template<PageField>.SyntaxError.self) {
            try Template<PageField>(name: "page.html", text: Array("<p>{{@no_such_word}}</p>".utf8))
        }
        let t = try Template<PageField>(name: "page.html", text: Array("<a title=\"{{@skip_to_content}}\">{{#title}}{{@section_chats}}{{/title}}</a>".utf8))
        var english: [UInt8] = []
        t.render(Fields<PageField>().values, into: &english)
        #expect(String(decoding: english, as: UTF8.self) == "<a title=\"Skip to the content\"></a>")
        var f = Fields<PageField>()
        f.set(.title, "x")
        var german: [UInt8] = []
        t.localized(try SiteWords(language: "de", catalog: .builtIn)).render(f.values, into: &german)
        #expect(String(decoding: german, as: UTF8.self) == "<a title=\"Zum Inhalt springen\">Chats</a>")
        let templates = SiteTemplates.builtIn.localized(try SiteWords(language: "ja", catalog: .builtIn))
        #expect(templates.language == "ja" && templates.fingerprint != SiteTemplates.builtIn.fingerprint)
    }
}
