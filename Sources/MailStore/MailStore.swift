#if canImport(Glibc)
import Glibc
#endif
import Conversations
import Events
import JSONLines
import Parcels
import SQLite
import UnixFilter

public enum StoreError: Error, CustomStringConvertible {
    case notAStore(String)
    case newerSchema(String, Int)
    case missing(String)
    case cannotMake(String, String)
    case noOwnAddress
    case badAddress(String)
    case sqlite(String, SQLiteError)
    case refused(PrivateFolder.Refused)
    case journal(String, String)

    public var description: String {
        switch self {
        case .notAStore(let path): "\(path): not a mailstore database (left as it is)"
        case .newerSchema(let path, let v): "\(path): made by a newer mailstore (schema \(v), this one reads up to \(Schema.version)); left as it is"
        case .missing(let path): "\(path): no such database (mailstore add makes one)"
        case .cannotMake(let path, let why): "\(path): cannot make the database: \(why)"
        case .noOwnAddress: "no address of yours: give --me ADDR or --me-auto (remembered in the database)"
        case .badAddress(let a): "--me: not an address: '\(a)'"
        case .sqlite(let path, let e): "\(path): \(e.description)"
        case .refused(let refused): refused.description
        case .journal(let path, let why): "\(path): \(why)"
        }
    }

    public var status: ExitStatus {
        switch self {
        case .notAStore, .newerSchema: .dataError
        case .missing: .noInput
        case .cannotMake, .journal: .ioError
        case .noOwnAddress, .badAddress: .usage
        case .sqlite(_, let e): e.isNotADatabase ? .dataError : .ioError
        case .refused: .cannotCreate
        }
    }
}

/// A mailstore database: the pipeline's records, and the conversations and calendar they make,
/// kept current one message at a time. See mailstore(1) and mailstore(5).
public final class MailStore {
    let db: Database
    public let path: String
    var normalizer: AddressNormalizer
    public private(set) var own = OwnAddresses()
    var lists = Set<String>()
    /// The time conversations' upcoming events are counted from.
    public var now = Int(Glibc.time(nil))

    // what the open batch has touched, derived again when it ends
    var touchedConversations = Set<String>()
    private var touchedEventGroups = Set<String>()
    /// The parcels' number and pickup-code keys the batch touched (parcel-group's grouping).
    private var touchedParcels: (numbers: Set<String>, codes: Set<String>) = ([], [])
    /// The lists in the database's table.
    private var savedLists = Set<String>()
    private(set) var change = 0

    /// `.load` is `.write` for a big first load: a missing database is built in a scratch file
    /// beside it, without a journal (each page written once, not to the WAL and again to the
    /// database), and appears whole at `close()`. A crash leaves no database, and the same load
    /// again makes it.
    public enum Access { case read, write, load }

    /// How long a writer waits for another's turn, in milliseconds.
    static let busyTimeout = 60_000

    /// While a missing database is built: its scratch file, and the lock that makers take turns by.
    private var building: (scratch: String, lock: Int32)?

    /// Opens the database at `path`; with `.write` or `.load`, makes it when it is missing.
    public init(path: String, access: Access) throws {
        self.path = path
        var built: (scratch: String, lock: Int32)?
        var migratedFrom: Int?
        // SQLite makes its -wal and -shm files beside the database, even to read it
        let folder = PrivateFolder.folder(of: path)
        if Glibc.access(folder, F_OK) == 0 {
            do throws(PrivateFolder.Refused) { try PrivateFolder.check(folder) } catch { throw StoreError.refused(error) }
        }
        var existing = stat()
        if access == .read && stat(path, &existing) == 0 && existing.st_size == 0 {
            throw StoreError.notAStore(path)  // SQLite would make a new database of it
        }
        if Glibc.access(path, F_OK) != 0 {
            guard access != .read else { throw StoreError.missing(path) }
            let lock = try Self.lockMaking(path)
            do {
                if Glibc.access(path, F_OK) == 0 {
                    Glibc.close(lock)  // another process made it meanwhile
                } else if access == .load {
                    built = (try Self.makeScratch(path), lock)
                } else {
                    let scratch = try Self.makeScratch(path)
                    defer { unlink(scratch) }
                    if link(scratch, path) != 0 { throw StoreError.cannotMake(path, String(cString: strerror(errno))) }
                    Glibc.close(lock)
                }
            } catch {
                Glibc.close(lock)
                throw error
            }
        }
        do {
            db = try Database(path: built?.scratch ?? path, mode: .readWrite)
            db.setBusyTimeout(milliseconds: Self.busyTimeout)
            migratedFrom = try Schema.prepare(db)
            // a 32 MiB page cache: a load of many messages is written to the WAL once instead of
            // spilling pages and reading them back
            try db.execute(built == nil ? "PRAGMA journal_mode = WAL; PRAGMA synchronous = NORMAL; PRAGMA cache_size = -32768"
                                         : "PRAGMA journal_mode = MEMORY; PRAGMA synchronous = OFF; PRAGMA cache_size = -32768")
            // a reader (a site rendered whole) maps the file instead of copying each page it reads
            if access == .read { try db.execute("PRAGMA mmap_size = 1073741824") }
        } catch let e as SQLiteError {
            if let built {
                unlink(built.scratch)
                Glibc.close(built.lock)
            }
            throw e.isNotADatabase ? StoreError.notAStore(path) : StoreError.sqlite(path, e)
        }
        building = built
        // a load makes messages_listing, what searches read most, at its end from the finished
        // table, so that the index's pages lie together rather than among the records'
        if built != nil { try db.execute("DROP INDEX messages_listing") }
        normalizer = AddressNormalizer(rules: Self.rules(try db.text("SELECT value FROM config WHERE key = 'address_rules'")))
        for a in try config("me").map(Self.strings) ?? [] { normalizer.normalize(a).map { own.add($0) } }
        try db.query("SELECT address FROM lists") { savedLists.insert($0.text(0) ?? "") }
        lists = savedLists
        if let from = migratedFrom {
            if from < 3 { try placeAfterSchema3() }
            if from < 5 {
                try placeReportsNamingNoMessage()
                try deriveEveryEventGroup()
            }
        }
    }

    /// A store of schema 1 or 2 made current: its reports and auto-replies placed with the
    /// messages they answer, every conversation derived again, its messages' parcels read.
    private func placeAfterSchema3() throws {
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
    private func placeReportsNamingNoMessage() throws {
        try batch {
            var rowids: [Int] = []
            try db.query("SELECT rowid FROM messages WHERE role = 'report' AND answers IS NULL") { rowids.append($0.integer(0)) }
            for r in rowids { try place(r) }
        }
    }

    /// A store of schema 4 or older made current: keys were written up to their first NUL, so
    /// an event's group was its kind alone ("uid": every iCalendar event one group, derived
    /// again at each invitation) and its sort key its start alone (events of the same start
    /// listed as they were stored, not as event-group lists them). Each observation's group is
    /// written whole and every event derived again.
    private func deriveEveryEventGroup() throws {
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

    /// Ends the use of the store. A database built by a `.load` is put in place: in WAL mode,
    /// on the disk, then linked where it belongs.
    public func close() throws {
        guard let scratch = building?.scratch, let lock = building?.lock else {
            db.close()
            return
        }
        building = nil
        var failure: StoreError?
        do throws(SQLiteError) {
            try db.execute(Schema.messagesListing)
            try db.execute("PRAGMA journal_mode = WAL")
        } catch {
            failure = .sqlite(path, error)
        }
        db.close()
        if failure == nil {
            let fd = open(scratch, O_RDONLY | O_CLOEXEC)
            if fd < 0 || fsync(fd) != 0 || link(scratch, path) != 0 {
                failure = .cannotMake(path, String(cString: strerror(errno)))
            }
            if fd >= 0 { Glibc.close(fd) }
        }
        unlink(scratch)
        Glibc.close(lock)
        if let failure { throw failure }
        Self.syncFolder(of: path)
    }

    /// Rewrites the database in order (SQLite's VACUUM). A load writes the records and the
    /// indexes one message at a time, so an index's pages end up scattered among the records'
    /// (11 KB each); a search, a process of its own, then maps many more pages than it reads.
    public func compact() throws {
        do throws(SQLiteError) {
            try db.execute("VACUUM")
            try db.execute("PRAGMA wal_checkpoint(TRUNCATE)")
        } catch {
            throw StoreError.sqlite(path, error)
        }
    }

    /// Gives up a database being built (a load that failed): nothing appears.
    public func abandon() {
        guard let scratch = building?.scratch, let lock = building?.lock else { return }
        building = nil
        unlink(scratch)
        Glibc.close(lock)
    }

    /// Makers of a database take turns by a lock file beside it (`DB.lock`), so that a load
    /// building it in a scratch file is never raced by another maker.
    private static func lockMaking(_ path: String) throws -> Int32 {
        let lock = open(path + ".lock", O_RDWR | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0o600)
        guard lock >= 0 else { throw StoreError.cannotMake(path, String(cString: strerror(errno))) }
        let locked = lockExclusively(lock, waitingAtMost: busyTimeout / 1000)
        guard locked == 0 else {
            Glibc.close(lock)
            throw StoreError.cannotMake(path, locked == EWOULDBLOCK ? "another maker has held \(path).lock for \(busyTimeout / 1000) s" : String(cString: strerror(locked)))
        }
        return lock
    }

    /// A new database with its schema in a scratch file beside `path`, readable by the user
    /// alone; the scratch files of makers that were killed are removed first (the lock is held).
    private static func makeScratch(_ path: String) throws -> String {
        removeScratchFiles(of: path)
        let scratch = path + ".new-\(getpid())"
        let fd = open(scratch, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o600)
        guard fd >= 0 else { throw StoreError.cannotMake(path, String(cString: strerror(errno))) }
        Glibc.close(fd)
        do {
            let db = try Database(path: scratch, mode: .readWrite)
            try Schema.prepare(db)
            try db.execute("PRAGMA journal_mode = WAL")
            db.close()
        } catch let e as SQLiteError {
            unlink(scratch)
            throw StoreError.sqlite(path, e)
        }
        return scratch
    }

    private static func removeScratchFiles(of path: String) {
        let (folder, name) = split(path)
        guard let dir = opendir(folder) else { return }
        defer { closedir(dir) }
        var scratch: [String] = []
        while let entry = readdir(dir) {
            let entryName = withUnsafeBytes(of: entry.pointee.d_name) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
            if entryName.hasPrefix(name + ".new-") { scratch.append(entryName) }
        }
        for entryName in scratch { unlink(folder + "/" + entryName) }
    }

    private static func syncFolder(of path: String) {
        let fd = open(split(path).folder, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        guard fd >= 0 else { return }
        fsync(fd)
        Glibc.close(fd)
    }

    /// The folder a path is in, and its name there.
    private static func split(_ path: String) -> (folder: String, name: String) {
        guard let slash = path.lastIndex(of: "/") else { return (".", path) }
        let folder = String(path[..<slash])
        return (folder.isEmpty ? "/" : folder, String(path[path.index(after: slash)...]))
    }

    // MARK: config

    func config(_ key: String) throws -> String? { try db.text("SELECT value FROM config WHERE key = ?", .text(key)) }

    func setConfig(_ key: String, _ value: String?) throws {
        if let value {
            try db.run("INSERT INTO config(key, value) VALUES(?, ?) ON CONFLICT(key) DO UPDATE SET value = excluded.value", .text(key), .text(value))
        } else {
            try db.run("DELETE FROM config WHERE key = ?", .text(key))
        }
    }

    static func strings(_ json: String) -> [String] {
        (try? JSONValue.parse(Array(json.utf8)))?.arrayValue?.compactMap(\.stringValue) ?? []
    }

    static func json(_ strings: [String]) -> String {
        var w = JSONWriter(capacity: 64)
        w.beginArray()
        for s in strings { w.string(s) }
        w.endArray()
        return String(decoding: w.bytes, as: UTF8.self)
    }

    /// The counter each change made in one batch carries; the database's is the last one's.
    public func changeCounter() throws -> Int { try config("change").flatMap { Int($0) } ?? 0 }

    public func historyID() throws -> String? { try config("history_id") }

    /// Your addresses as they were given (`own` holds them normalized).
    public func givenAddresses() throws -> [String] { try config("me").map(Self.strings) ?? [] }

    /// The address rules the database keys with (participant-hash's --gmail-canonical and
    /// --strip-plus).
    public var rules: AddressRules { normalizer.rules }

    static func rules(_ json: String?) -> AddressRules {
        let names = json.map(strings) ?? []
        return AddressRules(gmailCanonical: names.contains("gmail-canonical"), stripPlus: names.contains("strip-plus"))
    }

    static func json(_ rules: AddressRules) -> String {
        json((rules.gmailCanonical ? ["gmail-canonical"] : []) + (rules.stripPlus ? ["strip-plus"] : []))
    }

    /// Remembers the user's addresses (as given: they are normalized with the rules in force)
    /// and the address rules, either of them left as it is when nil, and keys every message
    /// again, its recipients too.
    public func setKeying(addresses: [String]? = nil, rules: AddressRules? = nil) throws {
        let given = try addresses ?? givenAddresses()
        let newRules = rules ?? normalizer.rules
        let newNormalizer = AddressNormalizer(rules: newRules)
        var fresh = OwnAddresses()
        for a in given {
            guard let n = newNormalizer.normalize(a), n.contains("@") else { throw StoreError.badAddress(a) }
            fresh.add(n)
        }
        try batch {
            normalizer = newNormalizer
            own = fresh
            try setConfig("me", Self.json(given))
            try setConfig("address_rules", Self.json(newRules))
            var rowids: [Int] = []
            try db.query("SELECT rowid FROM messages") { rowids.append($0.integer(0)) }
            for r in rowids { try rekey(r, recipientsToo: true) }
        }
    }

    /// Messages may be stored before the user's addresses are known (the live path's first
    /// delivery may not show them): everyone in them is a participant until `setKeying` keys
    /// every message again.
    public private(set) var keysWithoutOwnAddresses = false

    /// Adds the addresses the records show to be the user's (participant-hash's --me-auto),
    /// when the database knows none: what was inferred, or nil when nothing was (then everyone
    /// is a participant until they are known: `keysWithoutOwnAddresses`).
    public func inferOwnAddresses(_ inference: OwnAddressInference) throws -> String? {
        let addresses = inference.addresses
        guard own.isEmpty else { return nil }
        guard !addresses.isEmpty else {
            keysWithoutOwnAddresses = true
            return nil
        }
        for a in addresses { own.add(a) }
        try batch { try setConfig("me", Self.json(own.addresses)) }
        return inference.report
    }

    // MARK: batches

    /// Runs `body` in one transaction; the conversations and events it touched are derived
    /// again before it commits. The write lock is waited for as long as another writer holds
    /// it; once it is held, nothing else can make the batch busy, so `body` (which may read a
    /// stream) runs once.
    public func batch<T>(_ body: () throws -> T) throws -> T {
        do {
            try beginWriting()
            do {
                change = try changeCounter() + 1
                savedLists.removeAll()
                try db.query("SELECT address FROM lists") { savedLists.insert($0.text(0) ?? "") }
                lists = savedLists
                touchedConversations.removeAll()
                touchedEventGroups.removeAll()
                touchedParcels = ([], [])
                let before = db.totalChanges
                let result = try body()
                try deriveTouched()
                if db.totalChanges != before { try setConfig("change", String(change)) }
                try db.execute("COMMIT")
                return result
            } catch {
                if db.isInTransaction { try? db.execute("ROLLBACK") }
                throw error
            }
        } catch let e as SQLiteError {
            throw StoreError.sqlite(path, e)
        }
    }

    /// BEGIN IMMEDIATE: the write lock at once. The busy handler waits a minute for another
    /// writer; past that (a long load), it is asked for again with a growing pause.
    private func beginWriting() throws(SQLiteError) {
        var pause: UInt32 = 10_000
        while true {
            do {
                try db.execute("BEGIN IMMEDIATE")
                return
            } catch where error.isBusy {
                usleep(pause)
                pause = min(pause * 2, 1_000_000)
            }
        }
    }

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
        let labels = record.value("labels")?.arrayValue?.compactMap(\.stringValue) ?? []
        guard let (rowid, oldBytes, oldLabels, conversation) = try db.row(
            "SELECT rowid, record, labels, conversation_id FROM messages WHERE id = ?", [.text(id)],
            { s in (s.integer(0), s.bytes(1), Self.strings(s.text(2) ?? "[]"), s.text(3) ?? "") })
        else {
            try insert(record, id: id, labels: labels, rowid: nil)
            return .added
        }
        if oldBytes == record.bytes { return .unchanged }
        var merged = oldLabels
        for l in labels where !merged.contains(l) { merged.append(l) }
        let old = try JSONRecord(oldBytes)
        if Self.replaces(record, old) {
            try unindex(rowid: rowid, record: old)
            try insert(record, id: id, labels: merged, rowid: rowid)
            return .updated
        }
        guard merged != oldLabels else { return .unchanged }
        try db.run("UPDATE messages SET labels = ?, change = ? WHERE rowid = ?", .text(Self.json(merged)), .integer(change), .integer(rowid))
        try labelRows(rowid: rowid, from: oldLabels, to: merged)
        touchedConversations.insert(conversation)
        return .updated
    }

    /// `message_labels`, which search's label: and is: read instead of every message's labels:
    /// the rows of a message whose labels went from `old` to `new`.
    private func labelRows(rowid: Int, from old: [String], to new: [String]) throws {
        for l in old where !new.contains(l) {
            try db.run("DELETE FROM message_labels WHERE label = ? AND message = ?", .text(l), .integer(rowid))
        }
        for l in new where !old.contains(l) {
            try db.run("INSERT OR IGNORE INTO message_labels(label, message) VALUES(?, ?)", .text(l), .integer(rowid))
        }
    }

    /// Adds and removes labels of a stored message; its conversation is derived again when
    /// they change. Must run in a `batch`. Whether they changed.
    @discardableResult
    func changeLabels(rowid: Int, add: [String], remove: [String]) throws -> Bool {
        try updateLabels(rowid: rowid) { labels in
            labels.removeAll { remove.contains($0) }
            for l in add where !labels.contains(l) { labels.append(l) }
        }
    }

    /// Gives a stored message exactly these labels (Gmail's labelIds of it now).
    @discardableResult
    func setLabels(rowid: Int, _ new: [String]) throws -> Bool {
        try updateLabels(rowid: rowid) { labels in
            // the stored order kept for the labels that stay: a record's labels keep their order
            labels = labels.filter(new.contains) + new.filter { !labels.contains($0) }
        }
    }

    private func updateLabels(rowid: Int, _ change: (inout [String]) -> Void) throws -> Bool {
        guard case (var labels, let conversation)? = try db.row("SELECT labels, conversation_id FROM messages WHERE rowid = ?", [.integer(rowid)],
                                                                { s in (Self.strings(s.text(0) ?? "[]"), s.text(1) ?? "") }) else { return false }
        let before = labels
        change(&labels)
        guard labels != before else { return false }
        try db.run("UPDATE messages SET labels = ?, change = ? WHERE rowid = ?", .text(Self.json(labels)), .integer(self.change), .integer(rowid))
        try labelRows(rowid: rowid, from: before, to: labels)
        touchedConversations.insert(conversation)
        return true
    }

    /// Labels the messages a query finds (notmuch tag): what a client does when a chat is read
    /// (`-UNREAD`) or archived (`-INBOX`). Returns how many messages changed.
    public func label(_ query: SearchQuery, add: [String], remove: [String]) throws -> Int {
        try batch {
            var rowids: [Int] = []
            try db.query("SELECT m.rowid FROM \(query.messagesForIDs) WHERE \(query.sql)", query.parameters) { rowids.append($0.integer(0)) }
            var changed = 0
            for r in rowids where try changeLabels(rowid: r, add: add, remove: remove) { changed += 1 }
            return changed
        }
    }

    /// How many messages a query finds.
    public func count(_ query: SearchQuery) throws -> Int {
        try db.integer("SELECT count(*) FROM \(query.messagesForIDs) WHERE \(query.sql)", query.parameters) ?? 0
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

    /// Stores a message and what is derived of it alone: its key, search text, recipients and
    /// events; its conversation and events are marked for deriving.
    private func insert(_ record: JSONRecord, id: String, labels: [String], rowid: Int?) throws {
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
            .textBytes(StoredConversation.summaryRecord(of: record, id: id, key: key)), .textBytes(record.bytes), .integer(change),
            role.map(SQLValue.text) ?? .null, answers.map(SQLValue.text) ?? .null, .integer(key.fromMe ? 1 : 0),
        ])
        let r = rowid ?? db.lastInsertRowID
        try labelRows(rowid: r, from: [], to: labels)
        if let gmailID = record.string("gmail_id") { try db.run("DELETE FROM gmail_pending WHERE gmail_id = ?", .text(gmailID)) }
        try storeRecipients(of: record, rowid: r, replacing: false)
        try db.run("INSERT INTO search(rowid, subject, sender, recipients, body) VALUES(?, ?, ?, ?, ?)",
                   [.integer(r)] + Self.searchColumns(record).map(SQLValue.text))
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
        touchedConversations.insert(conversation)
        if role == nil { try placeAnswers(to: id) }
        if role == "report", let answers { try reportChanged(answers) }
    }

    /// Each shipment of a message that names a parcel (parcel-group's observation of it).
    private func storeParcelObservations(of record: JSONRecord, rowid: Int) throws {
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
    private func touchParcels(ofMessage rowid: Int) throws {
        try db.query("SELECT number_key, code_key FROM parcel_observations WHERE message = ?", [.integer(rowid)]) {
            touchParcels(number: $0.text(0), code: $0.text(1))
        }
    }

    /// A report about message `id` came or went: what the message shows (the lines under it)
    /// changed, so its change counter moves.
    private func reportChanged(_ id: String) throws {
        try db.run("UPDATE messages SET change = ? WHERE id = ? AND role IS NULL", .integer(change), .text(id))
    }

    /// The conversation a message is stored in, as conversation-group places it
    /// (`StoredConversation.placement`), `key` its participants'.
    private func placement(role: String?, answers: String?, key: String) throws -> String {
        try StoredConversation.placement(role: role, answers: answers, key: key) {
            try db.text("SELECT conversation_id FROM messages WHERE id = ? AND role IS NULL", .text($0))
        }
    }

    /// Places the reports and auto-replies that answer message `id` again (it came, went or moved).
    private func placeAnswers(to id: String) throws {
        var rowids: [Int] = []
        try db.query("SELECT rowid FROM messages WHERE answers = ?", [.text(id)]) { rowids.append($0.integer(0)) }
        for r in rowids { try place(r) }
    }

    /// Moves a stored report or auto-reply to where `placement` says it belongs now.
    private func place(_ rowid: Int) throws {
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
        try db.run("INSERT INTO search(search, rowid, subject, sender, recipients, body) VALUES('delete', ?, ?, ?, ?, ?)",
                   [.integer(rowid)] + Self.searchColumns(record).map(SQLValue.text))
        try db.run("DELETE FROM recipients WHERE message = ?", .integer(rowid))
        try db.query("SELECT DISTINCT event_group FROM event_observations WHERE message = ?", [.integer(rowid)]) {
            touchedEventGroups.insert($0.text(0) ?? "")
        }
        try db.run("DELETE FROM event_observations WHERE message = ?", .integer(rowid))
        try touchParcels(ofMessage: rowid)
        try db.run("DELETE FROM parcel_observations WHERE message = ?", .integer(rowid))
        guard let (c, labels, id, role, answers) = try db.row(
            "SELECT conversation_id, labels, id, role, answers FROM messages WHERE rowid = ?", [.integer(rowid)],
            { ($0.text(0) ?? "", Self.strings($0.text(1) ?? "[]"), $0.text(2) ?? "", $0.text(3), $0.text(4)) }) else { return }
        touchedConversations.insert(c)
        try labelRows(rowid: rowid, from: labels, to: [])
        try db.run("DELETE FROM messages WHERE rowid = ?", .integer(rowid))
        try placeAnswers(to: id)
        if role == "report", let answers { try reportChanged(answers) }
    }

    /// Deletes a message and what was derived of it; `removed` remembers its id.
    func delete(rowid: Int) throws {
        guard let (bytes, id) = try db.row("SELECT record, id FROM messages WHERE rowid = ?", [.integer(rowid)], { ($0.bytes(0), $0.text(1) ?? "") })
        else { return }
        try unindex(rowid: rowid, record: try JSONRecord(bytes))
        try db.run("INSERT INTO removed(kind, id, change) VALUES('message', ?, ?)", .text(id), .integer(change))
    }

    /// The normalized To and Cc addresses: where a list learned later is looked for.
    private func storeRecipients(of record: JSONRecord, rowid: Int, replacing: Bool) throws {
        if replacing { try db.run("DELETE FROM recipients WHERE message = ?", .integer(rowid)) }
        var addresses = Set<String>()
        for field in ["to", "cc"] {
            for v in record.value(field)?.arrayValue ?? [] {
                if let a = v["address"]?.stringValue.flatMap(normalizer.normalize) { addresses.insert(a) }
            }
        }
        for a in addresses { try db.run("INSERT INTO recipients(message, address) VALUES(?, ?)", .integer(rowid), .text(a)) }
    }

    /// Lists learned from the last message: remembered, and the messages to them that were
    /// keyed on people are keyed again (participant-hash --me-auto knows every list of its
    /// input before it keys a message; the store learns them as they come).
    private func learnLists() throws {
        guard lists.count != savedLists.count else { return }
        for list in lists.subtracting(savedLists).sorted() {
            savedLists.insert(list)
            try db.run("INSERT OR IGNORE INTO lists(address) VALUES(?)", .text(list))
            var rowids: [Int] = []
            try db.query("""
                SELECT m.rowid FROM recipients r JOIN messages m ON m.rowid = r.message
                WHERE r.address = ? AND m.participant_kind IN ('people', 'myself')
                """, [.text(list)]) { rowids.append($0.integer(0)) }
            for r in rowids { try rekey(r) }
        }
    }

    /// Keys a stored message again (the user's addresses or the known lists changed; with
    /// `recipientsToo`, the address rules).
    private func rekey(_ rowid: Int, recipientsToo: Bool = false) throws {
        guard let (bytes, old, id, oldSummary, role, answers) = try db.row(
            "SELECT record, conversation_id, id, summary, role, answers FROM messages WHERE rowid = ?", [.integer(rowid)],
            { s in (s.bytes(0), s.text(1) ?? "", s.text(2) ?? "", s.bytes(3), s.text(4), s.text(5)) }) else { return }
        let record = try JSONRecord(bytes)
        if recipientsToo { try storeRecipients(of: record, rowid: rowid, replacing: true) }
        let key = try ParticipantKey.of(record, me: own, lists: &lists, normalizer: normalizer)
        let summary = StoredConversation.summaryRecord(of: record, id: id, key: key)
        let conversation = try placement(role: role, answers: answers, key: key.hash)
        guard conversation != old || summary != oldSummary else { return }
        try db.run("UPDATE messages SET conversation_id = ?, participant_kind = ?, summary = ?, from_me = ?, change = ? WHERE rowid = ?",
                   .text(conversation), .text(key.kind.rawValue), .textBytes(summary), .integer(key.fromMe ? 1 : 0), .integer(change),
                   .integer(rowid))
        touchedConversations.insert(old)
        touchedConversations.insert(conversation)
        if role == nil && conversation != old { try placeAnswers(to: id) }
        if conversation != old { try touchParcels(ofMessage: rowid) }
        try db.query("SELECT DISTINCT event_group FROM event_observations WHERE message = ?", [.integer(rowid)]) {
            touchedEventGroups.insert($0.text(0) ?? "")
        }
        try learnLists()
    }

    /// What the search index reads of a record: subject, sender, recipients and body text.
    static func searchColumns(_ record: JSONRecord) -> [String] {
        func person(_ v: JSONValue) -> String {
            [v["name"]?.stringValue, v["address"]?.stringValue].compactMap { $0 }.joined(separator: " ")
        }
        let sender = record.value("from").map(person) ?? ""
        let recipients = ((record.value("to")?.arrayValue ?? []) + (record.value("cc")?.arrayValue ?? [])).map(person).joined(separator: " ")
        let body = record.stringPrefix("body_text", maxBytes: 1 << 20) ?? record.stringPrefix("text", maxBytes: 1 << 20) ?? ""
        return [record.string("subject") ?? "", sender, recipients, body].map(SearchText.indexed)
    }

    // MARK: deriving

    private func deriveTouched() throws {
        try deriveParcels()  // first: a parcel's news touches the conversations its cards are in
        for id in touchedConversations.sorted() { try deriveConversation(id) }
        for group in touchedEventGroups.sorted() { try deriveEvents(group) }
        touchedConversations.removeAll()
        touchedEventGroups.removeAll()
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
                        touchedConversations.insert($0.text(0) ?? "")
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

    private func deriveConversation(_ id: String) throws {
        guard let (d, kind) = try derive(id) else {
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
