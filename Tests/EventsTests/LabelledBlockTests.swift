import Testing
import CivilTime
@testable import Events

/// A confirmation written as a block of labelled lines under the sentence that says what it is
/// (found by the held-out care mail of issue 46: the booking word three or four lines above the
/// date). These cases were written for the class, in other senders' words.
struct LabelledBlockTests {
    let reader = TextAppointments(words: .builtIn)
    /// Thursday 5 March 2026.
    let sent = CivilDate.days(year: 2026, month: 3, day: 5)

    func starts(_ text: String) -> [String] { reader.find(in: text, sent: sent).map(\.startLocal) }

    @Test func englishBlockUnderTheSentence() {
        #expect(starts("""
            We have reserved the following appointment for you:

            Client: Rosa Delgado
            Therapist: Imogen Hart
            Date: Friday 20 March 2026
            Time: 11:15
            """) == ["2026-03-20T11:15:00"])
        #expect(starts("""
            Your booking is confirmed.

            Patient: Tom Price
            Clinician: Physio team
            Appointment time: Wednesday, March 25, 2026 at 2:00 PM
            """) == ["2026-03-25T14:00:00"])
    }

    @Test func germanFrenchChineseJapaneseBlocks() {
        #expect(starts("""
            wir haben folgenden Termin für Sie eingetragen:

            Name: Petra Albers
            Behandlung: Krankengymnastik
            Datum: Mittwoch, 18. März 2026
            Uhrzeit: 16:45 Uhr
            """) == ["2026-03-18T16:45:00"])
        #expect(starts("""
            Votre rendez-vous est confirmé.

            Patient : Luc Marchand
            Praticien : Dr Aubert
            Date : jeudi 26 mars 2026 à 09:20
            """) == ["2026-03-26T09:20:00"])
        #expect(starts("""
            您的預約資料如下：

            姓名：林美玲
            科別：眼科
            日期：2026年3月27日（星期五）
            時間：下午2:30
            """) == ["2026-03-27T14:30:00"])
        #expect(starts("""
            以下の内容でご予約を承りました。

            お名前：佐藤 健
            担当：山本
            日時：2026年3月28日（土）11:00
            """) == ["2026-03-28T11:00:00"])
    }

    @Test func aBlockWithNoBookingWordAboveIsNoAppointment() {
        #expect(starts("""
            Thank you for your order.

            Order: 55120
            Item: Garden chair
            Date: Friday 20 March 2026
            Time: 11:15
            """).isEmpty)
        // the sentence is above the block's two-line reach: a block is at most six lines
        #expect(starts("""
            Your appointment history is below.

            A: 1
            B: 2
            C: 3
            D: 4
            E: 5
            F: 6
            G: 7
            Date: Friday 20 March 2026 at 11:15
            """).isEmpty)
    }
}
