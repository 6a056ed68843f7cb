#if canImport(Glibc)
import Glibc
#endif
import Hashing
import JSONLines
import UnicodeServices
import UnixFilter

/// Every word the site shows, by its key in words/*.json. To add one: a case here, its English
/// in words/en.json (without it the built-in words do not load and ChatSiteTests fails), its
/// translations in the other files (a translation without it shows the English, and
/// ChatSiteTests lists it). Templates name a word as `{{@key}}`.
public enum SiteWord: String, CaseIterable, Sendable {
    // the sections and their pages
    case section_chats, section_today, section_newsletters, section_lists, section_parcels, section_events, section_archived,
         section_earlier_parcels
    case page_of, skip_to_content, sections_label, pages_label, newer, older, previous, next
    case nothing, nothing_here, no_parcels, no_earlier_parcels, no_events
    // conversations and their lists
    case delivery_notices, notes_to_self, newsletter, you, unread, messages_after_count
    // the Today page and the calendar
    case today, tomorrow, upcoming, past, subscribe_calendar
    // parcels
    case parcels_waiting, parcels_on_the_way, parcels_in_trouble, parcels_done, earlier, earlier_parcels_link
    case parcel, parcel_pick_up_at, parcel_by, parcel_pick_up_by, parcel_code, parcel_expected
    case parcel_duty_to_pay, parcel_pay_by, parcel_pay_on_delivery, parcel_shop, parcel_order
    case status_info_received, status_in_transit, status_out_for_delivery, status_available_for_pickup, status_attempt_failed,
         status_delivered, status_picked_up, status_returned, status_exception
    // events
    case event, join_online, no_title, event_cancelled, event_tentative, repeats, repeats_daily, repeats_weekly, repeats_monthly,
         repeats_yearly
    // a message's bubble
    case forwarded, pictures, attachments, reactions, open_whole_message, message_from, back_to_conversation, show_quoted_text,
         show_signature, show_quoted_text_and_signature, sending, not_sent
    case forwarded_message, forward_from, forward_date, forward_subject, forward_to, forwarded_pictures, forwarded_attachments
    case attachment, image_type, download
    case reaction_and_more, reaction_from
    case read_by, not_read_by, delivered_to, not_delivered_yet_to, not_delivered_to, a_recipient
    // dates: an ICU pattern or skeleton each
    case date_day, date_short_day, date_time, day_and_time

    public enum Kind: Sendable { case text, plural, date }

    public var kind: Kind {
        switch self {
        case .messages_after_count, .earlier_parcels_link: .plural
        case .date_day, .date_short_day, .date_time: .date
        default: .text
        }
    }
}

/// The site's words in every language they are written in: the built-in files (words/*.json)
/// and the user's (`$XDG_CONFIG_HOME/mailpipe/site-words.json`, or the `*.json` of a folder
/// `site-words`), which add languages or change words. A file is a JSON object of languages
/// (BCP 47 tags), each an object of words by key:
///
///     {"de": {"section_chats": "Chats", "read_by": "Gelesen von {person}",
///             "messages_after_count": {"one": "Nachricht", "other": "Nachrichten"},
///             "date_day": {"skeleton": "yMMMdEEE"}}}
///
/// A text may hold `{name}` places the site fills; a plural word has a text per CLDR plural
/// category ("other" always); a date an ICU pattern or a skeleton the language's pattern is
/// found for. A key the site does not know, or a value of the wrong shape, is an error.
public struct SiteWordCatalog: Sendable, ExtensibleData {
    public enum Entry: Sendable, Equatable {
        case text(String)
        case plural([String: String])
        case pattern(String)
        case skeleton(String)
    }

    /// The words of each language, by tag as the files write it.
    public private(set) var languages: [String: [SiteWord: Entry]] = [:]

    public struct FileError: Error, CustomStringConvertible {
        public var description: String
    }

    /// The built-in files, by the language each holds.
    static let builtInFiles: [(language: String, json: [UInt8])] = [
        ("en", PackageResources.en_json), ("de", PackageResources.de_json), ("ja", PackageResources.ja_json),
        ("zh-Hans", PackageResources.zh_Hans_json), ("zh-Hant", PackageResources.zh_Hant_json),
    ]

    /// Every built-in language's words.
    public static let builtIn = builtIn(languages: builtInFiles.map(\.language))

    /// The built-in words of `languages` and of English (whose words stand in for any missing):
    /// a run reads only the files of the language it shows.
    static func builtIn(languages: some Sequence<String>) -> SiteWordCatalog {
        let wanted = Set(languages).union(["en"])
        var catalog = SiteWordCatalog()
        for file in builtInFiles where wanted.contains(file.language) {
            do { try catalog.add(json: file.json) } catch { fatalError("built-in site words: \(error)") }
        }
        if let missing = catalog.missing(in: "en").first { fatalError("built-in site words: en has no '\(missing.rawValue)'") }
        return catalog
    }

    /// The built-in words, then the user's site-words.json (or the files of a folder site-words).
    public static func load(_ diagnostics: Diagnostics) throws -> SiteWordCatalog {
        try DataFiles.extend(builtIn, user: userFiles, extra: [], diagnostics: diagnostics)
    }

    static let userFiles = ["site-words.json", "site-words"]

    /// `other`'s words over these.
    mutating func add(_ other: SiteWordCatalog) {
        for (language, words) in other.languages {
            for (word, entry) in words { languages[language, default: [:]][word] = entry }
        }
    }

    public init() {}

    public mutating func add(json: [UInt8]) throws(FileError) {
        let root: JSONValue
        do { root = try JSONValue.parse(json) } catch { throw FileError(description: error.description) }
        guard case .object(let members) = root else { throw FileError(description: "expected a JSON object of languages") }
        for (tag, words) in members where tag != "comment" {
            guard SiteWords.isLanguageTag(tag) else { throw FileError(description: "'\(tag)': not a language tag (BCP 47, as zh-Hant or de)") }
            guard case .object(let entries) = words else { throw FileError(description: "\(tag): expected an object of words") }
            let language = SiteWords.canonical(tag)
            for (key, value) in entries where key != "comment" {
                guard let word = SiteWord(rawValue: key) else { throw FileError(description: "\(tag): unknown word '\(key)'") }
                languages[language, default: [:]][word] = try Self.entry(value, of: word, in: tag)
            }
        }
    }

    private static func entry(_ value: JSONValue, of word: SiteWord, in tag: String) throws(FileError) -> Entry {
        let key = word.rawValue
        switch word.kind {
        case .text:
            guard let text = value.stringValue else { throw FileError(description: "\(tag): \(key): expected a string") }
            return .text(text)
        case .plural:
            guard case .object(let forms) = value, !forms.isEmpty else {
                throw FileError(description: "\(tag): \(key): expected an object of plural forms (\"one\", \"other\"…)")
            }
            var texts: [String: String] = [:]
            for (category, text) in forms {
                guard ["zero", "one", "two", "few", "many", "other"].contains(category), let text = text.stringValue else {
                    throw FileError(description: "\(tag): \(key): '\(category)' is not a plural category with a string")
                }
                texts[category] = text
            }
            guard texts["other"] != nil else { throw FileError(description: "\(tag): \(key): has no \"other\" form") }
            return .plural(texts)
        case .date:
            if let pattern = value["pattern"]?.stringValue { return .pattern(pattern) }
            if let skeleton = value["skeleton"]?.stringValue { return .skeleton(skeleton) }
            throw FileError(description: "\(tag): \(key): expected {\"pattern\": …} or {\"skeleton\": …}")
        }
    }

    /// The words `language` does not have (English's are shown instead).
    public func missing(in language: String) -> [SiteWord] {
        let words = languages[SiteWords.canonical(language)] ?? [:]
        return SiteWord.allCases.filter { words[$0] == nil }
    }
}

/// The words of one language, chosen by `--lang` or the locale, the English ones in place of
/// those it lacks; its dates by ICU in that language, its plurals by CLDR's rules.
public final class SiteWords: @unchecked Sendable {
    /// The language's tag, as `<html lang>` says it.
    public let language: String
    private let entries: [SiteWordCatalog.Entry]
    private let plurals: PluralRules?
    private let dayFormat: DateFormat, shortDayFormat: DateFormat, clockFormat: DateFormat
    /// Of the language and every word: a site rendered in other words is rendered whole.
    public let fingerprint: String

    public static let english: SiteWords = {
        do { return try SiteWords(language: "en", catalog: .builtIn(languages: ["en"])) } catch { fatalError("built-in English words: \(error)") }
    }()

    public struct Failure: Error, CustomStringConvertible {
        public var description: String
    }

    /// The words of `language` (one the catalog has; else English's), each the catalog's English
    /// where the language has none.
    public init(language: String, catalog: SiteWordCatalog) throws(Failure) {
        let language = catalog.languages[language] != nil ? language : "en"
        self.language = language
        let own = catalog.languages[language] ?? [:], english = catalog.languages["en"] ?? [:]
        var entries: [SiteWordCatalog.Entry] = []
        var all = language
        for word in SiteWord.allCases {
            guard let entry = own[word] ?? english[word] else { throw Failure(description: "no English for '\(word.rawValue)'") }
            entries.append(entry)
            all += "\n" + word.rawValue + "=" + entry.fingerprintText
        }
        self.entries = entries
        fingerprint = SHA256.hex(Array(all.utf8))
        plurals = PluralRules(locale: language)
        // the skeletons' patterns from one generator
        let dates: [SiteWord] = [.date_day, .date_short_day, .date_time]
        var skeletons: [SiteWord: String] = [:]
        for word in dates { if case .skeleton(let s) = entries[word.index] { skeletons[word] = s } }
        let asked = dates.filter { skeletons[$0] != nil }
        let found = Dictionary(uniqueKeysWithValues: zip(asked, DateFormat.bestPatterns(locale: language, skeletons: asked.map { skeletons[$0]! })))
        func date(_ word: SiteWord) throws(Failure) -> DateFormat {
            let pattern: String?
            switch entries[word.index] {
            case .pattern(let p): pattern = p
            case .skeleton(let s):
                guard let p = found[word] ?? nil else { throw Failure(description: "\(language): \(word.rawValue): ICU has no date pattern for the skeleton '\(s)'") }
                pattern = p
            default: pattern = nil
            }
            guard let pattern else { throw Failure(description: "\(language): \(word.rawValue) is no date") }
            do throws(DateFormat.Failure) { return try DateFormat(locale: language, pattern: pattern) } catch {
                throw Failure(description: "\(language): \(word.rawValue): \(error.description)")
            }
        }
        dayFormat = try date(.date_day)
        shortDayFormat = try date(.date_short_day)
        clockFormat = try date(.date_time)
    }

    /// The words for `--lang` (nil: the locale), from the built-in and the user's files.
    public static func chosen(lang: String?, _ diagnostics: Diagnostics) throws -> SiteWords {
        let user = try DataFiles.extend(SiteWordCatalog(), user: SiteWordCatalog.userFiles, extra: [], diagnostics: diagnostics)
        let tag = lang ?? localeTag(environment: { getenv($0).map { String(cString: $0) } })
        let language = resolve(tag ?? "en", available: Set(SiteWordCatalog.builtInFiles.map(\.language)).union(user.languages.keys))
        if language == "en" && user.languages.isEmpty { return english }  // made once, as ChatRender's default
        var catalog = SiteWordCatalog.builtIn(languages: [language])
        catalog.add(user)
        do {
            return try SiteWords(language: language, catalog: catalog)
        } catch {
            diagnostics.error(error.description)
            throw Exit(.dataError)
        }
    }

    // MARK: choosing the language

    /// The language of the locale, as POSIX orders its variables: LC_ALL, else LC_MESSAGES,
    /// else LANG (the first set and not empty); "de_DE.UTF-8@euro" is "de-DE"; nil for C and
    /// POSIX or none.
    public static func localeTag(environment: (String) -> String?) -> String? {
        for name in ["LC_ALL", "LC_MESSAGES", "LANG"] {
            guard let value = environment(name), !value.isEmpty else { continue }
            var locale = Substring(value)
            if let cut = locale.firstIndex(where: { $0 == "." || $0 == "@" }) { locale = locale[..<cut] }
            if locale == "C" || locale == "POSIX" || locale.isEmpty { return nil }
            return String(locale.map { $0 == "_" ? "-" : $0 })
        }
        return nil
    }

    /// The language of `available` a tag asks for: the tag itself, then Chinese by its script
    /// (zh-TW, zh-HK, zh-MO and zh-Hant… are zh-Hant; zh and every other zh zh-Hans), then
    /// shorter forms of it ("de-AT" is "de"); English when none is there.
    public static func resolve(_ tag: String, available: Set<String>) -> String {
        let canonicalTag = canonical(tag)
        var subtags = canonicalTag.split(separator: "-").map(String.init)
        var candidates: [String] = []
        if subtags.first == "zh" {
            let traditional = subtags.dropFirst().contains { ["Hant", "TW", "HK", "MO"].contains($0) }
                && !subtags.contains("Hans")
            candidates.append(canonicalTag)
            candidates.append(traditional ? "zh-Hant" : "zh-Hans")
        }
        while !subtags.isEmpty {
            candidates.append(subtags.joined(separator: "-"))
            subtags.removeLast()
        }
        return candidates.first { available.contains($0) } ?? "en"
    }

    /// A tag as BCP 47 cases it: the language lowercase, a script titlecase, a region uppercase
    /// ("ZH_hant_tw" is "zh-Hant-TW").
    static func canonical(_ tag: String) -> String {
        tag.split(whereSeparator: { $0 == "-" || $0 == "_" }).enumerated().map { k, part in
            if k == 0 { return part.lowercased() }
            if part.count == 4, part.allSatisfy(\.isLetter) { return part.prefix(1).uppercased() + part.dropFirst().lowercased() }
            if part.count == 2, part.allSatisfy(\.isLetter) { return part.uppercased() }
            return part.lowercased()
        }.joined(separator: "-")
    }

    static func isLanguageTag(_ tag: String) -> Bool {
        let parts = tag.split(separator: "-", omittingEmptySubsequences: false)
        guard let first = parts.first, (2...3).contains(first.count), first.allSatisfy({ $0.isASCII && $0.isLetter }) else { return false }
        return parts.dropFirst().allSatisfy { (1...8).contains($0.count) && $0.allSatisfy { $0.isASCII && ($0.isLetter || $0.isNumber) } }
    }

    // MARK: the words

    /// The word, its `{name}` places filled from `values`.
    public func text(_ word: SiteWord, _ values: KeyValuePairs<String, String> = [:]) -> String {
        guard case .text(let text) = entries[word.index] else { return word.rawValue }
        return values.isEmpty ? text : Self.fill(text, values)
    }

    /// The word, escaped for HTML.
    public func html(_ word: SiteWord, _ values: KeyValuePairs<String, String> = [:]) -> String {
        String(decoding: HTMLEscape.text(text(word, values)), as: UTF8.self)
    }

    /// The plural word's form for `count` (its `{n}`), other places filled from `values`.
    public func count(_ word: SiteWord, _ count: Int, _ values: KeyValuePairs<String, String> = [:]) -> String {
        guard case .plural(let forms) = entries[word.index] else { return word.rawValue }
        let category = plurals?.category(count) ?? (count == 1 ? "one" : "other")
        var text = forms[category] ?? forms["other"] ?? ""
        text = Self.fill(text, ["n": String(count)])
        return values.isEmpty ? text : Self.fill(text, values)
    }

    /// What a parcel's status says to a person: its word, or the status itself when it has none.
    public func parcelStatus(_ status: String) -> String {
        SiteWord(rawValue: "status_" + status).map { text($0) } ?? status
    }

    /// "Tue 10 Mar 2026" (English): a day as a conversation's separators and the cards show it.
    public func day(_ days: Int) -> String { dayFormat.format(seconds: days * 86400) }

    /// "10 Mar 2026" (English): a list's date.
    public func shortDay(_ days: Int) -> String { shortDayFormat.format(seconds: days * 86400) }

    /// "09:05" (English): a time of day, `seconds` after midnight.
    public func clock(_ seconds: Int) -> String { clockFormat.format(seconds: seconds) }

    /// A day and a time of it: "Tue 10 Mar 2026, 09:05" (English).
    public func dayAndTime(_ days: Int, _ seconds: Int) -> String {
        text(.day_and_time, ["day": day(days), "time": clock(seconds)])
    }

    static func fill(_ text: String, _ values: KeyValuePairs<String, String>) -> String {
        guard text.contains("{") else { return text }
        var out = ""
        var rest = Substring(text)
        while let open = rest.firstIndex(of: "{") {
            out += rest[..<open]
            guard let close = rest[open...].firstIndex(of: "}") else {
                out += rest[open...]
                return out
            }
            let name = rest[rest.index(after: open)..<close]
            if let value = values.first(where: { $0.key == name })?.value {
                out += value
            } else {
                out += rest[open...close]
            }
            rest = rest[rest.index(after: close)...]
        }
        return out + rest
    }
}

extension SiteWord {
    /// Its place in `allCases`.
    var index: Int { Self.indexes[self]! }
    private static let indexes: [SiteWord: Int] = Dictionary(uniqueKeysWithValues: allCases.enumerated().map { ($1, $0) })
}

extension SiteWordCatalog.Entry {
    /// (without reflection: interpolating an enum would cost chat-render's start a scan of
    /// every conformance in the program)
    var fingerprintText: String {
        switch self {
        case .text(let t): "t:" + t
        case .plural(let forms): "p:" + forms.sorted { $0.key < $1.key }.map { $0.key + "=" + $0.value }.joined(separator: "\u{1}")
        case .pattern(let p): "d:" + p
        case .skeleton(let s): "s:" + s
        }
    }
}
