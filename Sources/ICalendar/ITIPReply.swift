internal import CLibical
#if canImport(Glibc)
import Glibc
#endif

/// An attendee's answer to an invitation: the PARTSTAT of the reply.
public enum ParticipationAnswer: String, Sendable {
    case accepted, declined, tentative
}

/// Why an invitation cannot be answered.
public struct ITIPError: Error, CustomStringConvertible, Sendable {
    public var description: String
}

/// The iMIP REPLY (RFC 5546 section 3.2.3, RFC 6047) an attendee sends the organizer to accept,
/// decline or tentatively accept an invitation.
public struct ITIPReply: Sendable {
    /// The VCALENDAR to send (METHOD:REPLY): CRLF lines folded at 75 octets, never inside a
    /// UTF-8 character.
    public var calendar: String
    /// The organizer's address (no mailto:), where the reply goes.
    public var organizer: String
    public var organizerName: String?
    /// The event's SUMMARY (the recurring event's own, not an instance's), for the subject.
    public var summary: String?
    public var uid: String

    public static let productID = "-//mailpipe//mail-compose//EN"

    /// The reply of `attendee` (an address, with or without mailto:) to `invitation`, an
    /// iCalendar text with METHOD:REQUEST. A calendar without METHOD is answered too when it
    /// names an ORGANIZER and `attendee` among its ATTENDEEs: senders that mail a bare .ics of a
    /// meeting mean it as an invitation, and the reply only tells the organizer what the
    /// attendee tells. Any other METHOD (PUBLISH, CANCEL, REPLY, COUNTER…) is not an invitation.
    /// Of several VCALENDARs in the text, the first is answered.
    ///
    /// Each VEVENT of the invitation (a recurring event and its changed instances) gets one in
    /// the reply, with the same UID, SEQUENCE and RECURRENCE-ID, DTSTART, DTEND or DURATION, the
    /// recurrence, SUMMARY and LOCATION (as Thunderbird's and Outlook's replies keep them), the
    /// ORGANIZER as written, a DTSTAMP of `now` (seconds since 1970, UTC), the attendee's own
    /// ATTENDEE line alone with its PARTSTAT set and RSVP gone, and `comment` as COMMENT. The
    /// VTIMEZONEs those properties name come along. An instance that does not list the
    /// attendee is left out of the reply.
    ///
    /// RFC 5546 (section 2.1.5) lets someone who was not invited reply ("party crashers");
    /// mailpipe answers only invitations that name the attendee, and throws otherwise.
    public static func make(invitation: String, attendee: String, answer: ParticipationAnswer, comment: String?, now: Int) throws -> ITIPReply {
        LibICal.setUp
        guard let parsed = LibICal.quietly({ invitation.withCString { icalparser_parse_string($0) } }) else {
            throw ITIPError(description: "not an iCalendar object")
        }
        defer { icalcomponent_free(parsed) }
        var root: OpaquePointer? = parsed
        if icalcomponent_isa(parsed) == ICAL_XROOT_COMPONENT {
            root = icalcomponent_get_first_component(parsed, ICAL_VCALENDAR_COMPONENT)
        }
        guard let vcalendar = root, icalcomponent_isa(vcalendar) == ICAL_VCALENDAR_COMPONENT else {
            throw ITIPError(description: "not an iCalendar object: no VCALENDAR")
        }
        let method = icalcomponent_get_first_property(vcalendar, ICAL_METHOD_PROPERTY).flatMap(valueText)?.uppercased()
        if let method, method != "REQUEST" { throw ITIPError(description: "not an invitation: METHOD:\(method)") }

        let me = bareAddress(attendee)
        guard !me.isEmpty else { throw ITIPError(description: "no attendee address given") }

        let reply = icalcomponent_new(ICAL_VCALENDAR_COMPONENT)!
        defer { icalcomponent_free(reply) }
        icalcomponent_add_property(reply, icalproperty_new_prodid(productID))
        icalcomponent_add_property(reply, icalproperty_new_version("2.0"))
        if let calscale = icalcomponent_get_first_property(vcalendar, ICAL_CALSCALE_PROPERTY) {
            icalcomponent_add_property(reply, icalproperty_new_clone(calscale))
        }
        icalcomponent_add_property(reply, icalproperty_new_method(ICAL_METHOD_REPLY))

        var uid: String?
        var organizer: (address: String, name: String?)?
        var summary: String?
        var zonesUsed: Set<String> = []
        var events: [OpaquePointer] = []
        // the VEVENTs made before a throw, not yet in the reply
        defer { for v in events where icalcomponent_get_parent(v) == nil { icalcomponent_free(v) } }
        var eventCount = 0
        var c = icalcomponent_get_first_component(vcalendar, ICAL_VEVENT_COMPONENT)
        while let event = c {
            defer { c = icalcomponent_get_next_component(vcalendar, ICAL_VEVENT_COMPONENT) }
            eventCount += 1
            guard let eventUID = icalcomponent_get_first_property(event, ICAL_UID_PROPERTY).flatMap(valueText), !eventUID.isEmpty else {
                throw ITIPError(description: "an event of the invitation has no UID")
            }
            if let uid, uid != eventUID {
                throw ITIPError(description: "the invitation holds more than one meeting (UIDs \(uid) and \(eventUID))")
            }
            uid = eventUID
            guard let organizerLine = icalcomponent_get_first_property(event, ICAL_ORGANIZER_PROPERTY),
                  let organizerAddress = valueText(organizerLine).map(bareAddress), !organizerAddress.isEmpty else {
                // a calendar file with neither (an export, a published event) is no invitation
                throw ITIPError(description: method == nil ? "not an invitation: no METHOD and no ORGANIZER" : "the invitation has no ORGANIZER to reply to")
            }
            var mine: OpaquePointer?
            var a = icalcomponent_get_first_property(event, ICAL_ATTENDEE_PROPERTY)
            while let line = a, mine == nil {
                if valueText(line).map(bareAddress)?.lowercased() == me.lowercased() { mine = line }
                a = icalcomponent_get_next_property(event, ICAL_ATTENDEE_PROPERTY)
            }
            guard let mine else { continue }

            let isInstance = icalcomponent_get_first_property(event, ICAL_RECURRENCEID_PROPERTY) != nil
            if organizer == nil || !isInstance {
                organizer = (organizerAddress, commonName(organizerLine))
            }
            let eventSummary = icalcomponent_get_first_property(event, ICAL_SUMMARY_PROPERTY).flatMap(valueText)
            if summary == nil || !isInstance, let eventSummary { summary = eventSummary }

            let v = icalcomponent_new(ICAL_VEVENT_COMPONENT)!
            events.append(v)
            // DTEND and DURATION both (as in Thunderbird's test invitations) RFC 5545 forbids: DTEND is kept
            let hasEnd = icalcomponent_get_first_property(event, ICAL_DTEND_PROPERTY) != nil
            var p = icalcomponent_get_first_property(event, ICAL_ANY_PROPERTY)
            var hasSequence = false
            while let property = p {
                defer { p = icalcomponent_get_next_property(event, ICAL_ANY_PROPERTY) }
                switch icalproperty_isa(property) {
                case ICAL_DURATION_PROPERTY where hasEnd: break
                case ICAL_UID_PROPERTY, ICAL_SEQUENCE_PROPERTY, ICAL_RECURRENCEID_PROPERTY, ICAL_DTSTART_PROPERTY,
                     ICAL_DTEND_PROPERTY, ICAL_DURATION_PROPERTY, ICAL_RRULE_PROPERTY, ICAL_RDATE_PROPERTY,
                     ICAL_EXDATE_PROPERTY, ICAL_SUMMARY_PROPERTY, ICAL_LOCATION_PROPERTY:
                    if icalproperty_isa(property) == ICAL_SEQUENCE_PROPERTY { hasSequence = true }
                    if let tzid = icalproperty_get_first_parameter(property, ICAL_TZID_PARAMETER).flatMap(icalparameter_get_tzid) {
                        zonesUsed.insert(String(cString: tzid))
                    }
                    icalcomponent_add_property(v, icalproperty_new_clone(property))
                default: break
                }
            }
            if !hasSequence { icalcomponent_add_property(v, icalproperty_new_sequence(0)) }
            let stamp = icaltime_from_timet_with_zone(time_t(now), 0, icaltimezone_get_utc_timezone())
            icalcomponent_add_property(v, icalproperty_new_dtstamp(stamp))
            icalcomponent_add_property(v, icalproperty_new_clone(organizerLine))
            let answerLine = icalproperty_new_clone(mine)!
            // libical removes only the first parameter of a kind per call
            for kind in [ICAL_PARTSTAT_PARAMETER, ICAL_RSVP_PARAMETER] {
                while icalproperty_get_first_parameter(answerLine, kind) != nil { icalproperty_remove_parameter_by_kind(answerLine, kind) }
            }
            icalproperty_add_parameter(answerLine, icalparameter_new_from_string("PARTSTAT=" + answer.rawValue.uppercased()))
            icalcomponent_add_property(v, answerLine)
            if let comment, !comment.isEmpty { icalcomponent_add_property(v, icalproperty_new_comment(comment)) }
        }
        guard eventCount > 0 else { throw ITIPError(description: "the invitation holds no event") }
        guard let uid, let organizer, !events.isEmpty else {
            throw ITIPError(description: "\(me) is not among the invitation's attendees")
        }

        var z = icalcomponent_get_first_component(vcalendar, ICAL_VTIMEZONE_COMPONENT)
        var zonesGiven = Set<String>()
        while let zone = z {
            if let tzid = icalcomponent_get_first_property(zone, ICAL_TZID_PROPERTY).flatMap(valueText), zonesUsed.contains(tzid) {
                icalcomponent_add_component(reply, icalcomponent_new_clone(zone))
                zonesGiven.insert(tzid)
            }
            z = icalcomponent_get_next_component(vcalendar, ICAL_VTIMEZONE_COMPONENT)
        }
        // RFC 5546 wants a VTIMEZONE for each TZID: an invitation that names an IANA zone
        // without one (as Google's often do) gets libical's, under the name the events use
        for tzid in zonesUsed.subtracting(zonesGiven).sorted() {
            guard let zone = LibICal.builtinZone(tzid), let component = icaltimezone_get_component(zone),
                  let copy = icalcomponent_new_clone(component) else { continue }
            if let property = icalcomponent_get_first_property(copy, ICAL_TZID_PROPERTY) { icalproperty_set_tzid(property, tzid) }
            icalcomponent_add_component(reply, copy)
        }
        for v in events { icalcomponent_add_component(reply, v) }
        guard let text = icalcomponent_as_ical_string_r(reply) else { throw ITIPError(description: "libical could not write the reply") }
        defer { icalmemory_free_buffer(text) }
        return ITIPReply(calendar: String(cString: text), organizer: organizer.address, organizerName: organizer.name, summary: summary, uid: uid)
    }

    /// A calendar address without its mailto: (in any case) and surrounding space.
    private static func bareAddress(_ address: String) -> String {
        var a = Substring(address)
        while a.first == " " || a.first == "\t" { a.removeFirst() }
        while a.last == " " || a.last == "\t" { a.removeLast() }
        if a.lowercased().hasPrefix("mailto:") { a = a.dropFirst(7) }
        return String(a)
    }

    /// A property's value: the text itself for TEXT values (escapes undone), libical's writing
    /// of it otherwise.
    private static func valueText(_ p: OpaquePointer) -> String? {
        if let v = icalproperty_get_value(p), icalvalue_isa(v) == ICAL_TEXT_VALUE {
            return icalvalue_get_text(v).map { String(cString: $0) }
        }
        return icalproperty_get_value_as_string(p).map { String(cString: $0) }
    }

    private static func commonName(_ p: OpaquePointer) -> String? {
        icalproperty_get_first_parameter(p, ICAL_CN_PARAMETER).flatMap(icalparameter_get_cn).map { String(cString: $0) }
    }
}
