import Testing
@testable import ICalendar

/// event-extract adds a DURATION to DTSTART as libical's icaltime_add does, without its walk a
/// month at a time: the same fields for every wall clock and duration.
@Suite struct DurationArithmeticTests {
    func same(_ duration: String, _ fields: [Int32], isDate: Bool = false) {
        let ours = ICalendarReader.add(duration: duration, to: fields, isDate: isDate, byLibical: false)
        let libical = ICalendarReader.add(duration: duration, to: fields, isDate: isDate, byLibical: true)
        #expect(ours == libical, "\(fields) + \(duration)")
    }

    @Test func ordinaryDurations() {
        for d in ["PT1H", "PT15M", "P1D", "P15DT5H0M20S", "-PT30M", "P2W", "-P1D", "PT0S", "PT36H", "P1DT23H59M61S"] {
            for t: [Int32] in [[2026, 3, 10, 9, 0, 0], [2024, 2, 28, 23, 30, 0], [2025, 12, 31, 23, 59, 59], [2026, 1, 1, 0, 0, 0]] {
                same(d, t)
                same(d, t, isDate: true)
            }
        }
    }

    @Test func hugeDurations() {
        // the first is python-icalendar's invalid_duration.ics; sscanf reads ten digits at most
        for d in ["P999999999999999999W", "P9999999999D", "-P999999999W", "-P2147483647D", "PT2147483647S", "-PT2147483647H",
                  "P306783378W", "P99999999DT99999999H"] {
            for t: [Int32] in [[2024, 1, 1, 0, 0, 0], [1601, 1, 1, 2, 0, 0], [1752, 2, 29, 12, 0, 0], [9999, 12, 31, 23, 59, 59]] {
                same(d, t)
                same(d, t, isDate: true)
            }
        }
    }

    @Test func fieldsOutOfRange() {
        for t: [Int32] in [[2024, 13, 1, 0, 0, 0], [2024, 0, 31, 0, 0, 0], [2024, -30, 0, 25, 61, 61], [0, 0, 0, 0, 0, 0],
                           [1700, 2, 29, 0, 0, 0], [1752, 14, 400, 0, 0, 0], [-5, 6, 1, 0, 0, 0], [2024, 2, 1000, -5, -70, -3600]] {
            for d in ["PT1H", "-P1D", "P400W", "-P100000W", "P100000W"] {
                same(d, t)
                same(d, t, isDate: true)
            }
        }
    }

    @Test func randomDurations() {
        var rng = SystemRandomNumberGenerator()
        for _ in 0..<3000 {
            let t: [Int32] = [Int32.random(in: -3000...12000, using: &rng), Int32.random(in: -30...30, using: &rng),
                              Int32.random(in: -100...400, using: &rng), Int32.random(in: -30...50, using: &rng),
                              Int32.random(in: -100...100, using: &rng), Int32.random(in: -100...100, using: &rng)]
            let sign = Bool.random(using: &rng) ? "-" : ""
            let big = Bool.random(using: &rng)
            let w = Int.random(in: 0...(big ? 3_000_000 : 60), using: &rng)
            let d = Int.random(in: 0...(big ? 20_000_000 : 400), using: &rng)
            let h = Int.random(in: 0...1000, using: &rng)
            same("\(sign)P\(w)W", t, isDate: Bool.random(using: &rng))
            same("\(sign)P\(d)DT\(h)H\(Int.random(in: 0...5000, using: &rng))M\(Int.random(in: 0...99999, using: &rng))S", t,
                 isDate: Bool.random(using: &rng))
        }
    }
}
