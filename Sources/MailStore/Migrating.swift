import Events
import JSONLines
import SQLite

/// What a migration leaves to Swift: a store of an older schema brought to what the current
/// code would have made of its messages. `Schema.prepare` changes the tables, and calls
/// `clearLabelsInRecords` in its transaction; `init` calls the others, which need the store open.
extension MailStore {
    /// Schema 6: the records stored before it, each with its labels as they were when it was
    /// added, made as `withoutLabels` makes them (a record that cannot be read is left as it is).
    static func clearLabelsInRecords(_ db: Database) throws {
        try forEachStoredRecord(db) { rowid, bytes, record in
            let stored = withoutLabels(record)
            if stored != bytes { try db.run("UPDATE messages SET record = ? WHERE rowid = ?", .textBytes(stored), .integer(rowid)) }
        }
    }

    /// Schema 10: the search index made again from every stored record, as `insert` indexes
    /// one now (a record that cannot be read is left out of it, as it would not have been stored).
    static func indexEverySearchText(_ db: Database) throws {
        try forEachStoredRecord(db) { rowid, _, record in try indexSearchText(of: record, rowid: rowid, in: db) }
    }

    /// Every stored record that can be read, a few at a time (a store may hold more than memory
    /// does), with its row and its bytes.
    private static func forEachStoredRecord(_ db: Database, _ body: (Int, [UInt8], JSONRecord) throws -> Void) throws {
        var after = 0
        while true {
            var rows: [(rowid: Int, record: [UInt8])] = []
            try db.query("SELECT rowid, record FROM messages WHERE rowid > ? ORDER BY rowid LIMIT 256", [.integer(after)]) {
                rows.append(($0.integer(0), $0.bytes(1)))
            }
            guard let last = rows.last else { return }
            after = last.rowid
            for row in rows {
                guard let record = try? JSONRecord(row.record) else { continue }
                try body(row.rowid, row.record, record)
            }
        }
    }

    /// A store of schema 1 or 2 made current: its reports and auto-replies placed with the
    /// messages they answer, every conversation derived again, its messages' parcels read.
    func placeAfterSchema3() throws {
        try batch {
            var rowids: [Int] = []
            try db.query("SELECT rowid FROM messages WHERE answers IS NOT NULL") { rowids.append($0.integer(0)) }
            for r in rowids { try place(r) }
            try db.query("SELECT DISTINCT conversation_id FROM messages UNION SELECT id FROM conversations") {
                touchedConversations.insert($0.text(0) ?? "")
            }
            var withShipments: [(Int, [UInt8])] = []
            try db.query("SELECT rowid, record FROM messages WHERE json_array_length(record, '$.shipments') > 0") {
                withShipments.append(($0.integer(0), $0.bytes(1)))
            }
            for (r, bytes) in withShipments { try storeParcelObservations(of: try JSONRecord(bytes), rowid: r) }
        }
    }

    /// A store of schema 4 or older made current: its reports that name no message, which it
    /// kept in their participants' conversations, placed in the notices conversation.
    func placeReportsNamingNoMessage() throws {
        try batch {
            var rowids: [Int] = []
            try db.query("SELECT rowid FROM messages WHERE role = 'report' AND answers IS NULL") { rowids.append($0.integer(0)) }
            for r in rowids { try place(r) }
        }
    }

    /// A store of schema 8 or older made current: every event derived again, for its sort key
    /// tells events of the same start apart as event-group does (schema 6), and a sender's
    /// appointments read from text are one group (schema 9). Before schema 5 keys
    /// were written up to their first NUL, so an event's group was its kind alone ("uid": every
    /// iCalendar event one group, derived again at each invitation): each observation's group
    /// is written whole first.
    func deriveEveryEventGroup() throws {
        try batch {
            var groups: [(message: Int, position: Int, group: String)] = []
            try db.query("""
                SELECT o.message, o.position, o.event, m.id, m.from_address FROM event_observations o JOIN messages m ON m.rowid = o.message
                """) { s in
                guard let e = Event(json: try JSONValue.parse(s.bytes(2))) else { return }
                groups.append((s.integer(0), s.integer(1), StoredEvents.group(of: e, messageID: s.text(3) ?? "", sender: s.text(4)?.lowercased())))
            }
            for g in groups {
                try db.run("UPDATE event_observations SET event_group = ? WHERE message = ? AND position = ?",
                           .text(g.group), .integer(g.message), .integer(g.position))
                touchedEventGroups.insert(g.group)
            }
            try db.execute("DELETE FROM events")
        }
    }
}
