import Testing
import CivilTime
@testable import Events

/// Dates as the sender writes them (issue 46): which way round 08/04/2026 is read, and the
/// forms of Britain, Taiwan and Japan.
struct DayMonthOrderTests {
    let words = AppointmentWords.builtIn
    var reader: TextAppointments { TextAppointments(words: words) }
    /// Thursday 5 March 2026.
    let sent = CivilDate.days(year: 2026, month: 3, day: 5)

    func starts(_ text: String, _ order: DayMonthOrder? = nil) -> [String] {
        reader.read(text, sent: sent, senderOrder: { order }).found.map(\.startLocal)
    }

    func unread(_ text: String, _ order: DayMonthOrder? = nil) -> [String] {
        reader.read(text, sent: sent, senderOrder: { order }).unread.map(\.text)
    }

    @Test func contentLanguageByRegionThenLanguage() {
        #expect(words.order(contentLanguage: "en-GB") == .dayFirst)
        #expect(words.order(contentLanguage: "en-US") == .monthFirst)
        #expect(words.order(contentLanguage: "EN-au") == .dayFirst)
        #expect(words.order(contentLanguage: "de") == .dayFirst)
        #expect(words.order(contentLanguage: "de-DE, en") == .dayFirst)
        #expect(words.order(contentLanguage: "zh-TW") == .monthFirst)
        #expect(words.order(contentLanguage: "zh-Hant") == .monthFirst)
        #expect(words.order(contentLanguage: "zh") == .monthFirst)  // both Chinese agree
        #expect(words.order(contentLanguage: "es-419") == .dayFirst)
        #expect(words.order(contentLanguage: "en") == nil)
        #expect(words.order(contentLanguage: "en-CA") == nil)  // Canada writes both ways
        #expect(words.order(contentLanguage: "") == nil)
    }

    @Test func senderDomainByCountry() {
        #expect(words.order(senderAddress: "appointments@northfield-surgery.co.uk") == .dayFirst)
        #expect(words.order(senderAddress: "praxis@hausarzt.DE") == .dayFirst)
        #expect(words.order(senderAddress: "noreply@springfieldclinic.us") == .monthFirst)
        #expect(words.order(senderAddress: "service@clinic.com.tw") == .monthFirst)
        #expect(words.order(senderAddress: "desk@clinic.com") == nil)
        #expect(words.order(senderAddress: "desk@clinic.org") == nil)
        #expect(words.order(senderAddress: "no-at-sign") == nil)
    }

    @Test func wordsOfOneOrderOnly() {
        let found = Dictionary(words.orderWords().map { (String($0.text), $0.value) }, uniquingKeysWith: { a, _ in a })
        #expect(found["termin"] == 1 && found["rendez-vous"] == 1 && found["cita"] == 1)
        #expect(found["預約"] == 2 && found["予約"] == 2 && found["预约"] == 2)
        #expect(found["consultation"] == nil)  // English's too
        #expect(found["appointment"] == nil)
    }

    @Test func theSendersOrderReadsADigitDate() {
        let text = "Your appointment is confirmed for 08/04/2026 at 10:40."
        #expect(starts(text, .dayFirst) == ["2026-04-08T10:40:00"])
        #expect(starts(text, .monthFirst) == ["2026-08-04T10:40:00"])
        #expect(starts(text) == [] && unread(text) == ["08/04/2026"])
        // the text's own words when the sender says nothing
        #expect(starts("Ihr Termin am 08/04/2026 um 09:15 Uhr ist bestätigt.") == ["2026-04-08T09:15:00"])
        #expect(starts("Ihr Termin am 08/04/2026 um 09:15 Uhr ist bestätigt.", .monthFirst) == ["2026-08-04T09:15:00"])
        #expect(starts("您的洗牙預約已確認：4/8 上午10:00") == ["2026-04-08T10:00:00"])
        // and dashes, with a year
        #expect(starts("Your appointment is confirmed for 08-04-2026 at 10:40.", .dayFirst) == ["2026-04-08T10:40:00"])
        #expect(starts("Your appointment is confirmed for 10-12 at 10:40.", .dayFirst) == [])
    }

    @Test func aDateReadOneWayOnlyNeedsNoSignal() {
        #expect(starts("Your appointment is confirmed for 24/03/2026 at 11:00.") == ["2026-03-24T11:00:00"])
        #expect(starts("Your appointment is confirmed for 03/24/2026 at 11:00.", .dayFirst) == ["2026-03-24T11:00:00"])
        #expect(starts("Your appointment is confirmed for 04/04/2026 at 11:00.") == ["2026-04-04T11:00:00"])
        #expect(starts("Your appointment is confirmed for 2026/3/24 at 11:00.") == ["2026-03-24T11:00:00"])
        #expect(starts("Your appointment is booked for 06/05/26 at 9:30am.", .dayFirst) == ["2026-05-06T09:30:00"])
    }

    @Test func aWeekdayFittingOneReadingWinsOverTheSender() {
        // 8 April 2026 is a Wednesday, 4 August a Tuesday
        #expect(starts("Your appointment is confirmed for Wednesday 04/08/2026 at 10:00.", .dayFirst) == ["2026-04-08T10:00:00"])
        #expect(starts("Your appointment is confirmed for Tuesday 04/08/2026 at 10:00.") == ["2026-08-04T10:00:00"])
        #expect(starts("Your appointment is confirmed for Monday 04/08/2026 at 10:00.") == [])
        #expect(unread("Your appointment is confirmed for Monday 04/08/2026 at 10:00.") == [])
    }

    @Test func onlyAppointmentsLeaveDatesUnread() {
        #expect(unread("Lunch on 03/04 at 12:30 works for me.") == [])  // no booking word
        #expect(unread("Could we book an appointment on 03/04 at 12:30?") == [])  // a question
        #expect(unread("Your appointment was on 01/02/2026 at 10:00.") == [])  // both readings gone by
        #expect(unread("Your appointment is confirmed for 03/04/2026 at 10:30.\nAgain: 03/04/2026 at 10:30") == ["03/04/2026"])
    }

    @Test func dottedTimesWithTheirMarker() {
        #expect(starts("Your appointment is on Thursday 19 March at 2.20pm.") == ["2026-03-19T14:20:00"])
        #expect(starts("Your eye exam is booked: Monday 16 March, 9.40 am.") == ["2026-03-16T09:40:00"])
        #expect(starts("Your appointment is booked for Tues 31 March, 12.15pm.") == ["2026-03-31T12:15:00"])
        #expect(starts("Ihr Termin am Freitag, 27. März um 14.30 Uhr ist bestätigt.") == ["2026-03-27T14:30:00"])
        // without one a dot is a price or a version
        #expect(starts("Your appointment is confirmed for Thursday 19 March, 2.20 each.") == [])
    }

    @Test func minguoYears() {
        #expect(starts("您的門診預約已確認：115年3月24日 上午9:30") == ["2026-03-24T09:30:00"])
        #expect(starts("您已完成網路掛號：民國115年4月2日（星期四）下午2:00") == ["2026-04-02T14:00:00"])
        #expect(starts("您的預約已確認：115/3/24 下午3:15") == ["2026-03-24T15:15:00"])
        // three digits and slashes are Minguo only in a Chinese text
        #expect(starts("Your appointment is confirmed: 115/3/24 at 3:15 pm") == [])
        #expect(starts("ご予約が確定しました：115/3/24 午後3時") == [])
    }

    @Test func halvesOfTheDay() {
        #expect(starts("訂位成功：3月28日（六）晚上7點半，2位。") == ["2026-03-28T19:30:00"])
        #expect(starts("預約掛號完成：2026年4月9日 上午 8:30") == ["2026-04-09T08:30:00"])
        #expect(starts("ご予約が確定しました。3月30日（月）午後2時30分") == ["2026-03-30T14:30:00"])
        #expect(starts("診察のご予約：2026年4月14日 午前9時15分") == ["2026-04-14T09:15:00"])
    }

    /// The look at the bytes before anything is decoded lets the new forms through.
    @Test func theByteLookSeesTheNewForms() {
        let numbers = TimeAndDateBytes(words: words)
        func look(_ text: String) -> (times: [Int], dates: [Int]) { Array(text.utf8).withUnsafeBufferPointer { numbers.timesAndDates($0) } }
        for text in ["at 2.20pm", "9.40 am", "um 14.30 Uhr", "上午9:30"] { #expect(!look(text).times.isEmpty, "\(text)") }
        for text in ["on 24/03/2026", "115年3月24日", "115/3/24", "24-03-2026", "2026/3/24"] { #expect(!look(text).dates.isEmpty, "\(text)") }
        #expect(look("costs 2.20 each").times.isEmpty)
    }
}
