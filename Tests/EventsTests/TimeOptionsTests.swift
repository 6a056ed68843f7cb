import ArgumentParser
import Testing
import Events

enum UTCOnly: NowOptionHelp, ZoneOptionHelp {
    static let nowHelp = "n"
    static let nowForm = NowForm.utc
    static let zoneHelp = "z"
}

enum AnyRFC3339: NowOptionHelp {
    static let nowHelp = "n"
    static let nowForm = NowForm.rfc3339
}

enum Local: NowOptionHelp {
    static let nowHelp = "n"
    static let nowForm = NowForm.local
}

/// What the command line would say: the error's message, or nil when the arguments parse.
func refusal<Options: ParsableArguments>(_ type: Options.Type, _ arguments: [String]) -> String? {
    do { _ = try type.parse(arguments) } catch { return type.message(for: error) }
    return nil
}

@Suite struct TimeOptionsTests {
    @Test func aZoneMustBeKnownAndDefaultsToTheSystems() throws {
        #expect(try ZoneOption<UTCOnly>.parse(["--zone", "Asia/Taipei"]).id == "Asia/Taipei")
        #expect(try ZoneOption<UTCOnly>.parse([]).id == EventGroup.systemZone())
        #expect(refusal(ZoneOption<UTCOnly>.self, ["--zone", "Mars/Base"]) == "--zone: unknown time zone 'Mars/Base'")
    }

    @Test func nowTakesTheTimesItsCommandSays() throws {
        #expect(try NowOption<UTCOnly>.parse(["--now", "2026-03-01T10:00:00Z"]).instant() == 1_772_359_200)
        #expect(refusal(NowOption<UTCOnly>.self, ["--now", "2026-03-01"]) == "--now: not an RFC 3339 UTC time: '2026-03-01'")

        #expect(try NowOption<AnyRFC3339>.parse(["--now", "2026-03-01"]).instant() == 1_772_323_200)
        #expect(refusal(NowOption<AnyRFC3339>.self, ["--now", "soon"]) == "--now: not an RFC 3339 time: 'soon'")

        let local = try NowOption<Local>.parse(["--now", "2026-03-01T10:00:00"])
        #expect(local.instant(in: "Asia/Taipei") == 1_772_330_400)
        #expect(refusal(NowOption<Local>.self, ["--now", "2026-03-01T10:00"]) == "--now: not a time: '2026-03-01T10:00'")

        #expect(try NowOption<Local>.parse([]).instant(in: "Asia/Taipei") == nil)
    }
}
