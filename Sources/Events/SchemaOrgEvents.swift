import CivilTime
import ICalendar
import JSONLines
import StructuredData

/// The events of a message's schema.org markup: reservations (each leg of a booking its own
/// event) and bare events, as Gmail's and KDE Itinerary's readers take them.
enum SchemaOrgEvents {
    /// The reservation types read, and the `kind` each gives.
    static let reservationKinds: [String: String] = [
        "EventReservation": "event", "FlightReservation": "flight", "LodgingReservation": "lodging",
        "FoodEstablishmentReservation": "restaurant", "RentalCarReservation": "rental_car",
        "TrainReservation": "train", "BusReservation": "bus", "BoatReservation": "boat", "TaxiReservation": "taxi",
    ]

    static func events(_ items: [JSONValue], floatingZone: String?) -> [Event] {
        var events: [Event] = []
        for item in items {
            let types = SchemaOrg.types(item)
            if let kind = types.lazy.compactMap({ reservationKinds[$0] }).first {
                let things = item["reservationFor"].map { $0.arrayValue ?? [$0] } ?? [.object([])]
                for thing in things {
                    events.append(reservation(item, of: thing, kind: kind, floatingZone: floatingZone))
                }
            } else if types.contains(where: isEventType) {
                events.append(bareEvent(item, floatingZone: floatingZone))
            }
        }
        return events
    }

    /// Event and its kinds (MusicEvent, BusinessEvent…); not a reservation's parts.
    static func isEventType(_ type: String) -> Bool { type == "Event" || (type.hasSuffix("Event") && type.first!.isUppercase) }

    static func bareEvent(_ item: JSONValue, floatingZone: String?) -> Event {
        var e = Event(source: "schema.org", kind: "event", evidence: ["schema.org"])
        e.summary = text(item["name"])
        e.description = text(item["description"])
        e.location = place(item["location"])
        e.url = onlineLink(item["location"])
        e.status = eventStatus(item["eventStatus"])
        setTimes(&e, start: text(item["startDate"]), end: text(item["endDate"]), floatingZone: floatingZone)
        return e
    }

    static func reservation(_ item: JSONValue, of thing: JSONValue, kind: String, floatingZone: String?) -> Event {
        var e = Event(source: "schema.org", kind: kind, evidence: ["schema.org"])
        e.reservationNumber = text(item["reservationNumber"]) ?? text(item["reservationId"])
        e.status = reservationStatus(item["reservationStatus"]) ?? eventStatus(thing["eventStatus"])
        var start: String?, end: String?
        switch kind {
        case "flight":
            let airline = text(thing["airline"]?["iataCode"]) ?? text(thing["airline"]?["name"])
            let number = [airline, text(thing["flightNumber"])].compactMap { $0 }.joined(separator: " ")
            e.summary = journey("Flight", number, from: thing["departureAirport"], to: thing["arrivalAirport"])
            e.location = place(thing["departureAirport"])
            start = text(thing["departureTime"]); end = text(thing["arrivalTime"])
        case "train", "bus", "boat":
            let noun = ["train": "Train", "bus": "Bus", "boat": "Boat"][kind]!
            let name = [text(thing["\(kind)Name"]), text(thing["\(kind)Number"])].compactMap { $0 }.joined(separator: " ")
            let from = thing["departureStation"] ?? thing["departureBusStop"] ?? thing["departureBoatTerminal"]
            let to = thing["arrivalStation"] ?? thing["arrivalBusStop"] ?? thing["arrivalBoatTerminal"]
            e.summary = journey(noun, name, from: from, to: to)
            e.location = place(from)
            start = text(thing["departureTime"]); end = text(thing["arrivalTime"])
        case "lodging":
            e.summary = text(thing["name"])
            e.location = place(thing)
            start = text(item["checkinTime"]) ?? text(item["checkinDate"])
            end = text(item["checkoutTime"]) ?? text(item["checkoutDate"])
        case "restaurant":
            e.summary = text(thing["name"])
            e.location = place(thing)
            start = text(item["startTime"]); end = text(item["endTime"])
        case "rental_car":
            let car = [text(thing["brand"]?["name"]) ?? text(thing["brand"]), text(thing["model"]) ?? text(thing["name"])]
            let name = car.compactMap { $0 }.joined(separator: " ")
            e.summary = "Rental car" + (name.isEmpty ? "" : ": " + name)
            e.location = place(item["pickupLocation"])
            start = text(item["pickupTime"]); end = text(item["dropoffTime"])
        case "taxi":
            e.summary = "Taxi"
            e.location = place(item["pickupLocation"])
            start = text(item["pickupTime"])
        default:  // event
            e.summary = text(thing["name"])
            e.description = text(thing["description"])
            e.location = place(thing["location"])
            e.url = onlineLink(thing["location"])
            start = text(thing["startDate"]) ?? text(item["startTime"]); end = text(thing["endDate"])
        }
        setTimes(&e, start: start, end: end, floatingZone: floatingZone)
        return e
    }

    /// "Flight LH 2029: TXL → MUC", from the stops' codes or names.
    static func journey(_ noun: String, _ name: String, from: JSONValue?, to: JSONValue?) -> String {
        func stop(_ v: JSONValue?) -> String? { text(v?["iataCode"]) ?? text(v?["name"]) ?? text(v) }
        var s = name.isEmpty ? noun : noun + " " + name
        let a = stop(from), b = stop(to)
        if a != nil || b != nil { s += ": " + (a ?? "?") + " → " + (b ?? "?") }
        return s
    }

    /// A place as one line: its name and its address ("Moscone Center, 800 Howard St., San
    /// Francisco"), or the text written.
    static func place(_ v: JSONValue?) -> String? {
        guard let v else { return nil }
        if case .string = v { return text(v) }
        if let list = v.arrayValue { return list.lazy.compactMap { place($0) }.first }
        if SchemaOrg.types(v).contains("VirtualLocation") { return nil }
        var parts: [String] = []
        if let name = text(v["name"]) { parts.append(name) }
        if let address = v["address"] {
            if case .string = address {
                if let a = text(address) { parts.append(a) }
            } else {
                for key in ["streetAddress", "postalCode", "addressLocality", "addressRegion", "addressCountry"] {
                    if let p = text(address[key]) ?? text(address[key]?["name"]), !parts.contains(p) { parts.append(p) }
                }
            }
        }
        return parts.isEmpty ? nil : parts.joined(separator: ", ")
    }

    /// The link of a VirtualLocation (an online event).
    static func onlineLink(_ v: JSONValue?) -> String? {
        guard let v else { return nil }
        if let list = v.arrayValue { return list.lazy.compactMap { onlineLink($0) }.first }
        guard SchemaOrg.types(v).contains("VirtualLocation"), let url = text(v["url"]), url.hasPrefix("http") else { return nil }
        return url
    }

    static func reservationStatus(_ v: JSONValue?) -> String? {
        guard let s = text(v) else { return nil }
        let name = s.split(separator: "/").last.map(String.init) ?? s
        switch name {
        case "Confirmed", "ReservationConfirmed": return "confirmed"
        case "Cancelled", "ReservationCancelled", "Canceled": return "cancelled"
        case "Pending", "ReservationPending", "ReservationHold", "Hold": return "tentative"
        default: return nil
        }
    }

    static func eventStatus(_ v: JSONValue?) -> String? {
        guard let s = text(v) else { return nil }
        switch s.split(separator: "/").last.map(String.init) ?? s {
        case "EventCancelled": return "cancelled"
        case "EventScheduled": return "confirmed"
        default: return nil
        }
    }

    static func text(_ v: JSONValue?) -> String? { SchemaOrg.text(v) }

    /// `start`/`end` from schema.org DateTime or Date text. A time with an offset is an instant
    /// (its wall clock kept in `start_local`, `time_zone` null: an offset names no zone); one
    /// without is floating; a date is all-day, and schema.org's end dates are the last day, so
    /// the exclusive `end` is the day after.
    static func setTimes(_ e: inout Event, start: String?, end: String?, floatingZone: String?) {
        guard let start else {
            e.defects.append("missing_start")
            return
        }
        guard let s = WrittenTime(start) else {
            e.defects.append("unreadable_start")
            return
        }
        e.allDay = s.isDate
        e.startLocal = s.local
        e.start = s.isDate ? s.local : s.instant(floatingZone: floatingZone).map(CivilDate.rfc3339)
        if s.offset == nil, !s.isDate, let floatingZone { e.timeZone = floatingZone }
        guard let end else {  // as RFC 5545 3.6.1 would have it: a date lasts the day, a time is an instant
            e.end = s.isDate ? dayAfter(s.local) : e.start
            e.endLocal = s.isDate ? e.end : e.startLocal
            return
        }
        guard let t = WrittenTime(end), t.isDate == s.isDate else {
            e.defects.append(WrittenTime(end) == nil ? "unreadable_end" : "mixed_date_and_date_time")
            return
        }
        if t.isDate {
            e.end = dayAfter(t.local)
            e.endLocal = e.end
        } else {
            e.end = t.instant(floatingZone: floatingZone).map(CivilDate.rfc3339)
            e.endLocal = t.local
        }
        if let a = e.start, let b = e.end, b < a { e.defects.append("end_before_start") }
    }

    static func dayAfter(_ date: String) -> String? { CivilDate.days(dateText: date).map { CivilDate.dateText(days: $0 + 1) } }
}

/// A schema.org Date or DateTime as senders write it: `2019-02-04`, `2019-02-04T09:00`,
/// `2019-02-04 09:00:00.000+01:00`, `…Z`, `…+0100`.
struct WrittenTime {
    var local: String  // YYYY-MM-DD or YYYY-MM-DDTHH:MM:SS
    var offset: Int?  // seconds east of UTC
    var isDate: Bool

    init?(_ text: String) {
        let b = Array(text.utf8)
        guard b.count >= 10, let days = CivilDate.days(dateText: text) else { return nil }
        if b.count == 10 {
            local = CivilDate.dateText(days: days)
            isDate = true
            return
        }
        isDate = false
        guard b[10] == UInt8(ascii: "T") || b[10] == UInt8(ascii: " "), b.count >= 16, b[13] == UInt8(ascii: ":"),
              let h = Self.number(b[11..<13]), let m = Self.number(b[14..<16]), h < 24, m < 60 else { return nil }
        var i = 16, s = 0
        if i + 3 <= b.count, b[i] == UInt8(ascii: ":"), let sec = Self.number(b[(i + 1)..<(i + 3)]), sec < 61 {
            s = min(sec, 59)
            i += 3
        }
        if i < b.count, b[i] == UInt8(ascii: ".") || b[i] == UInt8(ascii: ",") {
            i += 1
            while i < b.count, b[i] >= UInt8(ascii: "0"), b[i] <= UInt8(ascii: "9") { i += 1 }
        }
        local = CivilDate.dateText(days: days) + "T" + CivilDate.clockText(seconds: h * 3600 + m * 60 + s)
        if i == b.count { return }
        if b[i] == UInt8(ascii: "Z") || b[i] == UInt8(ascii: "z"), i + 1 == b.count {
            offset = 0
            return
        }
        guard b[i] == UInt8(ascii: "+") || b[i] == UInt8(ascii: "-") else { return nil }
        let zone = b[(i + 1)...].split(separator: UInt8(ascii: ":"), omittingEmptySubsequences: false)
        let hours: ArraySlice<UInt8>, minutes: ArraySlice<UInt8>
        if zone.count == 2 {  // +01:00, +1:00
            (hours, minutes) = (zone[0], zone[1])
        } else if zone.count == 1, zone[0].count == 4 || zone[0].count == 2 {  // +0100, +01
            (hours, minutes) = (zone[0].prefix(2), zone[0].dropFirst(2))
        } else {
            return nil
        }
        guard (1...2).contains(hours.count), minutes.count == 2 || minutes.isEmpty, let oh = Self.number(hours), oh <= 18 else { return nil }
        let om = minutes.isEmpty ? 0 : Self.number(minutes) ?? 99
        guard om < 60 else { return nil }
        offset = (b[i] == UInt8(ascii: "-") ? -1 : 1) * (oh * 3600 + om * 60)
    }

    /// The instant: by the offset written, else by reading the wall clock in `floatingZone`.
    func instant(floatingZone: String?) -> Int? {
        if let offset { return CivilDate.epoch(rfc3339: local).map { $0 - offset } }
        guard let floatingZone else { return nil }
        return ICalTime.local(local, zone: floatingZone)?.utc
    }

    private static func number(_ b: some Collection<UInt8>) -> Int? {
        var v = 0
        for c in b {
            guard c >= UInt8(ascii: "0"), c <= UInt8(ascii: "9") else { return nil }
            v = v * 10 + Int(c - UInt8(ascii: "0"))
        }
        return b.isEmpty ? nil : v
    }
}
