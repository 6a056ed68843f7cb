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
    private let queue: WriteQueue
    static let manifest = ".chat-render-files"
    static let scratchPrefix = ".chat-render.tmp-"

    /// A file that could not be written, or a folder refused (not the user's alone).
    public struct WriteError: Error, CustomStringConvertible {
        public var path: String
        public var errno: Int32
        public var refusal: String?
        public var description: String { "\(path): \(refusal ?? String(cString: strerror(errno)))" }

        init(path: String, errno: Int32) { (self.path, self.errno) = (path, errno) }
        init(_ refused: PrivateFolder.Refused) { (path, errno, refusal) = (refused.path, EACCES, refused.reason) }
    }

    /// The site's folders are made or checked: a folder another user made or can write in is
    /// refused. Files are written in a scratch folder of this run's inside the site and renamed
    /// into place.
    public init(root: String, folders: [String]) throws(WriteError) {
        self.root = root
        do throws(PrivateFolder.Refused) {
            // readable by all as before (a web server may show the site), unless the umask says
            // otherwise (mailpipe-site's is 077)
            for dir in [root] + folders.map({ root + "/" + $0 }) { try PrivateFolder.make(dir, mode: 0o755) }
        } catch {
            throw WriteError(error)
        }
        Self.removeScratchOfEndedRuns(root)
        let scratch = root + "/" + Self.scratchPrefix + String(getpid())
        Self.removeScratch(scratch)
        guard mkdir(scratch, 0o700) == 0 else { throw WriteError(path: scratch, errno: errno) }
        queue = WriteQueue(limit: 32 << 20, scratch: scratch)
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

    /// Writes `path` by way of a file made anew (never through a link) in `scratch`.
    static func store(_ path: String, _ bytes: [UInt8], scratch: String) throws(WriteError) {
        if holds(path, bytes) { return }
        let temporary = scratch + "/" + path.split(separator: "/").last.map(String.init)!
        unlink(temporary)
        let fd = open(temporary, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0o644)
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

    /// The scratch folders of runs that were killed (their process is gone).
    static func removeScratchOfEndedRuns(_ root: String) {
        guard let dir = opendir(root) else { return }
        var ended: [String] = []
        while let entry = readdir(dir) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { String(decoding: $0.prefix(while: { $0 != 0 }), as: UTF8.self) }
            guard name.hasPrefix(scratchPrefix), let pid = Int32(name.dropFirst(scratchPrefix.count)) else { continue }
            if kill(pid, 0) != 0 && errno == ESRCH { ended.append(root + "/" + name) }
        }
        closedir(dir)
        for path in ended { removeScratch(path) }
    }

    /// Removes a scratch folder and the files in it (it has no folders).
    static func removeScratch(_ path: String) {
        guard let dir = opendir(path) else { return }
        while let entry = readdir(dir) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { String(decoding: $0.prefix(while: { $0 != 0 }), as: UTF8.self) }
            if name != "." && name != ".." { unlink(path + "/" + name) }
        }
        closedir(dir)
        rmdir(path)
    }

    /// Removes what the last run wrote and this one did not, and records this run's files.
    public func finish() throws(WriteError) {
        let written = try finishWriting()
        let current = Set(written)
        for name in previousNames() where !current.contains(name) { remove(name) }
        var list: [UInt8] = []
        for name in Set(written).sorted() { list += Array(name.utf8) + [UInt8(ascii: "\n")] }
        previous = nil
        try Self.store(root + "/" + Self.manifest, list, scratch: queue.scratch)
        Self.removeScratch(queue.scratch)
    }

    /// Removes this run's scratch folder, once its files are written.
    func removeScratchFolder() { Self.removeScratch(queue.scratch) }

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
    /// The folder files are made in before they are renamed into place.
    let scratch: String
    private let lock = UnsafeMutablePointer<pthread_mutex_t>.allocate(capacity: 1)
    private let changed = UnsafeMutablePointer<pthread_cond_t>.allocate(capacity: 1)
    private var thread = pthread_t()
    private var started = false

    init(limit: Int, scratch: String) {
        self.limit = limit
        self.scratch = scratch
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
                do { try SiteWriter.store(job.path, job.bytes, scratch: scratch) } catch let e { result = e }
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
