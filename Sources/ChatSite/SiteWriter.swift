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
    public private(set) var written = 0
    public private(set) var unchanged = 0
    private var names: [String] = []
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

    /// Writes `name` (a path inside the site) unless it already holds `bytes`.
    public func write(_ name: String, _ bytes: [UInt8]) throws(WriteError) {
        names.append(name)
        let path = root + "/" + name
        if Self.holds(path, bytes) {
            unchanged += 1
            return
        }
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
        written += 1
    }

    /// Removes what the last run wrote and this one did not, and records this run's files.
    public func finish() throws(WriteError) {
        let manifestPath = root + "/" + Self.manifest
        let current = Set(names)
        if let old = Self.read(manifestPath) {
            for name in String(decoding: old, as: UTF8.self).split(separator: "\n") where !current.contains(String(name)) {
                // only names this tool writes: a line of a damaged list must not reach outside
                if !name.contains("..") && !name.hasPrefix("/") { unlink(root + "/" + name) }
            }
        }
        let list = names.sorted().joined(separator: "\n") + "\n"
        names = []
        try write(Self.manifest, Array(list.utf8))
        names = []
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
