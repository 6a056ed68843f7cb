#if canImport(Glibc)
import Glibc
#endif

/// The folders mailpipe writes private mail into (a site, a store, a journal) must be the
/// user's own and changeable by no one else: a neighbour who made the folder first (in /tmp,
/// say) could otherwise plant a link where a file is about to be written, and have it written
/// over a file of the user's. A folder that is not is refused (EX_CANTCREAT), never repaired.
public enum PrivateFolder {
    public struct Refused: Error, CustomStringConvertible {
        public var path: String
        public var reason: String
        public var description: String { "\(path): \(reason)" }
        public init(path: String, reason: String) { (self.path, self.reason) = (path, reason) }
    }

    /// Makes `path` (with `mode`, less the umask) when it is missing, then checks it as `check`
    /// does.
    public static func make(_ path: String, mode: mode_t) throws(Refused) {
        if mkdir(path, mode) != 0 && errno != EEXIST {
            throw Refused(path: path, reason: "cannot make the folder: \(String(cString: strerror(errno)))")
        }
        try check(path)
    }

    /// Checks that `path` is a folder of the user's that no one else can write in. A symbolic
    /// link is followed only when the user (or the system) made it.
    public static func check(_ path: String) throws(Refused) {
        var link = stat()
        guard lstat(path, &link) == 0 else { throw Refused(path: path, reason: String(cString: strerror(errno))) }
        let me = geteuid()
        if (link.st_mode & S_IFMT) == S_IFLNK && link.st_uid != me && link.st_uid != 0 {
            throw Refused(path: path, reason: "a symbolic link made by another user (uid \(link.st_uid)): refused")
        }
        var folder = stat()
        guard stat(path, &folder) == 0 else { throw Refused(path: path, reason: String(cString: strerror(errno))) }
        guard (folder.st_mode & S_IFMT) == S_IFDIR else { throw Refused(path: path, reason: "not a folder") }
        guard folder.st_uid == me else {
            throw Refused(path: path, reason: "the folder belongs to another user (uid \(folder.st_uid)): refused, since they could change what is written in it")
        }
        guard !othersCanWrite(folder) else {
            throw Refused(path: path, reason: "others can write in the folder (mode \(String(folder.st_mode & 0o7777, radix: 8))): refused; chmod go-w it")
        }
    }

    /// Whether someone besides the user can write in what `st` describes: anyone, or its group
    /// when that is not the user's own (with a group of one's own, the umask 002 of some
    /// systems makes folders group-writable and nobody else's).
    public static func othersCanWrite(_ st: stat) -> Bool {
        st.st_mode & 0o002 != 0 || (st.st_mode & 0o020 != 0 && st.st_gid != getegid())
    }

    /// Checks the folder a file is in.
    public static func checkFolder(of file: String) throws(Refused) {
        try check(folder(of: file))
    }

    public static func folder(of file: String) -> String {
        guard let slash = file.lastIndex(of: "/") else { return "." }
        let folder = String(file[..<slash])
        return folder.isEmpty ? "/" : folder
    }
}
