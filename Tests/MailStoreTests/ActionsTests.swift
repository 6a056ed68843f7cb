import JSONLines
import Testing
@testable import MailStore

// What the user does is done at once and queued for the mail's source (issue 44): changes of one
// message fold into one row, Gmail's snapshots are overlaid with what waits (no flash of
// unread), Gmail's own later changes win, and trash on Gmail drops what waits with a reason.

private func gmailRecord(_ id: String, gmailID: String, labels: [String]) -> JSONRecord {
    record(id, from: "alex@example.com", to: ["me@example.org"], date: "2026-03-02T01:00:00Z", subject: "Hi", labels: labels,
           extra: #","gmail_id":"\#(gmailID)","thread_id":"t1""#)
}

private func labels(_ store: MailStore, _ id: String) throws -> [String] {
    try collect { try store.search(SearchQuery("id:\(id)"), output: .messages, limit: nil, $0) }.first?["labels"]?.arrayValue?.compactMap(\.stringValue) ?? []
}

private func apply(_ store: MailStore, _ json: String) throws {
    var result = MailStore.HistoryResult()
    try store.batch { try store.applyHistory(try JSONValue.parse(Array(json.utf8)), into: &result) }
}

@Test func changesOfOneMessageFoldIntoOneQueuedRow() throws {
    let tmp = TemporaryStore()
    let store = try tmp.open()
    try store.batch { _ = try store.add(gmailRecord("a@x", gmailID: "g1", labels: ["INBOX", "UNREAD"])) }
    let q = try SearchQuery("id:a@x")
    #expect(try store.label(q, add: ["STARRED"], remove: ["UNREAD"]) == 1)
    var actions = try store.actions()
    #expect(actions.count == 1 && actions[0].add == ["STARRED"] && actions[0].remove == ["UNREAD"] && actions[0].source == .gmail)
    // unread again: the removal waiting is undone, the star stays
    _ = try store.label(q, add: ["UNREAD"], remove: [])
    actions = try store.actions()
    #expect(actions.count == 1 && actions[0].add == ["STARRED"] && actions[0].remove.isEmpty && actions[0].version == 2)
    _ = try store.label(q, add: [], remove: ["STARRED"])
    #expect(try store.actions().isEmpty)
    // asking for what is already so changes nothing and queues nothing
    #expect(try store.label(q, add: ["INBOX"], remove: []) == 0)
    #expect(try store.actions().isEmpty)
    // trash and untrash are calls of their own, and undo each other while both wait
    _ = try store.label(q, add: ["TRASH"], remove: [])
    #expect(try store.actions().map(\.kind) == ["trash"])
    _ = try store.label(q, add: [], remove: ["TRASH"])
    #expect(try store.actions().isEmpty)
}

@Test func gmailsSnapshotIsOverlaidWithWhatWaitsAndItsLaterChangesWin() throws {
    let tmp = TemporaryStore()
    let store = try tmp.open()
    try store.batch { _ = try store.add(gmailRecord("a@x", gmailID: "g1", labels: ["INBOX", "UNREAD"])) }
    _ = try store.label(try SearchQuery("id:a@x"), add: [], remove: ["UNREAD"])
    // messages.get before the push still says UNREAD: the chat does not flash unread
    try apply(store, #"{"id":"g1","threadId":"t1","labelIds":["INBOX","UNREAD"]}"#)
    #expect(try labels(store, "a@x") == ["INBOX"])
    #expect(try store.actions().count == 1)
    // archived on Gmail meanwhile: both take effect
    try apply(store, #"{"history":[{"id":"5","labelsRemoved":[{"message":{"id":"g1","threadId":"t1"},"labelIds":["INBOX"]}]}],"historyId":"5"}"#)
    #expect(try labels(store, "a@x").isEmpty)
    #expect(try store.actions().first?.remove == ["UNREAD"])
    // marked unread on Gmail after our read: Gmail's change wins, ours is given up
    try apply(store, #"{"history":[{"id":"6","labelsAdded":[{"message":{"id":"g1","threadId":"t1"},"labelIds":["UNREAD"]}]}],"historyId":"6"}"#)
    #expect(try labels(store, "a@x") == ["UNREAD"])
    #expect(try store.actions().isEmpty)
}

@Test func trashedOnGmailDropsWhatWaitsWithAReason() throws {
    let tmp = TemporaryStore()
    let store = try tmp.open()
    try store.batch { _ = try store.add(gmailRecord("a@x", gmailID: "g1", labels: ["INBOX"])) }
    _ = try store.label(try SearchQuery("id:a@x"), add: ["STARRED"], remove: [])
    try apply(store, #"{"history":[{"id":"7","labelsAdded":[{"message":{"id":"g1","threadId":"t1"},"labelIds":["TRASH"]}]}],"historyId":"7"}"#)
    let actions = try store.actions()
    #expect(actions.count == 1 && actions[0].state == "dropped" && actions[0].lastError == "trashed on Gmail")
    #expect(try labels(store, "a@x") == ["INBOX", "TRASH"])  // the star undone here too: as on Gmail
    #expect(try store.actions(queuedOnly: true).isEmpty)
    #expect(try store.forgetDroppedActions() == 1 && store.actions().isEmpty)
}

@Test func aPushRemovesOnlyTheVersionItSent() throws {
    let tmp = TemporaryStore()
    let store = try tmp.open()
    try store.batch { _ = try store.add(gmailRecord("a@x", gmailID: "g1", labels: ["INBOX", "UNREAD"])) }
    let q = try SearchQuery("id:a@x")
    _ = try store.label(q, add: [], remove: ["UNREAD"])
    let sent = try store.actions()[0]
    _ = try store.label(q, add: ["STARRED"], remove: [])  // while the push was on its way
    try store.actionDone(sent)
    #expect(try store.actions().first?.add == ["STARRED"])
    try store.actionFailed(try store.actions()[0], reason: "HTTP 500", drop: false)
    let failed = try store.actions()[0]
    #expect(failed.tries == 1 && failed.lastError == "HTTP 500" && failed.state == "queued")
    try store.actionDone(failed)
    #expect(try store.actions().isEmpty)
}

@Test func mailWithoutASourceStaysLocal() throws {
    let tmp = TemporaryStore()
    let store = try tmp.open()
    try store.batch { _ = try store.add(record("a@x", from: "alex@example.com", to: ["me@example.org"], date: "2026-03-02T01:00:00Z", subject: "Hi", labels: ["INBOX"])) }
    _ = try store.label(try SearchQuery("id:a@x"), add: [], remove: ["INBOX"])
    let a = try store.actions()
    #expect(a.count == 1 && a[0].source == .local)
    #expect(try JSONValue.parse(MailStore.json(a[0]))["state"] == .string("local"))
}

@Test func ourOwnTrashComingBackIsDoneNotAConflict() throws {
    let tmp = TemporaryStore()
    let store = try tmp.open()
    try store.batch { _ = try store.add(gmailRecord("a@x", gmailID: "g1", labels: ["INBOX"])) }
    let q = try SearchQuery("id:a@x")
    _ = try store.label(q, add: ["TRASH", "STARRED"], remove: [])
    #expect(Set(try store.actions().map(\.kind)) == ["trash", "labels"])
    // a pass killed after Gmail trashed it: the next history brings our trash back
    try apply(store, #"{"history":[{"id":"8","labelsAdded":[{"message":{"id":"g1","threadId":"t1"},"labelIds":["TRASH"]}]}],"historyId":"8"}"#)
    let left = try store.actions()
    #expect(left.map(\.kind) == ["labels"] && left[0].state == "queued" && left[0].add == ["STARRED"])
    #expect(Set(try labels(store, "a@x")) == ["INBOX", "TRASH", "STARRED"])
}
