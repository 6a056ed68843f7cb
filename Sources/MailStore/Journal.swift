#if canImport(Glibc)
import Glibc
#endif
import UnixFilter

/// The store's journal (mailpipe-log's JSON Lines, from which `mailstore add DB LOG` makes the
/// same database again), appended so that a kill or a full disk at any byte leaves it readable:
/// each record whole or absent. Writers take turns by a lock on the file; a record an earlier
/// writer left half written (it was killed, or the disk filled) is cut before the next is
/// appended, so the two are never glued into one line. That writer's delivery failed, and the
/// mail system hands the message over again.
public final class Journal {
    public let path: String
    private let fd: Int32
    /// Its size before this run appended.
    private var start: off_t = 0
    /// Bytes of a half-written record cut when it was opened.
    public private(set) var cut: off_t = 0
    /// Seconds a writer waits for another's turn, as long as for the database's.
    static let lockWait = 60

    /// Opens and locks the journal, made readable by the user alone when missing. Its folder
    /// and the file must be the user's and writable by no one else (see `PrivateFolder`).
    public init(path: String) throws(StoreError) {
        self.path = path
        do throws(PrivateFolder.Refused) { try PrivateFolder.checkFolder(of: path) } catch { throw .refused(error) }
        fd = open(path, O_RDWR | O_APPEND | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0o600)
        guard fd >= 0 else { throw .journal(path, String(cString: strerror(errno))) }
        do throws(StoreError) {
            var st = stat()
            guard fstat(fd, &st) == 0 else { throw .journal(path, String(cString: strerror(errno))) }
            guard (st.st_mode & S_IFMT) == S_IFREG else { throw StoreError.refused(.init(path: path, reason: "not a file")) }
            guard st.st_uid == geteuid() else {
                throw StoreError.refused(.init(path: path, reason: "the journal belongs to another user (uid \(st.st_uid)): refused, since they could read what is written in it"))
            }
            guard st.st_mode & 0o022 == 0 else {
                throw StoreError.refused(.init(path: path, reason: "others can write in the journal (mode \(String(st.st_mode & 0o7777, radix: 8))): refused; chmod go-w it"))
            }
            let locked = lockExclusively(fd, waitingAtMost: Self.lockWait)
            guard locked == 0 else {
                throw StoreError.journal(path, locked == EWOULDBLOCK ? "another writer has held the journal for \(Self.lockWait) s" : String(cString: strerror(locked)))
            }
            try cutUnfinishedRecord(size: st.st_size)
        } catch {
            Glibc.close(fd)
            throw error
        }
    }

    deinit { Glibc.close(fd) }

    /// Cuts the journal after its last newline: what follows is a record a writer did not finish.
    private func cutUnfinishedRecord(size: off_t) throws(StoreError) {
        start = size
        guard size > 0 else { return }
        var chunk = [UInt8](repeating: 0, count: 1 << 16)
        var end = size
        while end > 0 {
            let from = max(0, end - off_t(chunk.count))
            let count = Int(end - from)
            let n = chunk.withUnsafeMutableBytes { pread(fd, $0.baseAddress!, count, from) }
            guard n == count else { throw .journal(path, n < 0 ? String(cString: strerror(errno)) : "read short") }
            if let last = chunk[..<count].lastIndex(of: 0x0A) {
                end = from + off_t(last) + 1
                break
            }
            end = from
        }
        guard end < size else { return }
        guard ftruncate(fd, end) == 0 else { throw .journal(path, String(cString: strerror(errno))) }
        cut = size - end
        start = end
    }

    /// Appends the bytes of `source` from its start to its end, ending with a newline; on a
    /// failure (a full disk) what was written of them is cut again.
    public func append(from source: Int32) throws(StoreError) {
        var buffer = [UInt8](repeating: 0, count: 1 << 20)
        var offset: off_t = 0
        var last: UInt8 = 0x0A
        do throws(StoreError) {
            while true {
                let n = buffer.withUnsafeMutableBytes { pread(source, $0.baseAddress!, $0.count, offset) }
                if n < 0 && errno == EINTR { continue }
                guard n >= 0 else { throw .journal(path, "cannot read the records: \(String(cString: strerror(errno)))") }
                if n == 0 { break }
                try write(buffer[..<n])
                last = buffer[n - 1]
                offset += off_t(n)
            }
            if last != 0x0A { try write([0x0A]) }
        } catch {
            undo()
            throw error
        }
    }

    /// Appends `lines` (each ending with a newline); on a failure what was written is cut again.
    public func append(_ lines: [UInt8]) throws(StoreError) {
        do throws(StoreError) { try write(lines[...]) } catch {
            undo()
            throw error
        }
    }

    private func write(_ bytes: ArraySlice<UInt8>) throws(StoreError) {
        guard writeAll(fd: fd, Array(bytes)) else { throw .journal(path, String(cString: strerror(errno))) }
    }

    /// Cuts what this run appended (the store did not take it), so that the two agree.
    public func undo() {
        _ = ftruncate(fd, start)
    }
}
