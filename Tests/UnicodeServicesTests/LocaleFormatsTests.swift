import Testing
@testable import UnicodeServices

/// 2026-03-17 16:05 as wall-clock seconds (a Tuesday).
private let tuesday = 1_773_763_500

@Test func pluralCategoriesByLanguage() throws {
    for tag in ["en", "de"] {
        let rules = try #require(PluralRules(locale: tag))
        #expect(rules.category(1) == "one", "\(tag)")
        #expect(rules.category(0) == "other" && rules.category(2) == "other" && rules.category(21) == "other", "\(tag)")
    }
    for tag in ["ja", "zh-Hant", "zh-Hans", "zh-TW"] {
        let rules = try #require(PluralRules(locale: tag))
        #expect([0, 1, 2, 5, 100].allSatisfy { rules.category($0) == "other" }, "\(tag)")
    }
    // a language with more forms: Polish has "few" (2–4) and "many" (5–21)
    let polish = try #require(PluralRules(locale: "pl"))
    #expect(polish.category(1) == "one" && polish.category(3) == "few" && polish.category(5) == "many")
}

@Test func datePatternsFromSkeletonsPerLocale() throws {
    #expect(DateFormat.bestPattern(locale: "de", skeleton: "yMMMdEEE") == "EEE, d. MMM y")
    #expect(DateFormat.bestPattern(locale: "ja", skeleton: "yMMMdEEE") == "y年M月d日(EEE)")
    #expect(DateFormat.bestPattern(locale: "en-GB", skeleton: "yMMMd") == "d MMM y")
    #expect(DateFormat.bestPattern(locale: "en-US", skeleton: "yMMMd") == "MMM d, y")

    let cases: [(locale: String, skeleton: String, text: String)] = [
        ("de", "yMMMdEEE", "Di., 17. März 2026"),
        ("de", "EEEEdMMMM", "Dienstag, 17. März"),
        ("ja", "yMMMdEEE", "2026年3月17日(火)"),
        ("zh-Hant", "yMMMdEEE", "2026年3月17日 週二"),
        ("zh-Hans", "yMMMdEEE", "2026年3月17日周二"),
        ("en-GB", "EEEEdMMMM", "Tuesday, 17 March"),
        ("zh-Hant-TW", "jm", "下午4:05"),
        ("de", "jm", "16:05"),
        ("en-US", "jm", "4:05\u{202F}PM"),
    ]
    for c in cases {
        let format = try DateFormat(locale: c.locale, skeleton: c.skeleton)
        let text = format.format(seconds: tuesday)
        // ICU 72 writes a narrow no-break space before AM/PM; older data a space
        #expect(text == c.text || text == String(c.text.map { $0 == "\u{202F}" ? " " : $0 }), "\(c.locale) \(c.skeleton): \(text)")
    }
}

@Test func datePatternAsGiven() throws {
    let format = try DateFormat(locale: "en", pattern: "EEE d MMM y")
    #expect(format.pattern == "EEE d MMM y")
    #expect(format.format(seconds: tuesday) == "Tue 17 Mar 2026")
    #expect(try DateFormat(locale: "en", pattern: "HH:mm").format(seconds: 9 * 3600 + 5 * 60) == "09:05")
    // before 1970, and the first of a month
    #expect(try DateFormat(locale: "de", pattern: "d. MMMM y").format(seconds: -86400 * 365) == "1. Januar 1969")
}
