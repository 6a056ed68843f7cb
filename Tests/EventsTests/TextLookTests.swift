import Testing
import CivilTime
@testable import Events

/// The text reader's byte-level look: what it finds must be what a plain reading finds, since
/// a miss here hides an appointment from the reader.
struct TextLookTests {
    let numbers = TimeAndDateBytes(words: AppointmentWords.builtIn)

    func times(_ text: String) -> [Int] {
        Array(text.utf8).withUnsafeBufferPointer { numbers.timesAndDates($0).times }
    }

    @Test func timesAsWritten() {
        for text in ["at 10:30", "15h", "3時", "9点", "下午3點", "10 am", "10pm", "14 Uhr", "9 du matin", "5 de la tarde", "7 P.M."] {
            #expect(!times("Your appointment " + text).isEmpty, "\(text)")
        }
        for text in ["10px", "2026", "1/2", "10 apples", "3.5", "room 12"] {
            #expect(times("Your appointment " + text).isEmpty, "\(text)")
        }
    }

    /// The eight-bytes-at-a-time skip against a byte-by-byte reading, on random bytes heavy in
    /// digits, separators and the bytes around the digits' range.
    @Test func skippingMissesNoDigit() {
        var rng = SystemRandomNumberGenerator()
        let alphabet = Array("0123456789:/.-h apm/\u{3A}\u{2F}\u{40}".utf8) + [0x39, 0x3A, 0x2F, 0x30, 0xE6, 0x99, 0x82, 0x00, 0xFF]
        for _ in 0..<2000 {
            let n = Int.random(in: 0..<40, using: &rng)
            var bytes = (0..<n).map { _ in Bool.random(using: &rng) ? alphabet.randomElement(using: &rng)! : UInt8.random(in: 0...255, using: &rng) }
            if Bool.random(using: &rng) { bytes = [UInt8](repeating: 0x41, count: Int.random(in: 0..<20, using: &rng)) + bytes }
            let found = bytes.withUnsafeBufferPointer { numbers.timesAndDates($0) }
            let expected = (1..<max(1, bytes.count)).filter { i in
                bytes[i - 1] &- 0x30 < 10 && bytes[i] &- 0x30 >= 10
                    && [UInt8(ascii: ":"), UInt8(ascii: "/"), UInt8(ascii: "."), UInt8(ascii: "-"), UInt8(ascii: "h"), UInt8(ascii: "H"), 0xE6, 0xE7, 0xE9, 0x20, 0x61, 0x70, 0x41, 0x50].contains(bytes[i])
            }
            // every place found is one a byte-by-byte reading looks at
            #expect(Set(found.times + found.dates).isSubset(of: Set(expected)), "\(bytes)")
            // and a time byte-by-byte is found
            let colonTimes = (1..<max(1, bytes.count - 1)).filter { bytes[$0 - 1] &- 0x30 < 10 && bytes[$0] == 0x3A && bytes[$0 + 1] &- 0x30 < 10 }
            #expect(Set(colonTimes).isSubset(of: Set(found.times)), "\(bytes)")
        }
    }

    @Test func wordsIgnoringASCIICase() {
        let finder = WordFinder(["appointment", "預約", "x"].map { Array($0.utf8) })
        func occurs(_ text: String) -> Bool { Array(text.utf8).withUnsafeBufferPointer { finder.occurs(in: $0, 0..<$0.count) } }
        #expect(occurs("Your APPOINTMENT is"))
        #expect(occurs("您的洗牙預約已確認"))
        #expect(occurs("X"))
        #expect(!occurs("appointmen"))
        #expect(!occurs("預"))
    }
}

struct MeetingLinksTests {
    @Test func theFirstLinkToAMeetingService() {
        #expect(MeetingLinks.first(in: "Agenda: https://example.com/a then https://us02web.ZOOM.us/j/123?pwd=x.") == "https://us02web.ZOOM.us/j/123?pwd=x")
        #expect(MeetingLinks.first(in: "連結：https://meet.google.com/abc-defg-hij（請準時）") == "https://meet.google.com/abc-defg-hij")
        #expect(MeetingLinks.first(in: "<https://teams.microsoft.com/l/meetup-join/19%3a>") == "https://teams.microsoft.com/l/meetup-join/19%3a")
        #expect(MeetingLinks.first(in: "https://notzoom.us/j/1 and https://zoom.us.evil.example/j/2") == nil)
        #expect(MeetingLinks.first(in: "http://zoom.us/j/1") == nil)
    }
}

/// RFC 3339 written into bytes agrees with the date and clock written as text, over the years
/// calendars use and the edges of a day.
@Test func rfc3339WrittenInBytes() {
    #expect(CivilDate.rfc3339(0) == "1970-01-01T00:00:00Z")
    #expect(CivilDate.rfc3339(1_773_136_799) == "2026-03-10T09:59:59Z")
    #expect(CivilDate.rfc3339(-1) == "1969-12-31T23:59:59Z")
    var rng = SystemRandomNumberGenerator()
    for _ in 0..<2000 {
        let epoch = Int.random(in: -62_135_596_800...253_402_300_799, using: &rng)  // years 1 to 9999
        let (days, secs) = CivilDate.split(epoch)
        #expect(CivilDate.rfc3339(epoch) == CivilDate.dateText(days: days) + "T" + CivilDate.clockText(seconds: secs) + "Z")
        #expect(CivilDate.epoch(rfc3339: CivilDate.rfc3339(epoch)) == epoch)
    }
}

/// The dates of records read back: a date is its midnight; anything but digits and the
/// separators in their places is no time.
@Test func rfc3339ReadBack() {
    #expect(CivilDate.epoch(rfc3339: "1970-01-01T00:00:00Z") == 0)
    #expect(CivilDate.epoch(rfc3339: "2024-02-29T12:00:00Z") == 1_709_208_000)
    #expect(CivilDate.epoch(rfc3339: "2024-02-29") == 1_709_164_800)
    for text in ["", "2024-02-29T12:00", "2024/02/29T12:00:00Z", "2024-13-01T00:00:00Z", "2024-02-29T1x:00:00Z"] {
        #expect(CivilDate.epoch(rfc3339: text) == nil)
    }
}
