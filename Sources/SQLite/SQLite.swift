internal import CSQLite
#if canImport(Glibc)
import Glibc
#endif

/// An error SQLite reported: its result code and message.
public struct SQLiteError: Error, CustomStringConvertible, Sendable {
    /// The extended result code; `code & 0xff` is the primary one.
    public var code: Int32
    public var message: String
    public var description: String { message }

    var primary: Int32 { code & 0xff }
    /// Another connection holds the lock longer than the busy timeout.
    public var isBusy: Bool { primary == SQLITE_BUSY || primary == SQLITE_LOCKED }
    /// The file is not a database (or is encrypted, or damaged in its header).
    public var isNotADatabase: Bool { primary == SQLITE_NOTADB || primary == SQLITE_CORRUPT }
    /// The disk or the quota is full.
    public var isFull: Bool { primary == SQLITE_FULL || code == SQLITE_IOERR | (3 << 8) }  // SQLITE_IOERR_WRITE
    public var isConstraint: Bool { primary == SQLITE_CONSTRAINT }
}

/// A value to bind or read.
public enum SQLValue: Equatable, Sendable {
    case null
    case integer(Int)
    case text(String)
    /// UTF-8 text given as bytes (a JSON record), stored as TEXT.
    case textBytes([UInt8])
    case blob([UInt8])
}

/// One connection. Statements are prepared once per SQL text and kept.
public final class Database {
    private let handle: OpaquePointer
    private var cache: [String: Statement] = [:]
    public let path: String

    public enum Mode: Sendable { case readOnly, readWrite, create }

    public init(path: String, mode: Mode = .create) throws(SQLiteError) {
        var db: OpaquePointer?
        let flags: Int32
        switch mode {
        case .readOnly: flags = SQLITE_OPEN_READONLY
        case .readWrite: flags = SQLITE_OPEN_READWRITE
        case .create: flags = SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE
        }
        let rc = sqlite3_open_v2(path, &db, flags | SQLITE_OPEN_NOMUTEX, nil)
        guard rc == SQLITE_OK, let db else {
            let message = db.map { String(cString: sqlite3_errmsg($0)) } ?? String(cString: sqlite3_errstr(rc))
            if let db { sqlite3_close_v2(db) }
            throw SQLiteError(code: rc, message: message)
        }
        handle = db
        self.path = path
        sqlite3_extended_result_codes(db, 1)
    }

    private var isOpen = true

    deinit { close() }

    /// Closes the connection (the last one checkpoints its WAL and removes it); nothing may be
    /// asked of it after.
    public func close() {
        guard isOpen else { return }
        isOpen = false
        cache.removeAll()
        sqlite3_close_v2(handle)
    }

    /// How long a statement waits for another connection's lock before it fails busy.
    public func setBusyTimeout(milliseconds: Int) {
        sqlite3_busy_timeout(handle, Int32(clamping: milliseconds))
    }

    func error(_ rc: Int32) -> SQLiteError {
        SQLiteError(code: sqlite3_extended_errcode(handle), message: String(cString: sqlite3_errmsg(handle)))
    }

    /// Runs SQL text of one or more statements that return no rows.
    public func execute(_ sql: String) throws(SQLiteError) {
        let rc = sqlite3_exec(handle, sql, nil, nil, nil)
        if rc != SQLITE_OK { throw error(rc) }
    }

    /// The statement for `sql`, prepared on first use, reset and with no bindings.
    public func statement(_ sql: String) throws(SQLiteError) -> Statement {
        if let s = cache[sql] {
            s.reset()
            return s
        }
        var stmt: OpaquePointer?
        let rc = sqlite3_prepare_v3(handle, sql, -1, UInt32(SQLITE_PREPARE_PERSISTENT), &stmt, nil)
        guard rc == SQLITE_OK, let stmt else { throw error(rc) }
        let s = Statement(stmt, database: self)
        cache[sql] = s
        return s
    }

    /// Runs a statement that returns no rows.
    public func run(_ sql: String, _ values: SQLValue...) throws(SQLiteError) { try run(sql, values) }

    public func run(_ sql: String, _ values: [SQLValue]) throws(SQLiteError) {
        let s = try statement(sql)
        defer { s.reset() }
        try s.bind(values)
        while try s.step() {}
    }

    /// The rows of a query, each read by `body`.
    public func query(_ sql: String, _ values: [SQLValue] = [], _ body: (Statement) throws -> Void) throws {
        let s = try statement(sql)
        defer { s.reset() }
        try s.bind(values)
        while try s.step() { try body(s) }
    }

    /// The first row of a query as `read` takes it, nil when there is none. The statement is
    /// reset before this returns, so `read` must copy what it keeps.
    public func row<T>(_ sql: String, _ values: [SQLValue], _ read: (Statement) throws -> T) throws -> T? {
        let s = try statement(sql)
        defer { s.reset() }
        try s.bind(values)
        guard try s.step() else { return nil }
        return try read(s)
    }

    /// The first column of the first row, as an integer (nil when there is no row or it is null).
    public func integer(_ sql: String, _ values: SQLValue...) throws(SQLiteError) -> Int? { try integer(sql, values) }

    public func integer(_ sql: String, _ values: [SQLValue]) throws(SQLiteError) -> Int? {
        let s = try statement(sql)
        defer { s.reset() }
        try s.bind(values)
        guard try s.step(), !s.isNull(0) else { return nil }
        return s.integer(0)
    }

    /// The first column of the first row, as text.
    public func text(_ sql: String, _ values: SQLValue...) throws(SQLiteError) -> String? {
        let s = try statement(sql)
        defer { s.reset() }
        try s.bind(values)
        guard try s.step() else { return nil }
        return s.text(0)
    }

    public var lastInsertRowID: Int { Int(sqlite3_last_insert_rowid(handle)) }
    public var changes: Int { Int(sqlite3_changes(handle)) }
    /// Rows changed since the connection opened.
    public var totalChanges: Int { Int(sqlite3_total_changes(handle)) }
    public var isInTransaction: Bool { sqlite3_get_autocommit(handle) == 0 }

    /// Runs `body` in a transaction that takes the write lock at once (BEGIN IMMEDIATE), so a
    /// writer waits for another in the busy handler instead of failing when it first writes.
    /// Rolled back when `body` throws.
    public func transaction<T>(_ body: () throws -> T) throws -> T {
        try execute("BEGIN IMMEDIATE")
        do {
            let result = try body()
            try execute("COMMIT")
            return result
        } catch {
            if isInTransaction { try? execute("ROLLBACK") }
            throw error
        }
    }

    /// The SQLite library's version, as `3.40.1`.
    public static var libraryVersion: String { String(cString: sqlite3_libversion()) }
}

/// A prepared statement, owned by its database's cache. Reset it when done with its rows.
public final class Statement {
    fileprivate let handle: OpaquePointer
    private unowned let database: Database

    fileprivate init(_ handle: OpaquePointer, database: Database) {
        self.handle = handle
        self.database = database
    }

    deinit { sqlite3_finalize(handle) }

    /// Ends the statement's run and clears its bindings: a statement left mid-way keeps its
    /// read transaction open. The database's helpers reset what they run.
    public func reset() {
        sqlite3_reset(handle)
        sqlite3_clear_bindings(handle)
    }

    public func bind(_ values: [SQLValue]) throws(SQLiteError) {
        for (i, v) in values.enumerated() { try bind(v, at: i + 1) }
    }

    public func bind(_ value: SQLValue, at index: Int) throws(SQLiteError) {
        let i = Int32(index)
        let rc: Int32
        switch value {
        case .null: rc = sqlite3_bind_null(handle, i)
        case .integer(let n): rc = sqlite3_bind_int64(handle, i, sqlite3_int64(n))
        case .text(var s):
            // by its length: a C string would end at the first NUL (events' sort keys hold them)
            rc = s.withUTF8 { utf8 in
                utf8.withMemoryRebound(to: CChar.self) { chars in
                    guard let start = chars.baseAddress else { return sqlite3_bind_text(handle, i, "", 0, mp_sqlite_transient()) }
                    return sqlite3_bind_text(handle, i, start, Int32(chars.count), mp_sqlite_transient())
                }
            }
        case .textBytes(let b):
            if b.isEmpty {
                rc = sqlite3_bind_text(handle, i, "", 0, mp_sqlite_transient())
            } else {
                rc = b.withUnsafeBytes { sqlite3_bind_text(handle, i, $0.baseAddress!.assumingMemoryBound(to: CChar.self), Int32($0.count), mp_sqlite_transient()) }
            }
        case .blob(let b):
            rc = b.withUnsafeBytes { sqlite3_bind_blob(handle, i, $0.baseAddress ?? UnsafeRawPointer(bitPattern: 1), Int32($0.count), mp_sqlite_transient()) }
        }
        if rc != SQLITE_OK { throw database.error(rc) }
    }

    /// Steps once: true when a row is ready to read, false when the statement is done.
    public func step() throws(SQLiteError) -> Bool {
        let rc = sqlite3_step(handle)
        if rc == SQLITE_ROW { return true }
        if rc == SQLITE_DONE { return false }
        let e = database.error(rc)
        sqlite3_reset(handle)
        throw e
    }

    public var columnCount: Int { Int(sqlite3_column_count(handle)) }
    public func columnName(_ i: Int) -> String { String(cString: sqlite3_column_name(handle, Int32(i))) }
    public func isNull(_ i: Int) -> Bool { sqlite3_column_type(handle, Int32(i)) == SQLITE_NULL }
    public func integer(_ i: Int) -> Int { Int(sqlite3_column_int64(handle, Int32(i))) }
    public func bool(_ i: Int) -> Bool { integer(i) != 0 }

    /// A column's text, whole: a NUL inside it (a key joined with them) does not end it.
    public func text(_ i: Int) -> String? {
        guard let p = sqlite3_column_text(handle, Int32(i)) else { return nil }
        return String(decoding: UnsafeBufferPointer(start: p, count: Int(sqlite3_column_bytes(handle, Int32(i)))), as: UTF8.self)
    }

    /// A column's bytes (text or blob), without a terminating zero.
    public func bytes(_ i: Int) -> [UInt8] {
        let count = Int(sqlite3_column_bytes(handle, Int32(i)))
        guard count > 0, let p = sqlite3_column_blob(handle, Int32(i)) else { return [] }
        return Array(UnsafeRawBufferPointer(start: p, count: count))
    }

    /// Appends a column's bytes (text or blob) to `out`.
    public func appendBytes(_ i: Int, to out: inout [UInt8]) {
        let count = Int(sqlite3_column_bytes(handle, Int32(i)))
        guard count > 0, let p = sqlite3_column_blob(handle, Int32(i)) else { return }
        out.append(contentsOf: UnsafeRawBufferPointer(start: p, count: count))
    }

    public func value(_ i: Int) -> SQLValue {
        switch sqlite3_column_type(handle, Int32(i)) {
        case SQLITE_INTEGER: .integer(integer(i))
        case SQLITE_NULL: .null
        case SQLITE_BLOB: .blob(bytes(i))
        default: .textBytes(bytes(i))
        }
    }
}
