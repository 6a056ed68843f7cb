import Testing
import JSONLines
@testable import Events

struct WrittenTimeTests {
    @Test func theShapesSendersWrite() throws {
        let cases: [(String, String, Int?)] = [
            ("2019-02-04T09:00:00+01:00", "2019-02-04T09:00:00", 3600),
            ("2019-02-04T09:00", "2019-02-04T09:00:00", nil),
            ("2019-02-04 09:00:00.000-0500", "2019-02-04T09:00:00", -18000),
            ("2017-06-15T14:00:00+0:00", "2017-06-15T14:00:00", 0),
            ("2017-06-15T14:00:00Z", "2017-06-15T14:00:00", 0),
            ("2017-06-15T14:00:00+05", "2017-06-15T14:00:00", 18000),
        ]
        for (text, local, offset) in cases {
            let t = try #require(WrittenTime(text), "\(text)")
            #expect(t.local == local && t.offset == offset && !t.isDate, "\(text)")
        }
        #expect(WrittenTime("2024-01-21")?.isDate == true)
    }

    @Test func whatIsNoTimeIsNil() {
        for text in ["02-02-2018 18:35", "2019-02-04T25:00", "2019-13-04", "2019-02-04T09:00+1:2", "2019-02-04T09:00 PST", "tomorrow"] {
            #expect(WrittenTime(text) == nil, "\(text)")
        }
    }

    @Test func theInstantIsByTheOffsetOrTheZoneGiven() {
        #expect(WrittenTime("2019-02-04T09:00:00+01:00")?.instant(floatingZone: nil) == 1_549_267_200)
        #expect(WrittenTime("2019-02-04T09:00:00")?.instant(floatingZone: nil) == nil)
        #expect(WrittenTime("2019-02-04T09:00:00")?.instant(floatingZone: "Europe/Zurich") == 1_549_267_200)
    }
}

struct SchemaOrgEventsTests {
    func events(_ json: String) throws -> [Event] {
        let value = try JSONValue.parse(Array(json.utf8))
        return SchemaOrgEvents.events(value.arrayValue ?? [value], floatingZone: nil)
    }

    @Test func aReservationWithoutWhatIsReservedStillNamesItsDefect() throws {
        let e = try #require(try events(#"{"@type":"LodgingReservation","reservationNumber":"1"}"#).first)
        #expect(e.kind == "lodging" && e.reservationNumber == "1" && e.defects == ["missing_start"])
    }

    @Test func anEndBeforeTheStartIsNamed() throws {
        let e = try #require(try events(#"{"@type":"Event","name":"x","startDate":"2026-01-02T10:00:00Z","endDate":"2026-01-02T09:00:00Z"}"#).first)
        #expect(e.defects == ["end_before_start"])
    }

    @Test func eventKindsAreEvents() throws {
        let found = try events(#"[{"@type":"MusicEvent","name":"a","startDate":"2026-01-02"},{"@type":"Order"},{"@type":"eventually"}]"#)
        #expect(found.map(\.summary) == ["a"])
        #expect(found[0].allDay && found[0].end == "2026-01-03")
    }

    @Test func statusesAreMapped() throws {
        let found = try events(#"[{"@type":"EventReservation","reservationStatus":"http://schema.org/ReservationPending","reservationFor":{"@type":"Event","name":"a","startDate":"2026-01-02"}},{"@type":"Event","eventStatus":"https://schema.org/EventCancelled","name":"b","startDate":"2026-01-02"}]"#)
        #expect(found.map(\.status) == ["tentative", "cancelled"])
    }
}
