#if canImport(Glibc)
import Glibc
#endif
import JSONLines
import SQLite

/// What a site rendered from a mailstore database remembers, in `.mailstore-site.db` in its
/// folder: the database, settings and change counter it was last rendered at, what the lists
/// show of each conversation, which messages each conversation's pages show, and the site's
/// files. A delivery then renders the pages of what changed and the list pages
/// the change reaches, and every other file is left as it is, however big the mailbox.
/// A render from files puts the same in a state of its own run (`init()`), which its lists are
/// read from as the store's are.
final class SiteState {
    static let name = ".mailstore-site.db"
    static let version = 6
    let db: Database

    /// A conversation as the lists show it.
    struct Listed {
        var section: PageWriter.Section
        var lastDate: String
        var file: String
        var title: String
        /// What every page of the conversation shows besides its messages (see `put`).
        var head: [UInt8]
    }

    /// The state of the site in `folder`, made when missing; one of another version or that is
    /// not a database is made anew (it is only a cache: the site is then rendered whole).
    init(folder: String) throws {
        let path = folder + "/" + Self.name
        do {
            db = try Self.open(path)
        } catch {
            inherited = Self.forget(folder: folder)
            db = try Self.open(path)
        }
    }

    /// A state for one run, gone when it ends: SQLite's temporary database, in memory until it
    /// grows large.
    init() throws {
        db = try Self.open("")
    }

    /// The files a state of another version listed: the site's, to be removed unless written again.
    private(set) var inherited: [String] = []

    private static func open(_ path: String) throws -> Database {
        let db = try Database(path: path, mode: .create)
        if path.isEmpty {
            // a mailbox's lists in memory (a few megabytes for 50,000 messages), not in a file of /var/tmp
            try db.execute("PRAGMA cache_size = -32768")
        } else {
            db.setBusyTimeout(milliseconds: 10_000)
            try db.execute("PRAGMA journal_mode = WAL")
            try db.execute("PRAGMA synchronous = NORMAL")
            // read where the file is mapped, not copied a page at a time into a cache a list's pages outgrow
            try db.execute("PRAGMA mmap_size = 268435456")
        }
        let version = try db.integer("PRAGMA user_version") ?? 0
        if version == Self.version { return db }
        if version == 5 {  // the same pages: only the pictures a delivery left waiting are new
            try db.transaction { try db.execute(picturesWaiting + "PRAGMA user_version = \(Self.version);") }
            return db
        }
        if version != 0 { throw OtherVersion() }
        try db.transaction {
            try db.execute(picturesWaiting + """
                CREATE TABLE state(key TEXT PRIMARY KEY, value TEXT NOT NULL) WITHOUT ROWID;
                CREATE TABLE listed(id TEXT PRIMARY KEY, change INTEGER NOT NULL, section TEXT NOT NULL,
                  last_date TEXT NOT NULL, file TEXT NOT NULL, title TEXT NOT NULL, head BLOB NOT NULL, item BLOB NOT NULL);
                CREATE INDEX listed_in_order ON listed(section, last_date DESC, id);
                CREATE UNIQUE INDEX listed_by_file ON listed(file);
                CREATE TABLE files(name TEXT PRIMARY KEY) WITHOUT ROWID;
                CREATE TABLE shown(conversation TEXT PRIMARY KEY, messages BLOB NOT NULL) WITHOUT ROWID;
                CREATE TABLE cards(parcel TEXT PRIMARY KEY, last_date TEXT NOT NULL, conversation TEXT, card BLOB NOT NULL) WITHOUT ROWID;
                CREATE INDEX cards_in_order ON cards(last_date DESC, parcel);
                CREATE INDEX cards_by_conversation ON cards(conversation);
                PRAGMA user_version = \(Self.version);
                """)
        }
        return db
    }

    /// The conversations whose pages show pictures not made yet, and the change counter their
    /// pages were rendered after (SitePictures.later).
    private static let picturesWaiting = "CREATE TABLE pictures_waiting(conversation TEXT PRIMARY KEY, since INTEGER NOT NULL) WITHOUT ROWID;\n"

    struct OtherVersion: Error {}

    static func remove(_ path: String) {
        for suffix in ["", "-wal", "-shm"] { unlink(path + suffix) }
    }

    /// The files a site's state lists, and the state removed: the site is not a database's any more.
    static func forget(folder: String) -> [String] {
        let path = folder + "/" + name
        var files: [String] = []
        if access(path, F_OK) == 0, let db = try? Database(path: path, mode: .readOnly) {
            try? db.query("SELECT name FROM files") { s in files.append(s.text(0) ?? "") }
            db.close()
        }
        remove(path)
        return files
    }

    // MARK: when it was rendered

    func value(_ key: String) throws -> String? { try db.text("SELECT value FROM state WHERE key = ?", .text(key)) }

    func set(_ key: String, _ value: String) throws {
        try db.run("INSERT OR REPLACE INTO state(key, value) VALUES(?, ?)", .text(key), .text(value))
    }

    /// The change counter the site was rendered at, when it was rendered with `settings`.
    func lastRender(settings: String) throws -> Int? {
        guard try value("settings") == settings else { return nil }
        return try value("counter").flatMap { Int($0) }
    }

    /// Forgets every conversation and page (not the files: a whole render removes those it does
    /// not write again).
    func reset() throws {
        try db.execute("DELETE FROM listed; DELETE FROM shown; DELETE FROM cards; DELETE FROM state; DELETE FROM pictures_waiting")
    }

    // MARK: pictures made after the pages

    /// The conversations whose pages wait for pictures, each with the change counter its pages
    /// were rendered after.
    func picturesWaiting() throws -> [String: Int] {
        var waiting: [String: Int] = [:]
        try db.query("SELECT conversation, since FROM pictures_waiting") { s in waiting[s.text(0) ?? ""] = s.integer(1) }
        return waiting
    }

    func hasPicturesWaiting() throws -> Bool {
        try db.integer("SELECT EXISTS(SELECT 1 FROM pictures_waiting)") == 1
    }

    func leavePicturesWaiting(conversation id: String, since: Int) throws {
        try db.run("""
            INSERT INTO pictures_waiting(conversation, since) VALUES(?, ?)
            ON CONFLICT(conversation) DO UPDATE SET since = min(since, excluded.since)
            """, .text(id), .integer(since))
    }

    func picturesMade() throws {
        try db.execute("DELETE FROM pictures_waiting")
    }

    // MARK: the lists

    func listed(_ id: String) throws -> Listed? {
        try db.row("SELECT section, last_date, file, title, head FROM listed WHERE id = ?", [.text(id)]) { s in
            Listed(section: PageWriter.Section(rawValue: s.text(0) ?? "") ?? .chats, lastDate: s.text(1) ?? "", file: s.text(2) ?? "",
                   title: String(decoding: s.bytes(3), as: UTF8.self), head: s.bytes(4))
        }
    }

    func isTaken(file: String) throws -> Bool {
        try db.integer("SELECT count(*) FROM listed WHERE file = ?", .text(file)) != 0
    }

    /// A conversation as the lists show it; `head`: what each of its pages shows besides the messages.
    func put(_ c: ConversationSummary, change: Int, head: [UInt8]) throws {
        try db.run("INSERT OR REPLACE INTO listed(id, change, section, last_date, file, title, head, item) VALUES(?, ?, ?, ?, ?, ?, ?, ?)",
                   .text(c.id), .integer(change), .text(c.section.rawValue), .text(c.lastDate), .text(c.file), .textBytes(Array(c.title.utf8)),
                   .blob(head), .blob(c.item ?? []))
    }

    func remove(conversation id: String) throws {
        try db.run("DELETE FROM listed WHERE id = ?", .text(id))
        try db.run("DELETE FROM shown WHERE conversation = ?", .text(id))
    }

    // MARK: the messages on a conversation's pages

    /// The messages a conversation's pages show, in their order, by their keys (`ChatRender.key`).
    func shownMessages(_ conversation: String) throws -> [UInt64] {
        guard let list = try db.row("SELECT messages FROM shown WHERE conversation = ?", [.text(conversation)], { $0.bytes(0) }) else { return [] }
        return stride(from: 0, to: list.count - 7, by: 8).map { at in
            (0..<8).reduce(UInt64(0)) { $0 | UInt64(list[at + $1]) << (8 * $1) }
        }
    }

    /// The pages of a conversation show the messages of `ids`: one row per conversation, of
    /// 8 bytes per message, as a whole render writes a row for each conversation.
    func show(_ ids: [String], in conversation: String) throws {
        var list: [UInt8] = []
        list.reserveCapacity(ids.count * 8)
        for id in ids {
            let key = ChatRender.key(id)
            for k in 0..<8 { list.append(UInt8(truncatingIfNeeded: key >> (8 * k))) }
        }
        try db.run("INSERT OR REPLACE INTO shown(conversation, messages) VALUES(?, ?)", .text(conversation), .blob(list))
    }

    /// How many conversations list `section` shows: as the last render from the store left the
    /// count (`keep(counts:)`), else counted (a count of 48,000 rows is a third of a millisecond).
    func count(_ section: PageWriter.Section) throws -> Int {
        if let kept = try value("count " + section.rawValue).flatMap({ Int($0) }) { return kept }
        return try db.integer("SELECT count(*) FROM listed WHERE section = ?", .text(section.rawValue)) ?? 0
    }

    func keep(counts: [PageWriter.Section: Int]) throws {
        for (section, n) in counts { try set("count " + section.rawValue, String(n)) }
    }

    /// How many of its list come before the conversation that was last at `lastDate` with `id`
    /// (counted from the newest, as few come before a recent one).
    func newer(than id: String, lastDate: String, in section: PageWriter.Section) throws -> Int {
        let s = SQLValue.text(section.rawValue), d = SQLValue.text(lastDate)
        return (try db.integer("SELECT count(*) FROM listed WHERE section = ? AND last_date > ?", s, d) ?? 0)
            + (try db.integer("SELECT count(*) FROM listed WHERE section = ? AND last_date = ? AND id < ?", s, d, .text(id)) ?? 0)
    }

    /// The items `range` (counted from the newest) of a list.
    func items(_ section: PageWriter.Section, _ range: Range<Int>) throws -> [[UInt8]] {
        let sql = "SELECT item FROM listed WHERE section = '\(section.rawValue)' ORDER BY last_date DESC, id LIMIT ? OFFSET ?"
        return try rows(sql, range)
    }

    /// The blobs of the rows `range` of a query that ends with LIMIT ? OFFSET ? and takes `values` before them.
    private func rows(_ sql: String, _ range: Range<Int>, _ values: [SQLValue] = []) throws -> [[UInt8]] {
        var rows: [[UInt8]] = []
        rows.reserveCapacity(range.count)
        try db.query(sql, values + [.integer(range.count), .integer(range.lowerBound)]) { s in rows.append(s.bytes(0)) }
        return rows
    }

    // MARK: the parcels' cards

    /// The card of every parcel of the database, as the pages show it, with the date of its last
    /// news, which orders the earlier parcels' pages as the store orders the parcels.
    func card(parcel: String) throws -> [UInt8]? {
        try db.row("SELECT card FROM cards WHERE parcel = ?", [.text(parcel)]) { $0.bytes(0) }
    }

    func cardDate(parcel: String) throws -> String? {
        try db.row("SELECT last_date FROM cards WHERE parcel = ?", [.text(parcel)]) { $0.text(0) ?? "" }
    }

    /// Keeps the card of a parcel with news last at `lastDate`, naming `conversation`.
    func keep(card: [UInt8], parcel: String, lastDate: String, conversation: String?) throws {
        try db.run("INSERT OR REPLACE INTO cards(parcel, last_date, conversation, card) VALUES(?, ?, ?, ?)",
                   .text(parcel), .text(lastDate), conversation.map(SQLValue.text) ?? .null, .blob(card))
    }

    func forgetCard(parcel: String) throws {
        try db.run("DELETE FROM cards WHERE parcel = ?", .text(parcel))
    }

    /// The parcels whose cards name these conversations.
    func parcels(naming conversations: some Sequence<String>) throws -> [String] {
        var parcels: [String] = []
        for id in conversations {
            try db.query("SELECT parcel FROM cards WHERE conversation = ?", [.text(id)]) { s in parcels.append(s.text(0) ?? "") }
        }
        return parcels
    }

    /// How many parcels had their last news before `date`: the earlier ones.
    func cardCount(before date: String) throws -> Int {
        try db.integer("SELECT count(*) FROM cards WHERE last_date < ?", .text(date)) ?? 0
    }

    /// How many parcels come after this one, newest news first: its place counted from the oldest.
    func cardsOlder(than parcel: String, lastDate: String) throws -> Int {
        try db.integer("SELECT count(*) FROM cards WHERE last_date < ?1 OR (last_date = ?1 AND parcel > ?2)", .text(lastDate), .text(parcel)) ?? 0
    }

    /// The cards `range` (counted from the newest) of the parcels with news before `date`.
    func cards(before date: String, _ range: Range<Int>) throws -> [[UInt8]] {
        try rows("SELECT card FROM cards WHERE last_date < ? ORDER BY last_date DESC, parcel LIMIT ? OFFSET ?", range, [.text(date)])
    }

    // MARK: the files

    /// The files listed whose names start with `prefix`.
    func files(startingWith prefix: String) throws -> [String] {
        var names: [String] = []
        var end = Array(prefix.utf8)
        end[end.count - 1] += 1  // the prefixes end in "." or "/": never 0xff
        try db.query("SELECT name FROM files WHERE name >= ? AND name < ?", [.text(prefix), .textBytes(end)]) { s in
            names.append(s.text(0) ?? "")
        }
        return names
    }

    func allFiles() throws -> [String] {
        var names: [String] = []
        try db.query("SELECT name FROM files") { s in names.append(s.text(0) ?? "") }
        return names
    }

    /// In one statement, in order: a whole render lists tens of thousands.
    func add(files: some Sequence<String>) throws {
        var names = JSONWriter(capacity: 1 << 16)
        names.beginArray()
        for name in files.sorted() { names.string(name) }
        names.endArray()
        try db.run("INSERT OR IGNORE INTO files(name) SELECT value FROM json_each(?)", .textBytes(names.bytes))
    }

    func remove(files: some Sequence<String>) throws {
        for name in files { try db.run("DELETE FROM files WHERE name = ?", .text(name)) }
    }
}

extension ConversationSummary {
    /// The list it is on.
    var section: PageWriter.Section {
        archived ? .archived : isNewsletter ? .newsletters : isList ? .lists : .chats
    }
}
