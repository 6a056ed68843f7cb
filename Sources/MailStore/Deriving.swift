import Conversations
import Events
import JSONLines
import Parcels
import SQLite

/// Deriving what a batch touched: conversations, events and parcels, with conversation-group's,
/// event-group's and parcel-group's own code.
extension MailStore {
    /// Derives again what the batch touched, at its end.
    func deriveTouched() throws {
        try deriveParcels()  // first: a parcel's news touches the conversations its cards are in
        let only = conversationTouches == 1 && touchedEventGroups.isEmpty ? added : nil
        for id in touchedConversations.sorted() { try deriveConversation(id, adding: only?.conversation == id ? only?.rowid : nil) }
        for group in touchedEventGroups.sorted() { try deriveEvents(group) }
        for id in touchedPages.subtracting(touchedConversations).sorted() {
            try db.run("UPDATE conversations SET change = ? WHERE id = ?", .integer(change), .text(id))
        }
        touchedConversations.removeAll()
        touchedEventGroups.removeAll()
        touchedPages.removeAll()
    }

    /// Conversation `id` with message `rowid` added, from its stored record (StoredConversation.appending).
    private func derive(_ id: String, adding rowid: Int) throws -> (StoredConversation.Derived, kind: String)? {
        guard let (old, kind, hadEvents, hadListMail, wasNewsletter, wasGroup) = try db.row(
            "SELECT record, kind, has_events, has_list_mail, is_newsletter, is_group FROM conversations WHERE id = ?", [.text(id)],
            { s in (s.bytes(0), s.text(1) ?? "", s.bool(2), s.bool(3), s.bool(4), s.bool(5)) }),
              let message = try db.row("SELECT summary, labels FROM messages WHERE rowid = ?", [.integer(rowid)],
                                       { s in StoredConversation.Message(summary: try JSONRecord(s.bytes(0)), labels: Self.strings(s.text(1) ?? "[]")) }),
              let d = StoredConversation.appending(message, to: try JSONRecord(old), id: id, hadListMail: hadListMail, hadEvents: hadEvents,
                                                   rules: normalizer.rules, now: now) else { return nil }
        // the kind stays when the flags that name it are as they were; else it is named as `derive` names it
        // (a conversation of the kind "newsletter" need not be all newsletters: its first message's
        // participant kind may say so)
        if d.isNewsletter == wasNewsletter && d.isGroup == wasGroup { return (d, kind) }
        if d.isNewsletter { return (d, "newsletter") }
        if d.isGroup { return (d, "group") }
        let participantKind = try db.text("SELECT participant_kind FROM messages WHERE conversation_id = ? AND role IS NULL ORDER BY rowid LIMIT 1",
                                          .text(id))
        return (d, participantKind ?? "people")
    }

    /// The parcels of the touched keys, gathered as parcel-group gathers them: every number
    /// that shares a pickup code with them, and every code-only mail of those codes, come too.
    private func deriveParcels() throws {
        var (numbers, codes) = touchedParcels
        touchedParcels = ([], [])
        guard !numbers.isEmpty || !codes.isEmpty else { return }
        var numbersDone = Set<String>(), codesDone = Set<String>()
        while numbersDone != numbers || codesDone != codes {
            for n in numbers.subtracting(numbersDone) {
                numbersDone.insert(n)
                try db.query("SELECT code_key FROM parcel_observations WHERE number_key = ? AND code_key IS NOT NULL", [.text(n)]) {
                    codes.insert($0.text(0) ?? "")
                }
            }
            for c in codes.subtracting(codesDone) {
                codesDone.insert(c)
                try db.query("SELECT number_key FROM parcel_observations WHERE code_key = ? AND number_key IS NOT NULL", [.text(c)]) {
                    numbers.insert($0.text(0) ?? "")
                }
            }
        }
        var observations: [ParcelGroup.Observation] = []
        let select = """
            SELECT o.shipment, m.id, m.date, m.conversation_id, o.position FROM parcel_observations o
            JOIN messages m ON m.rowid = o.message WHERE
            """
        func read(_ s: Statement) throws {
            if let o = ParcelGroup.observation(try JSONValue.parse(s.bytes(0)), messageID: s.text(1) ?? "", date: s.text(2) ?? "",
                                               conversationID: s.text(3), order: s.integer(4)) { observations.append(o) }
        }
        for n in numbers.sorted() { try db.query(select + " o.number_key = ?", [.text(n)], read) }
        for c in codes.sorted() { try db.query(select + " o.code_key = ? AND o.number_key IS NULL", [.text(c)], read) }
        let parcels = ParcelGroup.group(observations)
        var gone = Set(numbers).union(codes.map { "pickup:" + $0 })
        var existing: [String: [UInt8]] = [:]
        for id in gone {
            if let record = try db.row("SELECT record FROM parcels WHERE id = ?", [.text(id)], { $0.bytes(0) }) { existing[id] = record }
            try db.run("DELETE FROM parcels WHERE id = ?", .text(id))
        }
        for p in parcels {
            let f = p.facts
            let record = p.json()
            try db.run("INSERT OR REPLACE INTO parcels(id, status, last_date, deadline, expected_delivery, record, change) VALUES(?, ?, ?, ?, ?, ?, ?)",
                       .text(p.id), f.status.map(SQLValue.text) ?? .null, .text(f.lastDate), f.deadline.map(SQLValue.text) ?? .null,
                       f.expectedDelivery.map(SQLValue.text) ?? .null, .textBytes(record), .integer(change))
            gone.remove(p.id)
            if existing[p.id] != record {
                // every card of it shows its latest status: the messages that carry one change
                for id in p.messageIDs {
                    try db.query("UPDATE messages SET change = ? WHERE id = ? RETURNING conversation_id", [.integer(change), .text(id)]) {
                        touchedPages.insert($0.text(0) ?? "")
                    }
                }
            }
        }
        for id in gone.intersection(existing.keys).sorted() {
            try db.run("INSERT INTO removed(kind, id, change) VALUES('parcel', ?, ?)", .text(id), .integer(change))
        }
    }

    /// The stored messages of a conversation, in the order they were stored.
    func conversationMessages(_ id: String) throws -> (messages: [StoredConversation.Message], kind: String?) {
        var messages: [StoredConversation.Message] = []
        var kind: String?
        try db.query("SELECT summary, labels, participant_kind, role FROM messages WHERE conversation_id = ? ORDER BY rowid", [.text(id)]) { s in
            messages.append(StoredConversation.Message(summary: try JSONRecord(s.bytes(0)), labels: Self.strings(s.text(1) ?? "[]")))
            if kind == nil && s.isNull(3) { kind = s.text(2) }
        }
        return (messages, kind)
    }

    func derive(_ id: String) throws -> (StoredConversation.Derived, kind: String)? {
        let (messages, participantKind) = try conversationMessages(id)
        guard let d = StoredConversation.derive(id: id, messages: messages, rules: normalizer.rules, now: now) else { return nil }
        let kind = id == ConversationGroup.noticesID ? "notices" : d.isNewsletter ? "newsletter" : d.isGroup ? "group" : participantKind ?? "people"
        return (d, kind)
    }

    private func deriveConversation(_ id: String, adding rowid: Int?) throws {
        guard let (d, kind) = try rowid.flatMap({ try derive(id, adding: $0) }) ?? derive(id) else {
            try db.run("DELETE FROM conversations WHERE id = ?", .text(id))
            if db.changes > 0 { try db.run("INSERT INTO removed(kind, id, change) VALUES('conversation', ?, ?)", .text(id), .integer(change)) }
            return
        }
        try db.run("""
            INSERT OR REPLACE INTO conversations(id, kind, last_date, message_count, unread_count, archived, is_group,
              is_newsletter, has_events, last_from_me, has_list_mail, record, change) VALUES(?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
            """, .text(id), .text(kind), d.lastDate.map(SQLValue.text) ?? .null, .integer(d.messageCount), .integer(d.unreadCount),
            .integer(d.archived ? 1 : 0), .integer(d.isGroup ? 1 : 0), .integer(d.isNewsletter ? 1 : 0),
            .integer(d.hasEvents ? 1 : 0), .integer(d.lastFromMe ? 1 : 0), .integer(d.hasListMail ? 1 : 0), .textBytes(d.record), .integer(change))
    }

    private func deriveEvents(_ group: String) throws {
        var mail: [EventMail] = []
        var lastMessage: Int?
        try db.query("""
            SELECT o.event, m.id, m.date, m.conversation_id, m.from_address, o.message FROM event_observations o
            JOIN messages m ON m.rowid = o.message WHERE o.event_group = ? ORDER BY o.message, o.position
            """, [.text(group)]) { s in
            guard let e = Event(json: try JSONValue.parse(s.bytes(0))) else { return }
            if s.integer(5) != lastMessage {
                lastMessage = s.integer(5)
                mail.append(EventMail(messageID: s.text(1) ?? "", date: s.text(2), conversationID: s.text(3), sender: s.text(4), events: []))
            }
            mail[mail.count - 1].events.append(e)
        }
        try db.run("DELETE FROM events WHERE event_group = ?", .text(group))
        for d in StoredEvents.derive(mail) {
            let e = d.tracked.event
            try db.run("""
                INSERT INTO events(event_group, sort_key, start, end, status, summary, conversation_id, record, change)
                VALUES(?, ?, ?, ?, ?, ?, ?, ?, ?)
                """, .text(group), .text(d.sortKey), (e.start ?? e.startLocal).map(SQLValue.text) ?? .null,
                (e.end ?? e.endLocal).map(SQLValue.text) ?? .null, e.status.map(SQLValue.text) ?? .null,
                e.summary.map(SQLValue.text) ?? .null, d.tracked.conversationID.map(SQLValue.text) ?? .null,
                .textBytes(d.record), .integer(change))
        }
    }
}
