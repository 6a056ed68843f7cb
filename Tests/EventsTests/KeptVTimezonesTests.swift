import Testing
@testable import ICalendar

@Suite struct KeptVTimezones {
    @Test func onlyZonesWithYearlyRulesAreKept() {
        #expect(VTimezones.hasOnlyYearlyRules("BEGIN:VTIMEZONE\r\nRRULE:FREQ=YEARLY;BYMONTH=3\r\nRRULE:FREQ=YEARLY;BYMONTH=10\r\n"))
        #expect(VTimezones.hasOnlyYearlyRules("BEGIN:VTIMEZONE\r\nTZOFFSETTO:+0800\r\n"))
        #expect(!VTimezones.hasOnlyYearlyRules("RRULE:FREQ=YEARLY\r\nRRULE:FREQ=DAILY\r\n"))
    }
}
