#if canImport(Glibc)
import Glibc
#endif

/// A maildir: the messages in `cur/` and `new/`, in file-name order, with the flags of their
/// names (`:2,FRS`) as labels: no `S` (or in `new/`) is UNREAD, `F` STARRED, `T` TRASH, `D` DRAFT.
public struct MaildirReader {
    let path: String

    public init(path: String) { self.path = path }

    public static func isMaildir(_ path: String) -> Bool {
        isDirectory(path + "/cur") || isDirectory(path + "/new")
    }

    /// Every message, or with a `shard`, that shard's run of them.
    public func forEach(shard: Shard? = nil, _ body: (RawMessage) throws -> Void) throws {
        guard Self.isMaildir(path) else { throw MailboxError.notAMaildir(path: path) }
        var files: [(sub: String, name: String)] = []
        for sub in ["cur", "new"] {
            files += Self.entries(path + "/" + sub).map { (sub, $0) }
        }
        let isDrafts = Self.isDraftsFolder(path)
        for (sub, name) in files[shard?.range(of: files.count) ?? files.indices] {
            let file = path + "/" + sub + "/" + name
            let fd = open(file, O_RDONLY | O_CLOEXEC)
            guard fd >= 0 else { throw MailboxError.io(path: file, errno: errno) }
            defer { close(fd) }
            let bytes = try readAll(fd: fd, path: file)
            let flags = Self.flags(of: name)
            var raw = RawMessage(bytes: bytes, source: MessageSource(path: file, offset: 0, length: bytes.count,
                                                                     format: "maildir", flags: flags))
            raw.flagLabels = Self.labels(flags: flags, isNew: sub == "new")
            raw.isInDraftsFolder = isDrafts
            try body(raw)
        }
    }

    /// The flags after `:2,` in a maildir file name ("" when none).
    static func flags(of name: String) -> String {
        guard let colon = name.lastIndex(of: ":"), name[colon...].hasPrefix(":2,") else { return "" }
        return String(name[colon...].dropFirst(3))
    }

    /// A folder whose name, or last Maildir++ component (`.INBOX.Drafts`), is Drafts, or
    /// one of the names Gmail gives its drafts in other languages (`Entwürfe`).
    static func isDraftsFolder(_ path: String) -> Bool {
        guard let folder = path.split(separator: "/").last else { return false }
        guard let name = folder.split(separator: ".").last else { return false }
        return GmailLabels.systemID(for: String(name)) == "DRAFT"
    }

    static func labels(flags: String, isNew: Bool) -> [String] {
        var labels: [String] = []
        if isNew || !flags.contains("S") { labels.append("UNREAD") }
        if flags.contains("F") { labels.append("STARRED") }
        if flags.contains("T") { labels.append("TRASH") }
        if flags.contains("D") { labels.append("DRAFT") }
        return labels
    }

    static func entries(_ dir: String) -> [String] {
        guard let d = opendir(dir) else { return [] }
        defer { closedir(d) }
        var names: [String] = []
        while let e = readdir(d) {
            let name = withUnsafeBytes(of: e.pointee.d_name) { raw in
                String(decoding: raw.prefix { $0 != 0 }, as: UTF8.self)
            }
            if name.hasPrefix(".") { continue }
            names.append(name)
        }
        return names.sorted()
    }

    static func isDirectory(_ path: String) -> Bool {
        var st = stat()
        return stat(path, &st) == 0 && (st.st_mode & S_IFMT) == S_IFDIR
    }
}

/// Reads all of `fd`.
func readAll(fd: Int32, path: String, initial: [UInt8] = []) throws -> [UInt8] {
    var out = initial
    // a file's size is known: room for all of it at once, not a copy each time the array grows
    var st = stat()
    if fstat(fd, &st) == 0, (st.st_mode & S_IFMT) == S_IFREG {
        let offset = lseek(fd, 0, SEEK_CUR)
        if offset >= 0, st.st_size > offset { out.reserveCapacity(out.count + Int(st.st_size - offset) + (1 << 16)) }
    }
    var chunk = 1 << 16
    while true {
        let old = out.count
        // into the room the array has, if any, so that the read that finds the end needs no more
        let want = out.capacity - old >= 4096 ? out.capacity - old : chunk
        out.append(contentsOf: repeatElement(0, count: want))
        var n = 0
        repeat {
            n = out.withUnsafeMutableBytes { read(fd, $0.baseAddress! + old, want) }
        } while n < 0 && errno == EINTR
        out.removeLast(want - max(n, 0))
        if n < 0 { throw MailboxError.io(path: path, errno: errno) }
        if n == 0 { return out }
        if chunk < 1 << 22 { chunk *= 2 }
    }
}
