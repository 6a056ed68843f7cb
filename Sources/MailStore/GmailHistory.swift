import JSONLines
import SQLite

/// Gmail API responses applied to the store: `users.history.list` label changes and deletions
/// change the messages they name (found by `gmail_id`) and only their conversations are derived
/// again. What the store still has to fetch is kept in `gmail_pending`, in the same transaction
/// as the historyId it came with, so a message that cannot be fetched now is asked for again
/// by the next sync instead of being lost.
extension MailStore {
    /// What the responses of one run have shown so far.
    public struct HistoryResult {
        public var lastHistoryID: String?
        /// With `full`: the ids of every messages.list page read, the mailbox as it is now.
        var listed: [String: String?]?

        public init(full: Bool = false) {
            if full { listed = [:] }
        }
    }

    struct HistoryError: Error, CustomStringConvertible {
        var description: String
    }

    /// Applies one response. Must run in a batch. It may be a `users.history.list` response or
    /// `users.getProfile`'s (their historyId is remembered), a message resource of
    /// `messages.get` (its labelIds become the stored message's), or, in a full sync, a
    /// `messages.list` page.
    public func applyHistory(_ response: JSONValue, into result: inout HistoryResult) throws {
        guard case .object = response else { throw HistoryError(description: "not a Gmail API response (a JSON object)") }
        if let id = response["id"]?.stringValue {
            try applyMessage(id: id, response, into: &result)
        } else if response["messages"] != nil || response["resultSizeEstimate"] != nil {
            guard result.listed != nil else {
                throw HistoryError(description: "a messages.list page: only a full sync (--full) reads those")
            }
            for m in response["messages"]?.arrayValue ?? [] {
                if let id = m["id"]?.stringValue { result.listed?[id] = .some(m["threadId"]?.stringValue) }
            }
        } else if response["history"] != nil || response["historyId"] != nil {
            for h in response["history"]?.arrayValue ?? [] { try applyHistoryRecord(h, into: &result) }
            if let id = Self.historyText(response["historyId"]) { result.lastHistoryID = Self.later(result.lastHistoryID, id) }
            // a full sync's comes with the list of what to fetch, in its last transaction
            if result.listed == nil { try rememberHistoryID(result) }
        } else {
            throw HistoryError(description: "not a Gmail API response mailstore reads: it has no 'history', 'historyId', 'id' or 'messages'")
        }
    }

    private func applyHistoryRecord(_ h: JSONValue, into result: inout HistoryResult) throws {
        for added in h["messagesAdded"]?.arrayValue ?? [] {
            guard let m = added["message"], let id = m["id"]?.stringValue, try rowid(gmailID: id) == nil else { continue }
            try setPending(id, thread: m["threadId"]?.stringValue, labels: Self.labelIDs(m), format: "raw")
        }
        for (field, adding) in [("labelsAdded", true), ("labelsRemoved", false)] {
            for change in h[field]?.arrayValue ?? [] {
                guard let m = change["message"], let id = m["id"]?.stringValue else { continue }
                let labels = change["labelIds"]?.arrayValue?.compactMap(\.stringValue) ?? []
                if let r = try rowid(gmailID: id) {
                    if labels.contains(Self.trashLabel) { try trashChanged(rowid: r, trashed: adding) }
                    try changeLabels(rowid: r, add: adding ? labels : [], remove: adding ? [] : labels)
                } else {
                    // not fetched yet: it is fetched with its labels as they are then
                    try setPending(id, thread: m["threadId"]?.stringValue, labels: Self.labelIDs(m), format: "raw")
                }
            }
        }
        for deleted in h["messagesDeleted"]?.arrayValue ?? [] {
            guard let id = deleted["message"]?["id"]?.stringValue else { continue }
            try deleteMessage(gmailID: id)
        }
        if let id = Self.historyText(h["id"]) { result.lastHistoryID = Self.later(result.lastHistoryID, id) }
    }

    /// A message resource: the labels it has now, or a message to fetch whole.
    private func applyMessage(id: String, _ m: JSONValue, into result: inout HistoryResult) throws {
        guard let r = try rowid(gmailID: id) else {
            if m["raw"] != nil { throw HistoryError(description: "a whole message (format=raw): run it through mime-parse and the filters, then add it") }
            try setPending(id, thread: m["threadId"]?.stringValue, labels: Self.labelIDs(m), format: "raw")
            return
        }
        try setLabels(rowid: r, Self.labelIDs(m))
        try db.run("DELETE FROM gmail_pending WHERE gmail_id = ?", .text(id))
    }

    /// After a full sync's inputs: every stored Gmail message is to fetch again, its labels only
    /// (format=minimal), and every listed message the store lacks, whole. A stored message no
    /// page listed is not deleted here: Gmail's pages are no snapshot, and shift when messages
    /// are purged meanwhile (Trash and Spam every day), so that a live message can fall between
    /// two pages. It is gone when messages.get answers 404 for it, and only then. Must run in
    /// a batch.
    public func finishFullSync(_ result: inout HistoryResult) throws {
        guard let listed = result.listed else { return }
        var stored: [(String, String?)] = []
        try db.query("SELECT gmail_id, thread_id FROM messages WHERE gmail_id IS NOT NULL") { stored.append(($0.text(0) ?? "", $0.text(1))) }
        try db.run("DELETE FROM gmail_pending")
        let known = Set(stored.map(\.0))
        for (id, thread) in listed.sorted(by: { $0.key < $1.key }) where !known.contains(id) {
            try setPending(id, thread: thread, labels: nil, format: "raw")
        }
        for (id, thread) in stored.sorted(by: { $0.0 < $1.0 }) {
            try setPending(id, thread: listed[id] ?? thread, labels: nil, format: "minimal")
        }
        // the mailbox as it is now, from the profile: its historyId even when lower than the one
        // remembered (a restored or another mailbox), or the next sync would ask from a point
        // Gmail never reached
        if let now = result.lastHistoryID { try setConfig("history_id", now) }
    }

    /// Gmail's responses refused before any was applied: what is wrong with them.
    public struct GmailResponsesRefused: Error, CustomStringConvertible {
        public var problems: [String]
        public var description: String { problems.joined(separator: "; ") }
    }

    /// gmail-sync's run of `mailstore history`: the responses of one step of a sync (every
    /// users.history.list page; or users.getProfile's and every messages.list page, with
    /// `full`), each checked against the shapes the API documents before any is applied, then
    /// applied in one batch.
    public func applyGmailResponses(_ responses: [JSONValue], full: Bool) throws {
        try refuseMalformed(responses)
        var result = HistoryResult(full: full)
        do {
            try batch {
                for response in responses { try applyHistory(response, into: &result) }
                if full { try finishFullSync(&result) }
            }
        } catch let e as HistoryError {
            throw GmailResponsesRefused(problems: [e.description])
        }
    }

    /// What messages.get answered for messages to fetch again: message resources (format=minimal)
    /// give stored messages their labels; the ids it answered 404 for are gone (deleted on
    /// Gmail). One batch.
    public func applyFetched(labels messages: [JSONValue], gone: [String]) throws {
        try refuseMalformed(messages)
        var result = HistoryResult()
        do {
            try batch {
                for m in messages { try applyHistory(m, into: &result) }
                for id in gone { try deleteMessage(gmailID: id) }
            }
        } catch let e as HistoryError {
            throw GmailResponsesRefused(problems: [e.description])
        }
    }

    private func refuseMalformed(_ responses: [JSONValue]) throws(GmailResponsesRefused) {
        let problems = responses.enumerated().compactMap { k, response in
            GmailShape.problem(response).map { responses.count == 1 ? $0 : "response \(k + 1): \($0)" }
        }
        if !problems.isEmpty { throw GmailResponsesRefused(problems: problems) }
    }

    private func rememberHistoryID(_ result: HistoryResult) throws {
        if let last = result.lastHistoryID, Self.later(try historyID(), last) == last {
            try setConfig("history_id", last)
        }
    }

    /// What is still to fetch, oldest request first, as `{gmail_id, thread_id, label_ids, format}`:
    /// `format` is what to ask `messages.get` for (`raw`: the store lacks the message; `minimal`:
    /// only its labels).
    public func pendingFetches() throws -> [[UInt8]] {
        var out: [[UInt8]] = []
        try db.query("SELECT gmail_id, thread_id, label_ids, format FROM gmail_pending ORDER BY rowid") { s in
            var w = JSONWriter(capacity: 128)
            w.beginObject()
            w.field("gmail_id", s.text(0) ?? "")
            w.field("thread_id", s.text(1))
            w.field("label_ids", strings: Self.strings(s.text(2) ?? "[]"))
            w.field("format", s.text(3) ?? "raw")
            w.endObject()
            out.append(w.bytes)
        }
        return out
    }

    private func setPending(_ id: String, thread: String?, labels: [String]?, format: String) throws {
        try db.run("DELETE FROM gmail_pending WHERE gmail_id = ?", .text(id))
        try db.run("INSERT INTO gmail_pending(gmail_id, thread_id, label_ids, format) VALUES(?, ?, ?, ?)",
                   .text(id), thread.map(SQLValue.text) ?? .null, .text(Self.json(labels ?? [])), .text(format))
    }

    private func deleteMessage(gmailID id: String) throws {
        try db.run("DELETE FROM gmail_pending WHERE gmail_id = ?", .text(id))
        if let r = try rowid(gmailID: id) {
            try dropActions(rowid: r, reason: "deleted on Gmail")
            try delete(rowid: r)
        }
    }

    /// A message's labels: the API leaves out an empty list, so none when there is no labelIds
    /// (mime-parse reads a message resource the same way).
    private static func labelIDs(_ m: JSONValue) -> [String] {
        m["labelIds"]?.arrayValue?.compactMap(\.stringValue) ?? []
    }

    /// History ids are unsigned 64-bit numbers, written as strings or numbers.
    static func historyText(_ v: JSONValue?) -> String? {
        switch v {
        case .string(let s)?: UInt64(s) != nil ? s : nil
        case .number(let s)?: UInt64(s) != nil ? s : nil
        default: nil
        }
    }

    static func later(_ a: String?, _ b: String) -> String {
        guard let a, let x = UInt64(a), let y = UInt64(b) else { return b }
        return x >= y ? a : b
    }

    func rowid(gmailID: String) throws -> Int? {
        try db.integer("SELECT rowid FROM messages WHERE gmail_id = ?", .text(gmailID))
    }
}
