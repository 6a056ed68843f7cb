#if canImport(Glibc)
import Glibc
#endif
import Conversations
import JSONLines
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
    case attachments(String)

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
        case .attachments(let why): "attachments: \(why)"
        }
    }

    public var status: ExitStatus {
        switch self {
        case .notAStore, .newerSchema: .dataError
        case .missing: .noInput
        case .cannotMake, .journal, .attachments: .ioError
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
    public internal(set) var own = OwnAddresses()
    /// Messages may be stored before the user's addresses are known (the live path's first
    /// delivery may not show them): everyone in them is a participant until `setKeying` keys
    /// every message again.
    public internal(set) var keysWithoutOwnAddresses = false
    var lists = Set<String>()
    /// The time conversations' upcoming events are counted from.
    public var now = Int(Glibc.time(nil))

    // what the open batch has touched, derived again when it ends
    var touchedConversations = Set<String>() { didSet { conversationTouches += 1 } }
    /// How many times the batch touched a conversation, and the message it added last to one: a
    /// batch whose one touch added a message has its conversation derived from the stored one.
    var conversationTouches = 0
    var added: (conversation: String, rowid: Int)?
    /// Conversations whose pages change but not their record: a parcel's news changes the card
    /// of each message about it, not what the conversation is derived from.
    var touchedPages = Set<String>()
    var touchedEventGroups = Set<String>()
    /// The parcels' number and pickup-code keys the batch touched (parcel-group's grouping).
    var touchedParcels: (numbers: Set<String>, codes: Set<String>) = ([], [])
    /// The lists in the database's table.
    var savedLists = Set<String>()
    var change = 0
    /// The store's kept attachments (`<path>.attachments/`).
    public let attachments: AttachmentFolder
    /// The open batch removed the row of a kept file: removal runs after it commits.
    var removedKeptAttachment = false

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
        attachments = AttachmentFolder(database: path)
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
        normalizer = AddressNormalizer(rules: try Self.recordedRules(db, writable: access != .read))
        for a in try config("me").map(Self.strings) ?? [] { normalizer.normalize(a).map { own.add($0) } }
        try db.query("SELECT address FROM lists") { savedLists.insert($0.text(0) ?? "") }
        lists = savedLists
        if let from = migratedFrom {
            if from < 3 { try placeAfterSchema3() }
            if from < 5 { try placeReportsNamingNoMessage() }
            if from < 9 { try deriveEveryEventGroup() }
            if from < 8 { try keepAttachmentsAfterSchema8() }
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
}
