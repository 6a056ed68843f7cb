#if canImport(Glibc)
import Glibc
#endif
import UnixFilter

/// Writes the site's files into its folder, each only when its bytes changed (a page that
/// stays the same keeps its bytes and its time, so a hook can re-render after every message),
/// each by rename so that a browser never reads half a page. Files the last run wrote and this
/// one did not are removed; the list is kept in `.chat-render-files`.
public final class SiteWriter {
    public let root: String
    /// This run's files, as the list's lines.
    private var names: [String] = []
    private var previous: [String]?
    private let queue = WriteQueue(limit: 32 << 20)
    static let manifest = ".chat-render-files"

    public struct WriteError: Error, CustomStringConvertible {
        public var path: String
        public var errno: Int32
        public var description: String { "\(path): \(String(cString: strerror(errno)))" }
    }

    public init(root: String, folders: [String]) throws(WriteError) {
        self.root = root
        for dir in [root] + folders.map({ root + "/" + $0 }) {
            if mkdir(dir, 0o755) != 0 && errno != EEXIST { throw WriteError(path: dir, errno: errno) }
        }
    }

    /// Writes `name` (a path inside the site) unless it already holds `bytes`. The writing is
    /// done on a second thread while the caller renders the next page; an error shows at the
    /// next write or at `finish`.
    public func write(_ name: String, _ bytes: [UInt8]) throws(WriteError) {
        if let error = queue.firstError { throw error }
        names.append(name)
        queue.add(root + "/" + name, bytes)
    }

    /// The files the last run wrote: the lines of its list in `.chat-render-files`.
    func previousNames() -> [String] {
        if let previous { return previous }
        let lines = (Self.read(root + "/" + Self.manifest) ?? []).split(separator: UInt8(ascii: "\n"))
        previous = lines.map { String(decoding: $0, as: UTF8.self) }
        return previous ?? []
    }

    /// Files a site's state listed when it was rendered from a database: removed by `finish`
    /// unless written again.
    func forgetting(_ names: [String]) {
        previous = previousNames() + names
    }

    static func store(_ path: String, _ bytes: [UInt8]) throws(WriteError) {
        if holds(path, bytes) { return }
        let temporary = path + ".tmp"
        let fd = open(temporary, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
        guard fd >= 0 else { throw WriteError(path: temporary, errno: errno) }
        guard writeAll(fd: fd, bytes) else {
            let e = errno
            close(fd)
            unlink(temporary)
            throw WriteError(path: temporary, errno: e)
        }
        guard close(fd) == 0 else { throw WriteError(path: temporary, errno: errno) }
        guard rename(temporary, path) == 0 else { throw WriteError(path: path, errno: errno) }
    }

    /// Removes what the last run wrote and this one did not, and records this run's files.
    public func finish() throws(WriteError) {
        let written = try finishWriting()
        let current = Set(written)
        for name in previousNames() where !current.contains(name) { remove(name) }
        var list: [UInt8] = []
        for name in Set(written).sorted() { list += Array(name.utf8) + [UInt8(ascii: "\n")] }
        previous = nil
        try Self.store(root + "/" + Self.manifest, list)
    }

    /// Waits until every file is written; the names of those written since the last time.
    func finishWriting() throws(WriteError) -> [String] {
        queue.finish()
        if let error = queue.firstError { throw error }
        defer { names = [] }
        return names
    }

    /// Removes a file of the site, if it is one: a name of a damaged list must not reach outside.
    func remove(_ name: String) {
        if !name.contains("..") && !name.hasPrefix("/") { unlink(root + "/" + name) }
    }

    static func holds(_ path: String, _ bytes: [UInt8]) -> Bool {
        var st = stat()
        guard stat(path, &st) == 0, Int(st.st_size) == bytes.count, let old = read(path) else { return false }
        return old == bytes
    }

    static func read(_ path: String) -> [UInt8]? {
        guard let input = try? Input.open(path) else { return nil }
        defer { input.close() }
        return try? readWholeFile(fd: input.fd)
    }
}

/// The files waiting to be written, and the thread that writes them in order. At most `limit`
/// bytes wait (a page bigger than that waits alone), so memory stays flat.
final class WriteQueue: @unchecked Sendable {
    private var jobs: [(path: String, bytes: [UInt8])] = []
    private var next = 0
    private var waiting = 0
    private var busy = false
    private var finished = false
    private var error: SiteWriter.WriteError?
    private let limit: Int
    private let lock = UnsafeMutablePointer<pthread_mutex_t>.allocate(capacity: 1)
    private let changed = UnsafeMutablePointer<pthread_cond_t>.allocate(capacity: 1)
    private var thread = pthread_t()
    private var started = false

    init(limit: Int) {
        self.limit = limit
        pthread_mutex_init(lock, nil)
        pthread_cond_init(changed, nil)
    }

    deinit {
        pthread_cond_destroy(changed)
        pthread_mutex_destroy(lock)
        changed.deallocate()
        lock.deallocate()
    }

    /// The first write that failed; the writes after it are not done.
    var firstError: SiteWriter.WriteError? { locked { error } }

    func add(_ path: String, _ bytes: [UInt8]) {
        if !started { start() }
        pthread_mutex_lock(lock)
        while waiting > 0 && waiting + bytes.count > limit { pthread_cond_wait(changed, lock) }
        jobs.append((path, bytes))
        waiting += bytes.count
        pthread_cond_broadcast(changed)
        pthread_mutex_unlock(lock)
    }

    /// Waits until every file is written, and ends the thread.
    func finish() {
        guard started else { return }
        locked { finished = true; pthread_cond_broadcast(changed) }
        pthread_join(thread, nil)
        started = false
    }

    private func start() {
        started = true
        finished = false
        let context = Unmanaged.passRetained(self).toOpaque()
        pthread_create(&thread, nil, { context in
            Unmanaged<WriteQueue>.fromOpaque(context!).takeRetainedValue().run()
            return nil
        }, context)
    }

    private func run() {
        pthread_mutex_lock(lock)
        while true {
            while next == jobs.count && !finished { pthread_cond_wait(changed, lock) }
            if next == jobs.count { break }
            let job = jobs[next]
            jobs[next].bytes = []
            next += 1
            if next == jobs.count { jobs.removeAll(keepingCapacity: true); next = 0 }
            let failed = error != nil
            pthread_mutex_unlock(lock)
            var result: SiteWriter.WriteError?
            if !failed {
                do { try SiteWriter.store(job.path, job.bytes) } catch let e { result = e }
            }
            pthread_mutex_lock(lock)
            if error == nil { error = result }
            waiting -= job.bytes.count
            pthread_cond_broadcast(changed)
        }
        pthread_mutex_unlock(lock)
    }

    private func locked<T>(_ body: () -> T) -> T {
        pthread_mutex_lock(lock)
        defer { pthread_mutex_unlock(lock) }
        return body()
    }
}
