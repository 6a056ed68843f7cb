#if canImport(Glibc)
import Glibc
#endif
import Events
import ICalendar
import JSONLines
import Testing
@testable import ChatSite

@Suite struct ReactionRowTests {
    /// A conversation record as conversation-group writes one, with reactions to message `m`.
    func conversation() throws -> ConversationSummary {
        try ConversationSummary(try JSONRecord(#"""
            {"conversation_id":"c1","participants":[{"name":"Alex Doe","address":"alex@x"},{"name":"Sam","address":"sam@x"}],
             "is_group":true,"message_count":1,"message_ids":["m"],"reports":[],
             "reactions":[
              {"message_id":"r1","of":"m","from":{"name":"Alex Doe","address":"Alex@X"},"from_me":false,"date":"2026-01-02T00:00:00Z","emoji":["👍"]},
              {"message_id":"r2","of":"m","from":{"name":"Me","address":"me@y"},"from_me":true,"date":"2026-01-02T01:00:00Z","emoji":["👍","<b>"]},
              {"message_id":"r3","of":"other","from":{"name":null,"address":"sam@x"},"from_me":false,"date":null,"emoji":["🎉"]},
              {"message_id":"r4","of":"m","from":{"name":null,"address":"sam@x"},"from_me":false,"date":null,"emoji":[]}
             ]}
            """#))
    }

    @Test func eachEmojiOnceWithItsCountAndWhoReacted() throws {
        let c = try conversation()
        #expect(c.reactions.values.map(\.count).reduce(0, +) == 3)  // one with no emoji is none
        #expect(c.reactions["m"]?.map(\.messageID) == ["r1", "r2"])
        let row = String(decoding: c.reactionRow(for: "m"), as: UTF8.self)
        #expect(row.components("class=\"reaction\"") == 2)
        #expect(row.contains("title=\"Alex Doe, You\""))  // a participant by the name the conversation shows, me as You
        #expect(row.contains("👍 <span class=\"reaction-count\">2</span>"))
        #expect(row.contains("<span class=\"visually-hidden\">👍 from Alex Doe, You</span>"))
        #expect(row.contains("&lt;b&gt;") && !row.contains("<b>"))  // a record's text is escaped
        #expect(c.reactionRow(for: "nobody").isEmpty)
    }

    @Test func manyPeopleAreCountedNotAllNamed() throws {
        let many = (0..<50).map { #"{"message_id":"r\#($0)","of":"m","from":{"name":"P\#($0)","address":"p\#($0)@x"},"emoji":["👍"]}"# }
        let c = try ConversationSummary(try JSONRecord(#"{"conversation_id":"c1","participants":[],"message_ids":["m"],"reactions":["# + many.joined(separator: ",") + "]}"))
        let row = String(decoding: c.reactionRow(for: "m"), as: UTF8.self)
        #expect(row.contains("👍 <span class=\"reaction-count\">50</span>"))
        #expect(row.contains("P19 and 30 more\"") && !row.contains("P20"))
    }

    @Test func theBubbleShowsItsReactions() throws {
        let root = "/tmp/mailpipe-reactions-\(getpid())"
        defer { _ = system("rm -rf '\(root)'") }
        let site = try SiteWriter(root: root, folders: ["c", "m"])
        let renderer = BubbleRenderer(templates: .builtIn, remoteImages: false, site: site, subjectPrefixes: .builtIn)
        var clock = try #require(LocalClock(zone: "UTC"))
        let c = try conversation()
        let record = try JSONRecord(#"{"id":"m","date":"2026-01-01T00:00:00Z","from":{"name":"Sam","address":"sam@x"},"text":"Lunch?"}"#)
        let html = String(decoding: try renderer.bubble(record, id: "m", epoch: 1_767_225_600, unread: false, fromMe: false, in: c,
                                                        conversationFile: c.file, clock: &clock), as: UTF8.self)
        #expect(html.contains("<ul class=\"reactions\" aria-label=\"Reactions\"><li class=\"reaction\""))
        let other = try JSONRecord(#"{"id":"n","date":"2026-01-01T00:00:00Z","from":{"name":"Sam","address":"sam@x"},"text":"Hi"}"#)
        let plain = String(decoding: try renderer.bubble(other, id: "n", epoch: 1_767_225_600, unread: false, fromMe: false, in: c,
                                                         conversationFile: c.file, clock: &clock), as: UTF8.self)
        #expect(!plain.contains("reactions"))
        try site.finish()
    }
}

@Suite struct CalendarFileTests {
    func tracked() throws -> [EventStore.Tracked] {
        func event(_ json: String) throws -> Event { try #require(Event(json: try JSONValue.parse(Array(json.utf8)))) }
        let mail = [
            EventMail(messageID: "a", date: "2026-05-01T09:00:00Z", conversationID: "c1", sender: "org@x", events: [
                try event(#"{"uid":"u1@x","sequence":2,"dtstamp":"2026-05-01T08:00:00Z","summary":"Dentist","location":"Main St 1","start":"2026-07-01T06:00:00Z","end":"2026-07-01T07:00:00Z","time_zone":"Europe/Berlin","start_local":"2026-07-01T08:00:00","end_local":"2026-07-01T09:00:00","status":"confirmed","attendees":[{"address":"me@y"}]}"#),
            ]),
            EventMail(messageID: "b0", date: "2026-05-01T10:00:00Z", conversationID: "c1", sender: "org@x", events: [
                try event(#"{"uid":"u2@x","method":"REQUEST","sequence":0,"summary":"Yoga","start":"2026-07-03T17:00:00Z","end":"2026-07-03T18:00:00Z","status":"confirmed"}"#),
            ]),
            EventMail(messageID: "b", date: "2026-05-02T09:00:00Z", conversationID: "c1", sender: "org@x", events: [
                try event(#"{"uid":"u2@x","method":"CANCEL","sequence":1,"summary":"Yoga","start":"2026-07-03T17:00:00Z","end":"2026-07-03T18:00:00Z","status":"cancelled"}"#),
            ]),
            EventMail(messageID: "c", date: "2026-05-03T09:00:00Z", conversationID: "c2", sender: "shop@x", events: [
                try event(#"{"source":"schema.org","kind":"restaurant","summary":"Table for two","start":"2026-07-04T18:00:00Z"}"#),
            ]),
        ]
        return EventStore(applying: mail).events
    }

    @Test func aCalendarToSubscribeToThatLibicalReadsBack() throws {
        let text = String(decoding: CalendarFile.bytes(try tracked()), as: UTF8.self)
        #expect(text.contains("METHOD:PUBLISH"))
        #expect(text.contains("PRODID:-//mailpipe//chat-render//EN"))
        #expect(!text.contains("ATTENDEE"))  // PUBLISH names no attendees
        let calendars = ICalendarReader.read(text)
        #expect(calendars.count == 1)
        let cal = try #require(calendars.first)
        #expect(cal.method == "PUBLISH")
        #expect(cal.events.count == 3)
        for e in cal.events {
            #expect(e.uid?.isEmpty == false)
            #expect(e.dtstamp?.utc != nil)
            #expect(e.start != nil)
            #expect(e.errors.isEmpty)
        }
        let dentist = try #require(cal.events.first { $0.uid == "u1@x" })
        #expect(dentist.start?.zone == "Europe/Berlin" && dentist.start?.hour == 8)
        #expect(dentist.start?.utc == 1_782_885_600)
        #expect(dentist.sequence == 2)
        #expect(dentist.property("SUMMARY") == "Dentist" && dentist.property("LOCATION") == "Main St 1")
        let yoga = try #require(cal.events.first { $0.uid == "u2@x" })
        #expect(yoga.status?.uppercased() == "CANCELLED" && yoga.sequence == 1)
        let table = try #require(cal.events.first { $0.property("SUMMARY") == "Table for two" })
        #expect(table.uid?.hasSuffix("@mailpipe") == true)
        #expect(table.dtstamp?.utc == 1_777_798_800)  // the date of the mail that set it
        // the same calendar, the same bytes (the file is rewritten only when it changes)
        #expect(CalendarFile.bytes(try tracked()) == CalendarFile.bytes(try tracked()))
    }
}

extension String {
    func components(_ needle: String) -> Int {
        var count = 0
        var rest = self[...]
        while let r = rest.firstRange(of: needle) {
            count += 1
            rest = rest[r.upperBound...]
        }
        return count
    }
}
