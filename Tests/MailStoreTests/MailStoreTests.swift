#if canImport(Glibc)
import Glibc
#endif
import JSONLines
import SQLite
import Testing
@testable import MailStore

/// A database in a fresh temporary folder, removed at the end.
final class TemporaryStore {
    let folder: String
    var path: String { folder + "/mail.db" }

    init() {
        var template = Array("/tmp/mailstore-test-XXXXXX".utf8CString)
        folder = template.withUnsafeMutableBufferPointer { String(cString: mkdtemp($0.baseAddress!)) }
    }

    deinit {
        for suffix in ["", "-wal", "-shm", "-journal", ".lock"] { unlink(path + suffix) }
        let attachments = path + ".attachments"
        if let dir = opendir(attachments) {
            while let entry = readdir(dir) {
                let name = withUnsafeBytes(of: entry.pointee.d_name) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
                if name != "." && name != ".." { unlink(attachments + "/" + name) }
            }
            closedir(dir)
            rmdir(attachments)
        }
        rmdir(folder)
    }

    func open() throws -> MailStore {
        let store = try MailStore(path: path, access: .write)
        if store.own.isEmpty { try store.setKeying(addresses: ["me@example.org"]) }
        return store
    }
}

func record(_ id: String, from: String, to: [String], date: String, subject: String, text: String = "",
            labels: [String] = ["INBOX"], extra: String = "") -> JSONRecord {
    let recipients = to.map { #"{"name":null,"address":"\#($0)"}"# }.joined(separator: ",")
    let labelList = labels.map { "\"\($0)\"" }.joined(separator: ",")
    let line = #"{"id":"\#(id)","date":"\#(date)","from":{"name":null,"address":"\#(from)"},"to":[\#(recipients)],"cc":[],"subject":"\#(subject)","text":"\#(text)","labels":[\#(labelList)]\#(extra)}"#
    return try! JSONRecord(line)
}

func collect(_ body: (([UInt8]) throws -> Void) throws -> Void) rethrows -> [JSONValue] {
    var out: [JSONValue] = []
    try body { out.append(try JSONValue.parse($0)) }
    return out
}

@Test func chineseAndJapaneseAreIndexedAsCharactersAndPairs() {
    #expect(SearchText.indexed("請於3/25前取件") == " 請 請於 於 3/25 前 前取 取 取件 件 ")
    #expect(SearchText.indexed("黑貓宅急便 ok").contains(" 黑 黑貓 貓 貓宅 宅 宅急 急 急便 便 "))
    #expect(SearchText.indexed("plain words") == "plain words")
}

@Test func queriesThatCannotBeReadSayWhy() {
    for bad in ["", "(from:alex", "from:alex)", "\"unclosed", "a OR", "date:2026-13-01", "is:happy", "date:2026-03-10..2026-03-01", "has:pictures"] {
        #expect(throws: SearchQuery.SyntaxError.self, "\(bad)") { try SearchQuery(bad) }
    }
    #expect((try? SearchQuery("from:alex (dinner OR lunch) -spam date:2026-03..")) != nil)
}

@Test func queriesOfWordsAndLabelsOnlyAreAnsweredFromTheListingIndex() throws {
    for q in ["woche", "from:alex (dinner OR lunch) -spam", "is:unread", "NOT label:x", "kind:list has:attachment", "黑貓"] {
        #expect(try SearchQuery(q).asksSetsOnly, "\(q)")
    }
    for q in ["id:a@b", "conversation:c1", "woche date:2026-03..", "NOT (a OR thread:t)", "*"] {
        #expect(try !SearchQuery(q).asksSetsOnly, "\(q)")
    }
}

@Test func dateRangesIncludeTheirLastDayMonthOrYear() throws {
    let (a, b) = try SearchQuery.dateRange("2026-03-01..2026-03-10")
    #expect(a == "2026-03-01T00:00:00Z" && b == "2026-03-11T00:00:00Z")
    let (c, d) = try SearchQuery.dateRange("2026-02")
    #expect(c == "2026-02-01T00:00:00Z" && d == "2026-03-01T00:00:00Z")
    let (e, f) = try SearchQuery.dateRange("..2025")
    #expect(e == nil && f == "2026-01-01T00:00:00Z")
}

@Test func addingTheSameRecordTwiceChangesNothing() throws {
    let tmp = TemporaryStore()
    let store = try tmp.open()
    let r = record("a@x", from: "alex@example.com", to: ["me@example.org"], date: "2026-03-02T01:00:00Z", subject: "Dinner")
    #expect(try store.batch { try store.add(r) } == .added)
    let before = try store.changeCounter()
    #expect(try store.batch { try store.add(r) } == .unchanged)
    let conversations = try collect { w in try store.conversations(MailStore.ConversationQuery(), w) }
    #expect(conversations.count == 1)
    #expect(conversations[0]["message_count"] == .number("1"))
    #expect(try store.changeCounter() == before, "a batch that changed nothing keeps the counter")
}

@Test func aRecordWithMoreFieldsReplacesTheStoredOne() throws {
    let tmp = TemporaryStore()
    let store = try tmp.open()
    let parsed = record("a@x", from: "alex@example.com", to: ["me@example.org"], date: "2026-03-02T01:00:00Z", subject: "Dinner", text: "see you")
    let extracted = record("a@x", from: "alex@example.com", to: ["me@example.org"], date: "2026-03-02T01:00:00Z", subject: "Dinner",
                           text: "see you", extra: #","snippet":"see you at six""#)
    _ = try store.batch { try store.add(parsed) }
    #expect(try store.batch { try store.add(extracted) } == .updated)
    #expect(try store.batch { try store.add(parsed) } == .unchanged, "an earlier stage's record leaves the richer one")
    let chats = try collect { w in try store.conversations(MailStore.ConversationQuery(), w) }
    #expect(chats.first?["snippet"] == .string("see you at six"))
}

@Test func takeoutCopiesOfAMessageJoinTheirLabels() throws {
    let tmp = TemporaryStore()
    let store = try tmp.open()
    let inbox = record("a@x", from: "alex@example.com", to: ["me@example.org"], date: "2026-03-02T01:00:00Z", subject: "Hi", labels: ["INBOX"])
    let unread = record("a@x", from: "alex@example.com", to: ["me@example.org"], date: "2026-03-02T01:00:00Z", subject: "Hi", labels: ["UNREAD"])
    _ = try store.batch { try store.add(inbox) }
    #expect(try store.batch { try store.add(unread) } == .updated)
    let chats = try collect { w in try store.conversations(MailStore.ConversationQuery(), w) }
    #expect(chats.first?["unread_count"] == .number("1"))
    #expect(chats.first?["labels"] == .array([.string("INBOX"), .string("UNREAD")]))
}

@Test func labelsAreKeptOnceAndSearchAndReadingSeeThemAsTheyAreNow() throws {
    let tmp = TemporaryStore()
    let store = try tmp.open()
    let parsed = record("a@x", from: "alex@example.com", to: ["me@example.org"], date: "2026-03-02T01:00:00Z", subject: "Hi",
                        labels: ["INBOX", "UNREAD"])
    let extracted = record("a@x", from: "alex@example.com", to: ["me@example.org"], date: "2026-03-02T01:00:00Z", subject: "Hi",
                           labels: ["Work"], extra: #","snippet":"hello""#)
    func ids(_ q: String) throws -> [String] {
        try collect { w in try store.search(try SearchQuery(q), output: .ids, limit: nil, w) }.compactMap(\.stringValue)
    }
    func labels() throws -> JSONValue? {
        try collect { w in try store.search(try SearchQuery("id:a@x"), output: .messages, limit: nil, w) }.first?["labels"]
    }
    /// The one copy: the column; the record's own member null; the index what the column holds
    /// (a label once whatever its case, as search compares them).
    func keptOnce() throws {
        #expect(try store.db.text("SELECT json_type(record, '$.labels') FROM messages") == "null")
        #expect(try store.db.integer("""
            SELECT count(*) FROM (SELECT lower(label), message FROM message_labels EXCEPT SELECT lower(l.value), m.rowid FROM messages m, json_each(m.labels) l)
            """) == 0)
        #expect(try store.db.integer("""
            SELECT count(*) FROM (SELECT lower(l.value), m.rowid FROM messages m, json_each(m.labels) l EXCEPT SELECT lower(label), message FROM message_labels)
            """) == 0)
    }
    _ = try store.batch { try store.add(parsed) }
    try keptOnce()
    #expect(try ids("is:unread") == ["a@x"])
    #expect(try store.label(try SearchQuery("id:a@x"), add: ["Later", "LATER"], remove: ["UNREAD"]) == 1)
    try keptOnce()
    #expect(try labels() == .array(["INBOX", "Later", "LATER"].map(JSONValue.string)))
    #expect(try ids("is:unread").isEmpty)
    // one of two labels the same but for case taken off: the other is still found
    #expect(try store.label(try SearchQuery("id:a@x"), add: [], remove: ["Later"]) == 1)
    try keptOnce()
    #expect(try ids("label:later") == ["a@x"])
    #expect(try store.batch { try store.add(extracted) } == .updated, "a later stage's record replaces the stored one, its labels joined")
    try keptOnce()
    #expect(try labels() == .array(["INBOX", "LATER", "Work"].map(JSONValue.string)))
    #expect(try ids("label:work") == ["a@x"])
    #expect(try store.batch { try store.add(extracted) } == .unchanged)
    #expect(try store.batch { try store.add(parsed) } == .updated, "an earlier stage's copy adds its labels only")
    #expect(try labels() == .array(["INBOX", "LATER", "Work", "UNREAD"].map(JSONValue.string)))
    try keptOnce()
    let rowid = try #require(try store.db.integer("SELECT rowid FROM messages"))
    _ = try store.batch { try store.delete(rowid: rowid) }
    #expect(try store.db.integer("SELECT count(*) FROM message_labels") == 0)
}

@Test func searchFindsChineseWordsInsideSentences() throws {
    let tmp = TemporaryStore()
    let store = try tmp.open()
    _ = try store.batch {
        _ = try store.add(record("a@x", from: "shop@tcat.example", to: ["me@example.org"], date: "2026-03-02T01:00:00Z",
                                 subject: "黑貓宅急便 出貨通知", text: "您的包裹已到店，請於3/25前取件。"))
        _ = try store.add(record("b@x", from: "alex@example.com", to: ["me@example.org"], date: "2026-03-03T01:00:00Z",
                                 subject: "Dinner", text: "The cat is black."))
    }
    func ids(_ q: String) throws -> [String] {
        try collect { w in try store.search(try SearchQuery(q), output: .ids, limit: nil, w) }.compactMap(\.stringValue)
    }
    #expect(try ids("*") == ["b@x", "a@x"])
    #expect(try ids("黑貓") == ["a@x"])
    #expect(try ids("取件") == ["a@x"])
    #expect(try ids("宅急便") == ["a@x"])
    #expect(try ids("貓宅急") == ["a@x"])
    #expect(try ids("黑狗").isEmpty)
    #expect(try ids("cat") == ["b@x"])
    #expect(try ids("from:alex") == ["b@x"])
    #expect(try ids("from:alex OR subject:黑貓") == ["b@x", "a@x"])
    #expect(try ids("NOT from:alex") == ["a@x"])
    #expect(try ids("date:2026-03-03") == ["b@x"])
    #expect(try ids("is:unread").isEmpty)
    #expect(try ids("label:inbox cat") == ["b@x"])
}

@Test func aFileThatIsNotAStoreIsRefusedUntouched() throws {
    let tmp = TemporaryStore()
    let text = Array("not a database, a letter\n".utf8)
    let fd = open(tmp.path, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
    _ = text.withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
    close(fd)
    #expect(throws: StoreError.self) { try MailStore(path: tmp.path, access: .write) }
    var st = stat()
    stat(tmp.path, &st)
    #expect(st.st_size == text.count)
}

@Test func aStoreOfTheFirstSchemaIsMigrated() throws {
    let tmp = TemporaryStore()
    let db = try Database(path: tmp.path)
    try db.execute(Schema.migrations[0])
    try db.execute("PRAGMA application_id = \(Schema.applicationID); PRAGMA user_version = 1")
    db.close()
    try MailStore(path: tmp.path, access: .read).close()
    let check = try Database(path: tmp.path, mode: .readOnly)
    #expect(try check.integer("PRAGMA user_version") == Schema.version)
    #expect(try check.integer("SELECT count(*) FROM sqlite_schema WHERE name = 'messages_listing'") == 1)
    #expect(try check.text("SELECT sql FROM sqlite_schema WHERE name = 'messages_by_conversation'")?.contains("change") == true)
}

@Test func aNewerSchemaIsRefused() throws {
    let tmp = TemporaryStore()
    _ = try tmp.open()
    let db = try Database(path: tmp.path)
    try db.execute("PRAGMA user_version = \(Schema.version + 1)")
    do {
        _ = try MailStore(path: tmp.path, access: .write)
        Issue.record("opened a newer schema")
    } catch let e as StoreError {
        #expect(e.description.contains("newer mailstore"))
        #expect(e.status == .dataError)
    }
}

@Test func anotherApplicationsDatabaseIsRefused() throws {
    let tmp = TemporaryStore()
    let db = try Database(path: tmp.path)
    try db.execute("CREATE TABLE notes(text)")
    #expect(throws: StoreError.self) { try MailStore(path: tmp.path, access: .write) }
    #expect(try db.integer("SELECT count(*) FROM sqlite_schema") == 1)
}

/// Issue 47: an address learned late (the first deliveries showed none) keys the messages
/// stored before as `config --me` does.
@Test func anAddressLearnedLateKeysTheEarlierMessagesAgain() throws {
    let temporary = TemporaryStore()
    let store = try MailStore(path: temporary.path, access: .write)
    func delivered(_ id: String, deliveredTo: String? = nil) throws {
        let headers = deliveredTo.map { #","headers":{"delivered-to":["\#($0)"]}"# } ?? #","headers":{}"#
        let r = record(id, from: "alex@example.com", to: ["me@example.org"], date: "2026-03-02T0\(id.count):00:00Z",
                       subject: "Hi", extra: headers)
        _ = try store.deliver(r, journal: nil, meAuto: true)
    }
    try delivered("a1")
    #expect(store.own.isEmpty && store.keysWithoutOwnAddresses)
    try delivered("a22", deliveredTo: "me@example.org")
    #expect(store.own.addresses == ["me@example.org"])
    var conversations = Set<String>()
    try store.db.query("SELECT conversation_id FROM messages") { conversations.insert($0.text(0) ?? "") }
    #expect(conversations.count == 1, "one conversation with alex, not one with alex and me")
    try store.close()
}

/// A message appended to a conversation is derived from the conversation as stored (not from all
/// its messages again), and gives what deriving all of them gives, the kind included: here a
/// sender's newsletters, its notification (the conversation is no longer all newsletters, and
/// keeps the kind its first message's participants name), and its newsletters again.
@Test func aMessageAppendedToAConversationDerivesWhatAllItsMessagesDerive() throws {
    let tmp = TemporaryStore()
    let store = try tmp.open()
    let kinds = ["newsletter", "newsletter", "notification", "newsletter", "newsletter"]
    var conversation: String?
    for (n, kind) in kinds.enumerated() {
        let r = record("n\(n)@shop.example", from: "news@shop.example", to: ["me@example.org"], date: "2026-03-0\(n + 1)T01:00:00Z",
                       subject: "Offers \(n)", extra: #","mail_kind":"\#(kind)""#)
        #expect(try store.batch { try store.add(r) } == .added)
        let id = try expectStoredAsDerived(store, message: "n\(n)@shop.example")
        #expect(conversation == nil || conversation == id, "the sender's mail is one conversation")
        conversation = id
    }
    #expect(try store.db.text("SELECT kind FROM conversations") == "newsletter")
    #expect(try store.db.integer("SELECT is_newsletter FROM conversations") == 0)
}

/// The conversation of `message` as stored is what deriving all its messages gives; its id.
@discardableResult
func expectStoredAsDerived(_ store: MailStore, message: String, sourceLocation: SourceLocation = #_sourceLocation) throws -> String {
    let id = try #require(try store.db.text("SELECT conversation_id FROM messages WHERE id = ?", .text(message)))
    let stored = try #require(try store.db.row("SELECT kind, is_newsletter, is_group, record FROM conversations WHERE id = ?", [.text(id)]) {
        ($0.text(0) ?? "", $0.bool(1), $0.bool(2), $0.bytes(3))
    })
    let whole = try #require(try store.derive(id))
    #expect(stored.0 == whole.kind && stored.1 == whole.0.isNewsletter && stored.2 == whole.0.isGroup, "after \(message)",
            sourceLocation: sourceLocation)
    #expect(String(decoding: stored.3, as: UTF8.self) == String(decoding: whole.0.record, as: UTF8.self), "after \(message)",
            sourceLocation: sourceLocation)
    return id
}

/// A carrier's notices appended one by one: the conversation lists each tracking number once,
/// where it was first seen, as deriving all of them does, a shipment without a number too.
@Test func aCarriersNoticesAppendedListEachShipmentOnceAsDerivingThemAllDoes() throws {
    let tmp = TemporaryStore()
    let store = try tmp.open()
    func shipment(_ number: String?) -> String {
        #"{"carrier":"ups","tracking_number":\#(number.map { "\"\($0)\"" } ?? "null"),"status":"in_transit"}"#
    }
    let notices: [[String?]] = [["1ZA"], ["1ZA"], ["1ZB", "1ZA"], [], ["1ZC"], [nil], ["1ZD"]]
    for (n, numbers) in notices.enumerated() {
        let r = record("u\(n)@ups.example", from: "pkginfo@ups.example", to: ["me@example.org"], date: "2026-03-0\(n + 1)T01:00:00Z",
                       subject: "Your parcel \(n)", extra: #","mail_kind":"notification","shipments":[\#(numbers.map(shipment).joined(separator: ","))]"#)
        #expect(try store.batch { try store.add(r) } == .added)
        try expectStoredAsDerived(store, message: "u\(n)@ups.example")
    }
    let record = try JSONValue.parse(try #require(try store.db.row("SELECT record FROM conversations", []) { $0.bytes(0) }))
    let numbers = record["shipments"]?.arrayValue?.map { $0["tracking_number"]?.stringValue ?? "-" }
    #expect(numbers == ["1ZA", "1ZB", "1ZC", "-", "1ZD"])
}

/// A message without events appended to a conversation with some: its events are the stored
/// ones still to come at the store's `now` (and the cancelled ones), as deriving all its mail
/// then gives them, while time passes between the messages.
@Test func aMessageAppendedToAConversationWithEventsKeepsThoseStillToComeAsDerivingDoes() throws {
    let tmp = TemporaryStore()
    let store = try tmp.open()
    func event(_ uid: String, _ day: Int, method: String = "REQUEST", status: String = "confirmed") -> String {
        #"{"uid":"\#(uid)","method":"\#(method)","status":"\#(status)","summary":"Visit \#(uid)","start":"2026-03-\#(day)T09:00:00Z","end":"2026-03-\#(day)T10:00:00Z"}"#
    }
    let mail: [(day: Int, events: [String])] = [
        (1, [event("a", 10)]), (2, [event("b", 20)]), (3, [event("a", 10, method: "CANCEL", status: "cancelled")]),
        (4, []), (12, []), (22, []), (23, [])]
    for (n, m) in mail.enumerated() {
        let day = m.day < 10 ? "0\(m.day)" : "\(m.day)"
        store.now = 1_772_323_200 + (m.day - 1) * 86400 + 12 * 3600  // noon that day
        let r = record("c\(n)@clinic.example", from: "desk@clinic.example", to: ["me@example.org"],
                       date: "2026-03-\(day)T08:00:00Z", subject: "Your visit",
                       extra: #","mail_kind":"notification","events":[\#(m.events.joined(separator: ","))]"#)
        #expect(try store.batch { try store.add(r) } == .added)
        try expectStoredAsDerived(store, message: "c\(n)@clinic.example")
    }
    let record = try JSONValue.parse(try #require(try store.db.row("SELECT record FROM conversations", []) { $0.bytes(0) }))
    #expect(record["events"]?.arrayValue?.map { $0["uid"]?.stringValue ?? "" } == ["a"], "b is over; a, cancelled, stays")
}
