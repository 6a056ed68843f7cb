import BodyText
import Conversations
import Events
import JSONLines
import Parcels
import SQLite

/// Storing messages: a record added, replaced or removed, with what is derived of it alone
/// (its key, search text, recipients, events and shipments), and where it is placed.
extension MailStore {
    public enum Outcome { case added, updated, unchanged }

    public struct MissingID: Error, CustomStringConvertible {
        public var description: String { "the record has no id (is it a mime-parse record?)" }
    }

    /// Adds one record, or updates the stored one of the same id: a record with more members
    /// (a later filter ran) replaces it; either way its labels join the stored ones (Takeout
    /// repeats a message once per label). Must run in a `batch`.
    public func add(_ record: JSONRecord) throws -> Outcome {
        guard let id = record.string("id") ?? record.string("message_id") else { throw MissingID() }
        if own.isEmpty && !keysWithoutOwnAddresses { throw StoreError.noOwnAddress }
        let record = try keepingAttachments(record)
        let labels = record.value("labels")?.arrayValue?.compactMap(\.stringValue) ?? []
        let stored = Self.withoutLabels(record)
        guard let (rowid, oldBytes, oldLabels, conversation, sendState) = try db.row(
            "SELECT rowid, record, labels, conversation_id, send_state FROM messages WHERE id = ?", [.text(id)],
            { s in (s.integer(0), s.bytes(1), Self.strings(s.text(2) ?? "[]"), s.text(3) ?? "", s.text(4)) })
        else {
            try insert(record, storing: stored, id: id, labels: labels, rowid: nil)
            return .added
        }
        var merged = oldLabels
        for l in labels where !merged.contains(l) { merged.append(l) }
        if stored != oldBytes {
            let old = try JSONRecord(oldBytes)
            if Self.replaces(record, old) {
                try unindex(rowid: rowid, record: old)
                try insert(record, storing: stored, id: id, labels: merged, rowid: rowid)
                // a message I sent, come back from its source (Gmail's copy): still mine to track
                if let sendState { try db.run("UPDATE messages SET send_state = ? WHERE rowid = ?", .text(sendState), .integer(rowid)) }
                return .updated
            }
        }
        guard merged != oldLabels else { return .unchanged }
        try storeLabels(merged, replacing: oldLabels, rowid: rowid, conversation: conversation)
        return .updated
    }

    /// Whether a record of a stored id replaces the stored one: it has a member the stored one
    /// lacks (a later filter ran), or a member's value differs, labels and source aside (those
    /// are all that differ in the copies Takeout makes of a message with several labels). A
    /// record with fewer members (an earlier stage's) leaves the richer one in place.
    static func replaces(_ new: JSONRecord, _ old: JSONRecord) -> Bool {
        let (newKeys, oldKeys) = (Set(new.keys), Set(old.keys))
        guard newKeys.isSuperset(of: oldKeys) else { return false }
        if newKeys != oldKeys { return true }
        return new.keys.contains { $0 != "labels" && $0 != "source" && new.rawValue($0) != old.rawValue($0) }
    }

    /// Stores a message (`stored`, its record as `withoutLabels` makes it; `labels` in their
    /// column) and what is derived of it alone: its key, search text, recipients and events; its
    /// conversation and events are marked for deriving.
    private func insert(_ record: JSONRecord, storing stored: [UInt8], id: String, labels: [String], rowid: Int?) throws {
        let key = try ParticipantKey.of(record, me: own, lists: &lists, normalizer: normalizer)
        try learnLists()
        let from = record.value("from")
        let role = StoredConversation.role(of: record)
        let answers = StoredConversation.answers(record, role: role)
        let conversation = try placement(role: role, answers: answers, key: key.hash)
        let sql = """
            INSERT INTO messages(rowid, id, gmail_id, thread_id, date, subject, from_address, from_name, mail_kind, labels,
              attachment_count, conversation_id, participant_kind, summary, record, change, role, answers, from_me)
            VALUES(?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
            """
        try db.run(sql, [
            rowid.map(SQLValue.integer) ?? .null, .text(id), record.string("gmail_id").map(SQLValue.text) ?? .null,
            record.string("thread_id").map(SQLValue.text) ?? .null, record.string("date").map(SQLValue.text) ?? .null,
            record.string("subject").map(SQLValue.text) ?? .null,
            from?["address"]?.stringValue.map { .text($0.lowercased()) } ?? .null,
            from?["name"]?.stringValue.map(SQLValue.text) ?? .null,
            record.string("mail_kind").map(SQLValue.text) ?? .null, .text(Self.json(labels)),
            .integer(record.value("attachments")?.arrayValue?.count ?? 0), .text(conversation), .text(key.kind.rawValue),
            .textBytes(StoredConversation.summaryRecord(of: record, id: id, key: key)), .textBytes(stored), .integer(change),
            role.map(SQLValue.text) ?? .null, answers.map(SQLValue.text) ?? .null, .integer(key.fromMe ? 1 : 0),
        ])
        let r = rowid ?? db.lastInsertRowID
        try indexLabels(rowid: r, from: [], to: labels)
        if let gmailID = record.string("gmail_id") { try db.run("DELETE FROM gmail_pending WHERE gmail_id = ?", .text(gmailID)) }
        try storeRecipients(of: record, rowid: r, replacing: false)
        try indexSearchText(of: record, rowid: r)
        let events = record.value("events")?.arrayValue ?? []
        let sender = from?["address"]?.stringValue?.lowercased()
        for (k, v) in events.enumerated() {
            guard let e = Event(json: v) else { continue }
            let group = StoredEvents.group(of: e, messageID: id, sender: sender)
            var w = JSONWriter(capacity: 512)
            w.value(v)
            try db.run("INSERT INTO event_observations(message, position, event_group, event) VALUES(?, ?, ?, ?)",
                       .integer(r), .integer(k), .text(group), .textBytes(w.bytes))
            touchedEventGroups.insert(group)
        }
        try storeParcelObservations(of: record, rowid: r)
        try storeAttachments(of: record, rowid: r)
        touchedConversations.insert(conversation)
        added = rowid == nil && role == nil ? (conversation, r) : nil
        if role == nil { try placeAnswers(to: id) }
        if role == "report" || role == "reaction", let answers { try reportChanged(answers) }
    }

    /// Each shipment of a message that names a parcel (parcel-group's observation of it).
    func storeParcelObservations(of record: JSONRecord, rowid: Int) throws {
        for (k, s) in (record.value("shipments")?.arrayValue ?? []).enumerated() {
            guard let o = ParcelGroup.observation(s, messageID: "", date: "", conversationID: nil, order: k) else { continue }
            var w = JSONWriter(capacity: 512)
            w.value(s)
            try db.run("INSERT INTO parcel_observations(message, position, number_key, code_key, shipment) VALUES(?, ?, ?, ?, ?)",
                       .integer(rowid), .integer(k), o.numberKey.map(SQLValue.text) ?? .null, o.codeKey.map(SQLValue.text) ?? .null,
                       .textBytes(w.bytes))
            touchParcels(number: o.numberKey, code: o.codeKey)
        }
    }

    private func touchParcels(number: String?, code: String?) {
        if let number { touchedParcels.numbers.insert(number) }
        if let code { touchedParcels.codes.insert(code) }
    }

    /// The parcels a message's shipments tell of are derived again (it went, or moved).
    func touchParcels(ofMessage rowid: Int) throws {
        try db.query("SELECT number_key, code_key FROM parcel_observations WHERE message = ?", [.integer(rowid)]) {
            touchParcels(number: $0.text(0), code: $0.text(1))
        }
    }

    /// A report or a reaction about message `id` came or went: what the message shows (the
    /// lines under it, its reactions) changed, so its change counter moves.
    private func reportChanged(_ id: String) throws {
        try db.run("UPDATE messages SET change = ? WHERE id = ? AND role IS NULL", .integer(change), .text(id))
    }

    /// The conversation a message is stored in, as conversation-group places it
    /// (`StoredConversation.placement`), `key` its participants'.
    func placement(role: String?, answers: String?, key: String) throws -> String {
        try StoredConversation.placement(role: role, answers: answers, key: key) {
            try db.text("SELECT conversation_id FROM messages WHERE id = ? AND role IS NULL", .text($0))
        }
    }

    /// Places the reports and auto-replies that answer message `id` again (it came, went or moved).
    func placeAnswers(to id: String) throws {
        var rowids: [Int] = []
        try db.query("SELECT rowid FROM messages WHERE answers = ?", [.text(id)]) { rowids.append($0.integer(0)) }
        for r in rowids { try place(r) }
    }

    /// Moves a stored report or auto-reply to where `placement` says it belongs now.
    func place(_ rowid: Int) throws {
        guard let (role, answers, current, participants) = try db.row(
            "SELECT role, answers, conversation_id, json_extract(summary, '$.participants') FROM messages WHERE rowid = ?", [.integer(rowid)],
            { s in (s.text(0), s.text(1), s.text(2) ?? "", Self.strings(s.text(3) ?? "[]")) }) else { return }
        let target = try placement(role: role, answers: answers, key: ParticipantKey.hash(participants))
        guard target != current else { return }
        try db.run("UPDATE messages SET conversation_id = ?, change = ? WHERE rowid = ?", .text(target), .integer(change), .integer(rowid))
        touchedConversations.insert(current)
        touchedConversations.insert(target)
        try touchParcels(ofMessage: rowid)
    }

    /// Removes a message: its row and what `insert` derived of it (its conversation and events
    /// are marked for deriving). `insert` may store a new version under the same rowid.
    private func unindex(rowid: Int, record: JSONRecord) throws {
        try db.run("INSERT INTO search(search, rowid, subject, sender, recipients, body, html) VALUES('delete', ?, ?, ?, ?, ?, ?)",
                   [.integer(rowid)] + Self.searchColumns(record).map(SQLValue.text))
        try db.run("DELETE FROM recipients WHERE message = ?", .integer(rowid))
        try db.query("SELECT DISTINCT event_group FROM event_observations WHERE message = ?", [.integer(rowid)]) {
            touchedEventGroups.insert($0.text(0) ?? "")
        }
        try db.run("DELETE FROM event_observations WHERE message = ?", .integer(rowid))
        try touchParcels(ofMessage: rowid)
        try db.run("DELETE FROM parcel_observations WHERE message = ?", .integer(rowid))
        try unstoreAttachments(rowid: rowid)
        guard let (c, labels, id, role, answers) = try db.row(
            "SELECT conversation_id, labels, id, role, answers FROM messages WHERE rowid = ?", [.integer(rowid)],
            { ($0.text(0) ?? "", Self.strings($0.text(1) ?? "[]"), $0.text(2) ?? "", $0.text(3), $0.text(4)) }) else { return }
        touchedConversations.insert(c)
        try indexLabels(rowid: rowid, from: labels, to: [])
        try db.run("DELETE FROM messages WHERE rowid = ?", .integer(rowid))
        try placeAnswers(to: id)
        if role == "report" || role == "reaction", let answers { try reportChanged(answers) }
    }

    /// Deletes a message and what was derived of it; `removed` remembers its id.
    func delete(rowid: Int) throws {
        guard let (bytes, id) = try db.row("SELECT record, id FROM messages WHERE rowid = ?", [.integer(rowid)], { ($0.bytes(0), $0.text(1) ?? "") })
        else { return }
        try unindex(rowid: rowid, record: try JSONRecord(bytes))
        try db.run("INSERT INTO removed(kind, id, change) VALUES('message', ?, ?)", .text(id), .integer(change))
    }

    func indexSearchText(of record: JSONRecord, rowid: Int) throws {
        try Self.indexSearchText(of: record, rowid: rowid, in: db)
    }

    static func indexSearchText(of record: JSONRecord, rowid: Int, in db: Database) throws {
        try db.run("INSERT INTO search(rowid, subject, sender, recipients, body, html) VALUES(?, ?, ?, ?, ?, ?)",
                   [.integer(rowid)] + searchColumns(record).map(SQLValue.text))
    }

    /// What the search index reads of a record: subject, sender, recipients, body text, and the
    /// words the text a reader sees of its HTML alternative adds to the body text (a newsletter
    /// whose plain part only says "View this email in your browser").
    static func searchColumns(_ record: JSONRecord) -> [String] {
        func person(_ v: JSONValue) -> String {
            [v["name"]?.stringValue, v["address"]?.stringValue].compactMap { $0 }.joined(separator: " ")
        }
        let sender = record.value("from").map(person) ?? ""
        let recipients = ((record.value("to")?.arrayValue ?? []) + (record.value("cc")?.arrayValue ?? [])).map(person).joined(separator: " ")
        let bodyText = record.stringPrefix("body_text", maxBytes: 1 << 20)
        let body = bodyText ?? record.stringPrefix("text", maxBytes: 1 << 20) ?? ""
        // text-extract rendered the HTML itself when the message has no plain text: then it adds nothing
        let hasPlain = record.rawValue("text").map { $0.count > 2 && $0.first == UInt8(ascii: "\"") } ?? false
        var html = ""
        if hasPlain || bodyText == nil, let bytes = record.stringBytes("html"), !bytes.isEmpty {
            html = SearchText.wordsAdding(Extractor.seenText(html: bytes), to: body)
        }
        return [record.string("subject") ?? "", sender, recipients, body, html].map(SearchText.indexed)
    }
}
