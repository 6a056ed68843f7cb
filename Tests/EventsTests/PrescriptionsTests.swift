import Testing
import CivilTime
@testable import Events

/// Prescription notices read into reminders (issue 46).
struct PrescriptionsTests {
    let reader = Prescriptions(words: .builtIn)
    let dates = TextAppointments(words: .builtIn)
    let sent = CivilDate.days(year: 2026, month: 3, day: 5)  // a Thursday

    func find(_ text: String, subject: String? = nil, sender: String? = nil) -> Prescriptions.Found? {
        reader.find(in: text, subject: subject, sender: sender, sent: sent, dates: dates)
    }

    func day(_ d: Int) -> Int { CivilDate.days(year: 2026, month: 3, day: d) }

    @Test func collectAndReorderWithTheDayAndThePharmacy() {
        let boots = find("Your prescription is ready to collect from Boots, High Street, Elmfield.\nPlease collect it by 14 March 2026.")
        #expect(boots?.prescription == "collect" && boots?.day == day(14) && boots?.location == "Boots, High Street, Elmfield")
        #expect(boots?.evidence == ["prescription_word", "collect_word", "deadline_word", "pharmacy"])
        let refill = find("Your prescription is due for a refill.\nRefill due: March 20, 2026.\nPickup at: Corner Drug Pharmacy, 415 Maple Ave")
        #expect(refill?.prescription == "reorder" && refill?.day == day(20) && refill?.location == "Corner Drug Pharmacy, 415 Maple Ave")
        let apotheke = find("Ihr Rezept liegt zur Abholung bereit in der Apotheke am Markt, Marktplatz 3.\nBitte bis zum 16.03.2026 abholen.")
        #expect(apotheke?.prescription == "collect" && apotheke?.day == day(16) && apotheke?.location == "Apotheke am Markt, Marktplatz 3")
        let tw = find("您的慢性處方箋第二次領藥期間已到，請於3月27日前至大樹藥局中正店（羅斯福路88號）領藥。")
        #expect(tw?.prescription == "reorder" && tw?.day == day(27) && tw?.location == "大樹藥局中正店（羅斯福路88號）")
        let ja = find("処方箋のお薬の準備ができました。\nさくら薬局 駅前店 にて3月19日までにお受け取りください。")
        #expect(ja?.prescription == "collect" && ja?.day == day(19) && ja?.location == "さくら薬局 駅前店")
    }

    @Test func thePharmacyFromTheSenderWhenTheTextNamesNone() {
        let found = find("Your repeat prescription is due. Please reorder by 25 March 2026.", sender: "MedsDirect Pharmacy")
        #expect(found?.location == "MedsDirect Pharmacy" && found?.prescription == "reorder")
        #expect(find("Your repeat prescription is due. Please reorder by 25 March 2026.", sender: "Dr Smith")?.location == nil)
    }

    @Test func noNoticeNoEvent() {
        // no date; a day gone by; no prescription word (a parcel); no word of collecting or reordering
        #expect(find("Your prescription is ready to collect from Boots.") == nil)
        #expect(find("Your prescription was ready to collect by 2 March 2026.") == nil)
        #expect(find("Your parcel is ready to collect from the Post Office by 14 March 2026.") == nil)
        #expect(find("Prescription charges rise on 1 April 2026.") == nil)
    }

    @Test func careSubjects() {
        #expect(reader.isCareSubject("Appointment reminder: Elmfield Surgery"))
        #expect(reader.isCareSubject("慢性處方箋領藥提醒"))
        #expect(!reader.isCareSubject("Meetup") && !reader.isCareSubject(nil))
    }

    @Test func wordsAsWords() {
        #expect(Prescriptions.containsWord("collect it by 14 march", "by"))
        #expect(!Prescriptions.containsWord("goodbye 14 march", "by"))
        #expect(Prescriptions.containsWord("3月27日前至", "前"))
    }
}
