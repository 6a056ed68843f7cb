#if canImport(Glibc)
import Glibc
#endif
import Hashing
import MailParse
import UnixFilter

/// The store's attachments: files in `<database>.attachments/`, each named by the SHA-256 of its
/// bytes (lower-case hex), so that the same content is kept once however many messages carry
/// it. Readable by the user alone; written under a temporary name, synced, then renamed, so a
/// file of that name always holds all its bytes. Parts over `maxBytes` are listed, not kept.
///
/// Writers and the removal of files take turns through `.lock` in the folder: whoever keeps a
/// file (or finds it there) holds the lock shared until the transaction that refers to it has
/// ended (`release`); removal holds it exclusively, so it never takes a file a transaction
/// under way is about to refer to.
public final class AttachmentFolder: AttachmentKeeper {
    /// Absolute.
    public let path: String
    public var maxBytes: Int
    public static let defaultMaxBytes = 25 << 20
    public var largestKept: Int? { max(maxBytes, 0) }

    private var checked = false
    private var lock: Int32 = -1
    private var shared = false
    /// What could not be written since it was last asked (`takeFailure`): a delivery that lost
    /// an attachment is tried again rather than stored without it.
    private var failure: Failed?

    public init(database: String, maxBytes: Int = defaultMaxBytes) {
        path = Self.absolute(database) + ".attachments"
        self.maxBytes = maxBytes
    }

    deinit { if lock >= 0 { close(lock) } }

    public struct Failed: Error, CustomStringConvertible {
        public var description: String
        /// The folder is another user's, or others can write in it.
        public var refused: PrivateFolder.Refused?
    }

    // MARK: keeping

    /// MessageConverter's call: keeps `data`; its path, or nil when it is over the cap. The
    /// suggested name is never used: the file's name is its SHA-256.
    public func keep(_ data: [UInt8], sha256: String, suggestedName: String?, contentType: String) throws -> String? {
        do {
            return try keep(data, sha256: sha256)
        } catch {
            failure = failure ?? (error as? Failed ?? Failed(description: "\(error)"))
            throw error
        }
    }

    func keep(_ data: [UInt8], sha256: String) throws -> String? {
        guard maxBytes > 0, data.count <= maxBytes, Self.isDigest(sha256) else { return nil }  // 0: none kept
        try holdShared()
        let target = file(sha256)
        if Self.isFile(target) { return target }
        try write(to: target) { fd in
            try data.withUnsafeBytes { b in try Self.writeAll(fd, b) }
        }
        return target
    }

    /// The file at `source` (mime-parse --save-attachments wrote it) copied in when it holds the
    /// bytes whose SHA-256 is `sha256`; the kept file, or nil when it does not (or is missing,
    /// not a plain file, or over the cap). Read a chunk at a time: never held whole.
    func copy(from source: String, sha256: String) throws -> String? {
        guard maxBytes > 0, Self.isDigest(sha256) else { return nil }
        // O_NONBLOCK: a FIFO named there must not hang the run
        let input = open(source, O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC)
        guard input >= 0 else { return nil }
        defer { close(input) }
        var st = stat()
        guard fstat(input, &st) == 0, (st.st_mode & S_IFMT) == S_IFREG, Int(st.st_size) <= maxBytes else { return nil }
        try holdShared()
        let target = file(sha256)
        if Self.isFile(target) { return target }
        var matches = false
        try write(to: target, matching: { matches }) { fd in
            let hash = SHA256()
            var buffer = [UInt8](repeating: 0, count: 1 << 20)
            var total = 0
            while true {
                let n = buffer.withUnsafeMutableBytes { read(input, $0.baseAddress, $0.count) }
                if n < 0 && errno == EINTR { continue }
                guard n >= 0 else { return }  // unreadable: not kept
                if n == 0 { break }
                total += n
                if total > maxBytes { return }  // grew since fstat
                try buffer.withUnsafeBytes { b in
                    let chunk = UnsafeRawBufferPointer(rebasing: b[0..<n])
                    hash.update(chunk)
                    try Self.writeAll(fd, chunk)
                }
            }
            matches = hexString(hash.finalize()) == sha256
        }
        return matches ? target : nil
    }

    /// Whether the folder holds the bytes of `sha256`: its path, then held for the transaction.
    func existing(_ sha256: String) throws -> String? {
        guard Self.isDigest(sha256), Self.isFile(file(sha256)) else { return nil }
        try holdShared()
        let target = file(sha256)
        return Self.isFile(target) ? target : nil
    }

    /// The path of the file that holds the bytes of `sha256` (a digest: `isDigest`), whether
    /// or not it is there.
    public func file(_ sha256: String) -> String {
        path + "/" + sha256
    }

    /// The transaction that refers to what was kept has ended: removal may run.
    public func release() {
        guard shared else { return }
        flock(lock, LOCK_UN)
        shared = false
    }

    /// The first failure to write since the last call, thrown.
    public func takeFailure() throws {
        guard let failure else { return }
        self.failure = nil
        throw failure
    }

    // MARK: giving out

    public enum WriteOut: Equatable {
        case written
        /// No file of that name in the folder.
        case missing
        /// The file's bytes are not those its name says (all of them were written).
        case damaged
        case failed(String)
    }

    /// Writes the kept bytes of `sha256` to `fd`, a chunk at a time, checking them against their
    /// name as they go.
    public func write(_ sha256: String, to fd: Int32) -> WriteOut {
        guard Self.isDigest(sha256) else { return .missing }
        let input = open(file(sha256), O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY | O_CLOEXEC)
        guard input >= 0 else { return errno == ENOENT ? .missing : .failed("\(file(sha256)): \(String(cString: strerror(errno)))") }
        defer { close(input) }
        var st = stat()
        guard fstat(input, &st) == 0, (st.st_mode & S_IFMT) == S_IFREG else { return .missing }
        let hash = SHA256()
        var buffer = [UInt8](repeating: 0, count: 1 << 20)
        while true {
            let n = buffer.withUnsafeMutableBytes { read(input, $0.baseAddress, $0.count) }
            if n < 0 && errno == EINTR { continue }
            guard n >= 0 else { return .failed("\(file(sha256)): \(String(cString: strerror(errno)))") }
            if n == 0 { break }
            do {
                try buffer.withUnsafeBytes { b in
                    let chunk = UnsafeRawBufferPointer(rebasing: b[0..<n])
                    hash.update(chunk)
                    try Self.writeAll(fd, chunk)
                }
            } catch {
                return .failed("\(error)")
            }
        }
        return hexString(hash.finalize()) == sha256 ? .written : .damaged
    }

    // MARK: removing

    /// Removes each file whose name no kept row names (`isReferenced`), and the temporary files
    /// of writers that were killed. Only when no writer holds the lock (tried for a second):
    /// else what is left is removed by the next pass. How many files were removed.
    @discardableResult
    func removeUnreferenced(_ isReferenced: (String) throws -> Bool) throws -> Int {
        guard Self.isFolder(path), try openLock() else { return 0 }
        release()
        var waited = 0
        while flock(lock, LOCK_EX | LOCK_NB) != 0 {
            guard (errno == EWOULDBLOCK || errno == EINTR) && waited < 1000 else { return 0 }
            usleep(10_000)
            waited += 10
        }
        defer { flock(lock, LOCK_UN) }
        guard let dir = opendir(path) else { return 0 }
        var names: [String] = []
        while let entry = readdir(dir) {
            names.append(withUnsafeBytes(of: entry.pointee.d_name) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) })
        }
        closedir(dir)
        var removed = 0
        for name in names {
            let unreferenced = try name.hasPrefix(".tmp-") || (Self.isDigest(name) && !isReferenced(name))
            if unreferenced && unlink(path + "/" + name) == 0 { removed += 1 }
        }
        return removed
    }

    // MARK: the folder and its lock

    private func holdShared() throws {
        guard !shared else { return }
        if !checked {
            do throws(PrivateFolder.Refused) { try PrivateFolder.make(path, mode: 0o700) } catch {
                throw Failed(description: error.description, refused: error)
            }
            checked = true
        }
        guard try openLock() else { throw Failed(description: "\(path)/.lock: \(String(cString: strerror(errno)))") }
        while flock(lock, LOCK_SH) != 0 {
            guard errno == EINTR else { throw Failed(description: "\(path)/.lock: \(String(cString: strerror(errno)))") }
        }
        shared = true
    }

    private func openLock() throws -> Bool {
        if lock >= 0 { return true }
        if !checked {
            do throws(PrivateFolder.Refused) { try PrivateFolder.check(path) } catch { throw Failed(description: error.description, refused: error) }
            checked = true
        }
        lock = open(path + "/.lock", O_RDWR | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0o600)
        return lock >= 0
    }

    /// Writes a file through `body` under a temporary name and renames it to `target` when
    /// `keep` says so (else it is removed).
    private func write(to target: String, matching keep: () -> Bool = { true }, _ body: (Int32) throws -> Void) throws {
        let temporary = path + "/.tmp-\(getpid())-\(String(UInt64.random(in: 0...UInt64.max), radix: 16))"
        let fd = open(temporary, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0o600)
        guard fd >= 0 else { throw Failed(description: "\(temporary): \(String(cString: strerror(errno)))") }
        do {
            try body(fd)
            guard keep() else {
                close(fd)
                unlink(temporary)
                return
            }
            if fsync(fd) != 0 { throw Failed(description: "\(temporary): \(String(cString: strerror(errno)))") }
            close(fd)
        } catch {
            close(fd)
            unlink(temporary)
            throw error
        }
        guard rename(temporary, target) == 0 else {
            let why = String(cString: strerror(errno))
            unlink(temporary)
            throw Failed(description: "\(target): \(why)")
        }
        let folder = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        if folder >= 0 {
            fsync(folder)
            close(folder)
        }
    }

    private static func writeAll(_ fd: Int32, _ bytes: UnsafeRawBufferPointer) throws {
        guard UnixFilter.writeAll(fd: fd, bytes) else {
            throw Failed(description: "cannot write an attachment: \(String(cString: strerror(errno)))")
        }
    }

    /// 64 lower-case hex digits: the only names the folder's files have.
    static func isDigest(_ name: String) -> Bool {
        name.utf8.count == 64 && name.utf8.allSatisfy { ($0 >= 0x30 && $0 <= 0x39) || ($0 >= 0x61 && $0 <= 0x66) }
    }

    static func isFile(_ path: String) -> Bool {
        var st = stat()
        return lstat(path, &st) == 0 && (st.st_mode & S_IFMT) == S_IFREG
    }

    static func isFolder(_ path: String) -> Bool {
        var st = stat()
        return stat(path, &st) == 0 && (st.st_mode & S_IFMT) == S_IFDIR
    }

    static func absolute(_ path: String) -> String {
        guard !path.hasPrefix("/") else { return path }
        var buffer = [CChar](repeating: 0, count: Int(PATH_MAX) + 1)
        guard getcwd(&buffer, buffer.count) != nil else { return path }
        let cwd = String(cString: buffer)
        return (cwd == "/" ? "" : cwd) + "/" + (path.hasPrefix("./") ? String(path.dropFirst(2)) : path)
    }
}
