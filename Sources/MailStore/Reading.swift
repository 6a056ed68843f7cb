import Conversations
import Events
import JSONLines
import Parcels
import SQLite
import UTF8Text

/// What the store answers, as JSON Lines in the filters' record forms.
extension MailStore {
    public struct ConversationQuery {
        /// Every conversation, archived or not, ordered as conversation-group orders them.
        public var all = false
        public var archived = false
        public var kind: String?
        public var changedAfter: Int?
        public var limit: Int?
        public init() {}
    }

    /// The chat list: conversation-group's records, newest first. A conversation that names
    /// events is written again for `now`, as its upcoming events depend on it.
    public func conversations(_ q: ConversationQuery, _ write: ([UInt8]) throws -> Void) throws {
        var conditions: [String] = []
        var values: [SQLValue] = []
        if !q.all {
            conditions.append("archived = ?")
            values.append(.integer(q.archived ? 1 : 0))
        }
        if let kind = q.kind {
            conditions.append("kind = ?")
            values.append(.text(kind))
        }
        if let after = q.changedAfter {
            conditions.append("change > ?")
            values.append(.integer(after))
        }
        var sql = "SELECT id, record, has_events FROM conversations"
        if !conditions.isEmpty { sql += " WHERE " + conditions.joined(separator: " AND ") }
        sql += " ORDER BY last_date DESC, id"  // no date (null) last, as conversation-group
        if let limit = q.limit { sql += " LIMIT \(limit)" }
        var rows: [(id: String, record: [UInt8], hasEvents: Bool)] = []
        try db.query(sql, values) { rows.append(($0.text(0) ?? "", $0.bytes(1), $0.bool(2))) }
        for row in rows {
            if row.hasEvents, let (d, _) = try derive(row.id) { try write(d.record) } else { try write(row.record) }
        }
    }

    /// A message as the pipeline wrote it, with its labels now and the participant-hash fields
    /// the store keyed it with.
    func messageRecord(_ s: Statement) throws -> [UInt8] {
        let record = try JSONRecord(s.bytes(0))
        let summary = try JSONRecord(s.bytes(2))
        // the message's own key: a report or an auto-reply is stored in the conversation it answers
        let participants = summary.value("participants")?.arrayValue?.compactMap(\.stringValue) ?? []
        var conversation = JSONWriter(capacity: 80)
        conversation.string(ParticipantKey.hash(participants))
        var key = JSONWriter(capacity: 80)
        key.string(participants.joined(separator: ","))
        return record.updated([
            ("labels", s.bytes(1)),
            ("participants", Array(summary.rawValue("participants") ?? [])),
            ("participant_hash", conversation.bytes),
            ("conversation_key", key.bytes),
            ("is_group", Array(summary.rawValue("is_group") ?? [])),
            ("from_me", Array(summary.rawValue("from_me") ?? [])),
        ])
    }

    static let messageColumns = "m.record, m.labels, m.summary"

    /// A conversation's messages, newest first; `before` (an RFC 3339 time) pages back.
    public func messages(conversation: String, before: String?, limit: Int?, _ write: ([UInt8]) throws -> Void) throws {
        var sql = "SELECT \(Self.messageColumns) FROM messages m WHERE m.conversation_id = ? AND m.role IS NULL"
        var values: [SQLValue] = [.text(conversation)]
        if let before {
            sql += " AND m.date < ?"
            values.append(.text(before))
        }
        sql += " ORDER BY m.date DESC, m.rowid DESC"
        if let limit { sql += " LIMIT \(limit)" }
        try db.query(sql, values) { try write(try messageRecord($0)) }
    }

    public enum SearchOutput: String, CaseIterable, Sendable { case messages, ids, conversations }

    /// The messages a query finds, newest first: whole records, their ids, or the
    /// conversations they are in (each once, in the order of its newest match).
    public func search(_ query: SearchQuery, output: SearchOutput, limit: Int?, _ write: ([UInt8]) throws -> Void) throws {
        let columns = output == .messages ? Self.messageColumns : "m.id, m.conversation_id"
        let table = output == .messages ? "messages m" : query.messagesForIDs
        var sql = "SELECT \(columns) FROM \(table) WHERE \(query.sql) ORDER BY m.date DESC, m.rowid DESC"
        if let limit, output != .conversations { sql += " LIMIT \(limit)" }
        var seen = Set<String>()
        try db.query(sql, query.parameters) { s in
            switch output {
            case .messages:
                try write(try messageRecord(s))
            case .ids:
                var w = JSONWriter(capacity: 80)
                w.string(s.text(0) ?? "")
                try write(w.bytes)
            case .conversations:
                let id = s.text(1) ?? ""
                if let limit, seen.count >= limit { return }
                if seen.insert(id).inserted, let record = try db.text("SELECT record FROM conversations WHERE id = ?", .text(id)) {
                    try write(Array(record.utf8))
                }
            }
        }
    }

    /// How many messages a query finds.
    public func count(_ query: SearchQuery) throws -> Int {
        try db.integer("SELECT count(*) FROM \(query.messagesForIDs) WHERE \(query.sql)", query.parameters) ?? 0
    }

    /// The calendar: event-group's records, in its order.
    public func events(changedAfter: Int? = nil, _ write: ([UInt8]) throws -> Void) throws {
        var sql = "SELECT record FROM events"
        var values: [SQLValue] = []
        if let changedAfter {
            sql += " WHERE change > ?"
            values.append(.integer(changedAfter))
        }
        try db.query(sql + " ORDER BY sort_key", values) { try write($0.bytes(0)) }
    }

    /// The occurrences of the calendar's events in `window`, as event-group --from/--to writes them.
    public func occurrences(in window: Range<Int>, zone: String, _ write: ([UInt8]) throws -> Void) throws {
        for record in StoredEvents.occurrences(of: try calendar(), in: window, zone: zone) { try write(record) }
    }

    /// The parcels, as parcel-group writes them (newest news first), those `filter` keeps.
    public func parcels(_ filter: ParcelGroup = ParcelGroup(), changedAfter: Int? = nil, _ write: ([UInt8]) throws -> Void) throws {
        var sql = "SELECT record, status, last_date, deadline, expected_delivery FROM parcels"
        var values: [SQLValue] = []
        if let changedAfter {
            sql += " WHERE change > ?"
            values.append(.integer(changedAfter))
        }
        try db.query(sql + " ORDER BY last_date DESC, id", values) { s in
            let facts = ParcelGroup.Facts(status: s.text(1), lastDate: s.text(2) ?? "", deadline: s.text(3), expectedDelivery: s.text(4))
            if filter.keeps(facts) { try write(s.bytes(0)) }
        }
    }

    /// The database's settings and counts, one record.
    public func configRecord() throws -> [UInt8] {
        var w = JSONWriter(capacity: 512)
        w.beginObject()
        w.field("database", path)
        w.field("schema_version", Schema.version)
        w.field("me", strings: own.addresses)
        w.field("address_rules", strings: (rules.gmailCanonical ? ["gmail-canonical"] : []) + (rules.stripPlus ? ["strip-plus"] : []))
        w.field("lists", strings: lists.sorted())
        w.field("history_id", try historyID())
        w.field("gmail_pending", try db.integer("SELECT count(*) FROM gmail_pending") ?? 0)
        w.field("change", try changeCounter())
        for table in ["messages", "conversations", "events"] {
            w.field(table, try db.integer("SELECT count(*) FROM \(table)") ?? 0)
        }
        w.field("sqlite_version", Database.libraryVersion)
        w.endObject()
        return w.bytes
    }
}

/// What a site (chat-render --store) reads: one moment of the database, and what changed after
/// the change counter it last rendered.
extension MailStore {
    /// Runs `body` in one read transaction: all it reads is the same moment of the database.
    public func snapshot<T>(_ body: () throws -> T) throws -> T {
        try db.execute("BEGIN")
        defer { try? db.execute("COMMIT") }
        return try body()
    }

    /// Made at random with the database: a site knows which database its counter is of.
    public func storeID() throws -> String { try config("store_id") ?? "" }

    public struct ConversationRow {
        public var id: String
        public var change: Int
        public var lastFromMe: Bool
        /// A message of it is a discussion list's (newsletter-detect's mail_kind).
        public var isList: Bool
    }

    /// The conversations changed after change counter `after`.
    public func conversations(changedAfter after: Int) throws -> [ConversationRow] {
        var rows: [ConversationRow] = []
        try db.query("SELECT id, change, last_from_me, has_list_mail FROM conversations WHERE change > ?", [.integer(after)]) { s in
            rows.append(ConversationRow(id: s.text(0) ?? "", change: s.integer(1), lastFromMe: s.bool(2), isList: s.bool(3)))
        }
        return rows
    }

    /// Whether the calendar changed after change counter `after`: an event derived again, a
    /// message removed (the events only it told of go with it), or a conversation with events
    /// derived again (the events' cards name it).
    public func calendarChanged(after: Int) throws -> Bool {
        try db.integer("""
            SELECT EXISTS (SELECT 1 FROM events WHERE change > ?1)
              OR EXISTS (SELECT 1 FROM removed WHERE kind = 'message' AND change > ?1)
              OR EXISTS (SELECT 1 FROM conversations WHERE change > ?1 AND has_events)
            """, .integer(after)) != 0
    }

    /// Every conversation, in conversation-group's order, without its record (an index holds
    /// all of this).
    public func everyConversation(_ body: (ConversationRow) throws -> Void) throws {
        try db.query("SELECT id, change, last_from_me, has_list_mail FROM conversations ORDER BY last_date DESC, id") { s in
            try body(ConversationRow(id: s.text(0) ?? "", change: s.integer(1), lastFromMe: s.bool(2), isList: s.bool(3)))
        }
    }

    /// A conversation's record, as `conversations` writes it.
    public func conversationRecord(_ id: String) throws -> [UInt8]? {
        try db.row("SELECT record FROM conversations WHERE id = ?", [.text(id)]) { $0.bytes(0) }
    }

    /// What a page shows of a message beside its record.
    public struct PageFacts: Sendable {
        /// Unread now (its labels in the store).
        public var unread: Bool
        public var fromMe: Bool
        /// For mail I sent with `send`: sending, sent or failed, and why it failed.
        public var sendState: String?
        public var sendError: String?
        public init(unread: Bool, fromMe: Bool, sendState: String? = nil, sendError: String? = nil) {
            (self.unread, self.fromMe, self.sendState, self.sendError) = (unread, fromMe, sendState, sendError)
        }
    }

    /// A conversation's messages for its page, oldest first (those of the same second by id, as
    /// conversation-group orders them): each record as it was added (its labels member null)
    /// and its page facts; without building the `messages` form of each.
    public func pageMessages(conversation: String, from offset: Int = 0, _ body: (JSONRecord, PageFacts) throws -> Void) throws {
        let sql = """
            SELECT m.record, m.labels, m.from_me, m.send_state,
                   CASE WHEN m.send_state = 'failed' THEN (SELECT last_error FROM actions WHERE message = m.id AND kind = 'send') END
            FROM messages m WHERE m.conversation_id = ? AND m.role IS NULL ORDER BY m.date, m.id LIMIT -1 OFFSET ?
            """
        try db.query(sql, [.text(conversation), .integer(offset)]) { s in
            try body(try JSONRecord(s.bytes(0)), PageFacts(unread: Self.isUnread(labels: s.bytes(1)), fromMe: s.bool(2), sendState: s.text(3), sendError: s.text(4)))
        }
    }

    private static let unreadMark = Array(#""UNREAD""#.utf8)

    /// Whether a `labels` column holds UNREAD, as a conversation counts its unread messages
    /// (exactly, not as search's is:unread, which ignores case).
    static func isUnread(labels: [UInt8]) -> Bool {
        // most messages are read: their labels need no parse
        guard ByteSearch.contains(labels, unreadMark) else { return false }
        return strings(String(decoding: labels, as: UTF8.self)).contains("UNREAD")
    }

    /// The ids of a conversation's messages in the order of `pageMessages`, with the change
    /// counter each was last changed at and its date: from an index, without reading the messages.
    public func pageMessageIDs(conversation: String) throws -> [(id: String, change: Int, date: String?)] {
        var ids: [(id: String, change: Int, date: String?)] = []
        try db.query("SELECT id, change, date FROM messages WHERE conversation_id = ? AND role IS NULL ORDER BY date, id", [.text(conversation)]) { s in
            ids.append((s.text(0) ?? "", s.integer(1), s.text(2)))
        }
        return ids
    }

    /// The ids of the conversations, messages and parcels removed after change counter `after`.
    public func removed(after: Int) throws -> (conversations: [String], messages: [String], parcels: [String]) {
        var result: (conversations: [String], messages: [String], parcels: [String]) = ([], [], [])
        try db.query("SELECT kind, id FROM removed WHERE change > ?", [.integer(after)]) { s in
            let id = s.text(1) ?? ""
            switch s.text(0) {
            case "conversation": result.conversations.append(id)
            case "message": result.messages.append(id)
            case "parcel": result.parcels.append(id)
            default: break
            }
        }
        return result
    }

    /// A parcel as a site's lists read it without its record: its id, the change counter it was
    /// last written at, and what it is grouped and sorted by.
    public struct ParcelRow {
        public var id: String
        public var change: Int
        public var facts: ParcelGroup.Facts

        public init(id: String, change: Int, facts: ParcelGroup.Facts) {
            (self.id, self.change, self.facts) = (id, change, facts)
        }
    }

    /// The parcels a site's lists read.
    public enum ParcelSelection {
        case all
        /// Those with news at or after an RFC 3339 time.
        case newsSince(String)
        /// Those written after a change counter.
        case changedAfter(Int)
        /// Those whose pickup deadline or expected delivery is one of these dates.
        case dueOn([String])
        case ids([String])

        /// Whether it selects `row`, as the database's query does (for parcels read from files).
        public func selects(_ row: ParcelRow) -> Bool {
            switch self {
            case .all: true
            case .newsSince(let date): row.facts.lastDate >= date
            case .changedAfter(let change): row.change > change
            case .dueOn(let dates): row.facts.deadline.map(dates.contains) == true || row.facts.expectedDelivery.map(dates.contains) == true
            case .ids(let ids): ids.contains(row.id)
            }
        }
    }

    /// The rows of the parcels `selection` selects, in the order of `parcels`.
    public func parcelRows(_ selection: ParcelSelection = .all, _ body: (ParcelRow) throws -> Void) throws {
        let (condition, values): (String, [SQLValue]) = switch selection {
        case .all: ("1", [])
        case .newsSince(let date): ("last_date >= ?", [.text(date)])
        case .changedAfter(let change): ("change > ?", [.integer(change)])
        case .dueOn(let dates): ("deadline IN (SELECT value FROM json_each(?1)) OR expected_delivery IN (SELECT value FROM json_each(?1))",
                                 [.text(Self.json(dates))])
        case .ids(let ids): ("id IN (SELECT value FROM json_each(?))", [.text(Self.json(ids))])
        }
        let sql = "SELECT id, change, status, last_date, deadline, expected_delivery FROM parcels WHERE \(condition) ORDER BY last_date DESC, id"
        try db.query(sql, values) { s in
            let facts = ParcelGroup.Facts(status: s.text(2), lastDate: s.text(3) ?? "", deadline: s.text(4), expectedDelivery: s.text(5))
            try body(ParcelRow(id: s.text(0) ?? "", change: s.integer(1), facts: facts))
        }
    }

    /// parcel-group's record of parcel `id`.
    public func parcelRecord(_ id: String) throws -> [UInt8]? {
        try db.row("SELECT record FROM parcels WHERE id = ?", [.text(id)]) { $0.bytes(0) }
    }

    /// Whether a parcel changed, came or went after change counter `after`.
    public func parcelsChanged(after: Int) throws -> Bool {
        try db.integer("SELECT EXISTS (SELECT 1 FROM parcels WHERE change > ?1) OR EXISTS (SELECT 1 FROM removed WHERE kind = 'parcel' AND change > ?1)",
                       .integer(after)) != 0
    }

    /// parcel-group's record of the parcel a shipment belongs to (`ParcelGroup.parcelID`).
    public func parcel(of shipment: JSONValue) throws -> JSONValue? {
        let id = try ParcelGroup.parcelID(of: shipment) { code in
            var numbers: [String] = []
            try db.query("SELECT DISTINCT number_key FROM parcel_observations WHERE code_key = ? AND number_key IS NOT NULL", [.text(code)]) {
                numbers.append($0.text(0) ?? "")
            }
            return numbers
        }
        guard let id, let record = try parcelRecord(id) else { return nil }
        return try JSONValue.parse(record)
    }

    /// The calendar, in event-group's order.
    public func calendar() throws -> [EventStore.Tracked] {
        var events: [EventStore.Tracked] = []
        try db.query("SELECT record FROM events ORDER BY sort_key") { s in
            if let t = StoredEvents.tracked(record: try JSONValue.parse(s.bytes(0))) { events.append(t) }
        }
        return events
    }
}

extension MailStore {
    /// A message's record, as it was added, by its id (mime-parse's `id`).
    public func messageRecord(id: String) throws -> [UInt8]? {
        try db.row("SELECT record FROM messages WHERE id = ?", [.text(id)]) { $0.bytes(0) }
    }

    /// The record of a conversation's newest message (reports and drafts aside), as its page
    /// shows it last.
    public func newestMessageRecord(conversation: String) throws -> [UInt8]? {
        try db.row("SELECT record FROM messages WHERE conversation_id = ? AND role IS NULL ORDER BY date DESC, id DESC LIMIT 1",
                   [.text(conversation)]) { $0.bytes(0) }
    }

    /// The lists the store knows (their posting addresses, normalized).
    public func knownLists() throws -> [String] {
        var lists: [String] = []
        try db.query("SELECT address FROM lists ORDER BY address") { lists.append($0.text(0) ?? "") }
        return lists
    }
}

extension MailStore {
    /// The display name I last wrote beside `address` in From, among the newest 5,000 messages
    /// (a bound on the cost of a scan the schema has no index for).
    public func ownName(address: String) throws -> String? {
        try db.row("""
            SELECT from_name FROM (SELECT from_name, from_me, from_address FROM messages INDEXED BY messages_by_date ORDER BY date DESC LIMIT 5000)
            WHERE from_me = 1 AND from_address = ? AND from_name IS NOT NULL AND from_name <> '' LIMIT 1
            """, [.text(address.lowercased())]) { $0.text(0) } ?? nil
    }
}
