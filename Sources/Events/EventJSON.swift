import JSONLines

/// An event as mailpipe(5) writes it: event-extract writes the `events` of a message, event-group
/// reads them back and writes them again with its own fields.
extension Event {
    /// The members of the event's object (without the braces).
    public func writeFields(_ w: inout JSONWriter) {
        w.field("uid", uid)
        w.field("recurrence_id", recurrenceID)
        w.field("sequence", sequence)
        w.field("dtstamp", dtstamp)
        w.field("method", method)
        w.field("status", status)
        w.field("summary", summary)
        w.field("description", description)
        w.field("location", location)
        w.field("url", url)
        w.field("start", start)
        w.field("end", end)
        w.field("all_day", allDay)
        w.field("time_zone", timeZone)
        w.field("start_local", startLocal)
        w.field("end_local", endLocal)
        w.key("recurrence")
        if let r = recurrence {
            w.beginObject()
            w.field("rule", r.rule)
            w.field("rdates", strings: r.rdates)
            w.field("exdates", strings: r.exdates)
            w.endObject()
        } else {
            w.null()
        }
        w.key("organizer")
        if let o = organizer { o.write(asAttendee: false, &w) } else { w.null() }
        w.key("attendees")
        w.beginArray()
        for a in attendees { a.write(asAttendee: true, &w) }
        w.endArray()
        w.key("forwarded_from")
        if let f = forwardedFrom { f.write(asAttendee: false, &w) } else { w.null() }
        w.field("source", source)
        w.field("kind", kind)
        w.field("reservation_number", reservationNumber)
        w.field("prescription", prescription)
        w.key("confidence")
        w.fraction(confidence)
        w.field("evidence", strings: evidence)
        w.field("defects", strings: defects)
    }

    /// An event object as event-extract wrote it; members it lacks keep their defaults.
    public init?(json v: JSONValue) {
        guard case .object = v else { return nil }
        func string(_ k: String) -> String? { v[k]?.stringValue }
        func strings(_ j: JSONValue?) -> [String] { j?.arrayValue?.compactMap(\.stringValue) ?? [] }
        uid = string("uid")
        recurrenceID = string("recurrence_id")
        sequence = v["sequence"]?.intValue ?? 0
        dtstamp = string("dtstamp")
        method = string("method")
        status = string("status")
        summary = string("summary")
        description = string("description")
        location = string("location")
        url = string("url")
        start = string("start")
        end = string("end")
        allDay = v["all_day"] == .bool(true)
        timeZone = string("time_zone")
        startLocal = string("start_local")
        endLocal = string("end_local")
        if let r = v["recurrence"], case .object = r {
            recurrence = Recurrence(rule: r["rule"]?.stringValue, rdates: strings(r["rdates"]), exdates: strings(r["exdates"]))
        }
        organizer = v["organizer"].flatMap(Person.init(json:))
        attendees = v["attendees"]?.arrayValue?.compactMap(Person.init(json:)) ?? []
        forwardedFrom = v["forwarded_from"].flatMap(Person.init(json:))
        source = string("source") ?? "icalendar"
        kind = string("kind") ?? "event"
        reservationNumber = string("reservation_number")
        prescription = string("prescription")
        if case .number(let c)? = v["confidence"], let value = Double(c) { confidence = value }
        evidence = strings(v["evidence"])
        defects = strings(v["defects"])
    }
}

extension Event.Person {
    /// An organizer is a name and an address; an attendee also has role, status and rsvp.
    func write(asAttendee: Bool, _ w: inout JSONWriter) {
        w.beginObject()
        w.field("name", name)
        w.field("address", address)
        if asAttendee {
            w.field("role", role)
            w.field("status", status)
            w.field("rsvp", rsvp)
        }
        w.endObject()
    }

    init?(json v: JSONValue) {
        guard let address = v["address"]?.stringValue else { return nil }
        self.init(name: v["name"]?.stringValue, address: address, role: v["role"]?.stringValue,
                  status: v["status"]?.stringValue, rsvp: v["rsvp"] == .bool(true))
    }
}
