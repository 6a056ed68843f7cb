#if canImport(Glibc)
import Glibc
#endif
import Conversations
import JSONLines
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
    /// Its length now, and the file it is (device and inode): where the database's mark says
    /// it had taken the journal's records up to.
    private(set) var size: off_t = 0
    private(set) var file = ""
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
            guard !PrivateFolder.othersCanWrite(st) else {
                throw StoreError.refused(.init(path: path, reason: "others can write in the journal (mode \(String(st.st_mode & 0o7777, radix: 8))): refused; chmod go-w it"))
            }
            let locked = lockExclusively(fd, waitingAtMost: Self.lockWait)
            guard locked == 0 else {
                throw StoreError.journal(path, locked == EWOULDBLOCK ? "another writer has held the journal for \(Self.lockWait) s" : String(cString: strerror(locked)))
            }
            try cutUnfinishedRecord(size: st.st_size)
            size = start
            file = "\(st.st_dev):\(st.st_ino)"
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

    /// Appends `lines` (each ending with a newline); on a failure what was written is cut again.
    public func append(_ lines: [UInt8]) throws(StoreError) {
        guard writeAll(fd: fd, lines) else {
            let failure = StoreError.journal(path, String(cString: strerror(errno)))
            undo()
            throw failure
        }
        size += off_t(lines.count)
    }

    /// Cuts what this run appended (the store did not take it), so that the two agree.
    public func undo() {
        _ = ftruncate(fd, start)
        size = start
    }

    /// The whole lines from `offset` to where this run started appending.
    func lines(from offset: off_t) throws(StoreError) -> [[UInt8]] {
        guard offset < start else { return [] }
        var bytes = [UInt8](repeating: 0, count: Int(start - offset))
        var done = 0
        while done < bytes.count {
            let n = bytes.withUnsafeMutableBytes { pread(fd, $0.baseAddress! + done, $0.count - done, offset + off_t(done)) }
            guard n > 0 else { throw .journal(path, n < 0 ? String(cString: strerror(errno)) : "read short") }
            done += n
        }
        return bytes.split(separator: 0x0A).map(Array.init)
    }
}

extension MailStore {
    /// Adds a record made in this process (a delivery) with its journal, so that after a kill
    /// at any moment each record is in both exactly once, or in the journal only until the next
    /// delivery replays it. In one transaction: the records the journal holds past the
    /// database's mark (appended by a writer killed before it committed) are added, then
    /// `record`, which is appended to the journal unless the database already held it as it is,
    /// and the mark moves to the journal's end. With `meAuto`, your addresses are inferred from
    /// the record first when the database knows none; `also` runs in the same transaction, the
    /// record stored. What was inferred: nil when nothing was asked or known, "" when nothing
    /// could be.
    public func deliver(_ record: JSONRecord, journal: Journal?, meAuto: Bool, also: () throws -> Void = {}) throws -> (counts: AddCounts, replayed: Int, inferred: String?) {
        var inferred: String?
        if meAuto && own.isEmpty {
            var inference = OwnAddressInference()
            inference.observe(record, normalizer: normalizer)
            inferred = try inferOwnAddresses(inference) ?? ""
        }
        // an attachment that could not be written: the delivery is tried again, not stored without it
        do { try attachments.takeFailure() } catch let e as AttachmentFolder.Failed {
            attachments.release()
            throw e.storeError
        }
        var counts = AddCounts()
        var replayed = 0
        do {
            try batch {
                if let journal, let mark = try journalMark(), mark.file == journal.file {
                    for line in try journal.lines(from: mark.end) {
                        if let r = try? JSONRecord(line), try add(r) != .unchanged { replayed += 1 }
                    }
                }
                switch try add(record) {
                case .added: counts.added += 1
                case .updated: counts.updated += 1
                case .unchanged: counts.unchanged += 1
                }
                try also()
                if let journal {
                    if counts.unchanged == 0 { try journal.append(record.bytes + [0x0A]) }
                    try setMark(journal)
                }
            }
        } catch {
            journal?.undo()  // the database took none of them
            throw error
        }
        return (counts, replayed, inferred)
    }

    private func setMark(_ journal: Journal) throws {
        try setConfig("journal", "\(journal.file) \(journal.size)")
    }

    /// The journal the database took records from last, and its length then.
    private func journalMark() throws -> (file: String, end: off_t)? {
        guard let parts = try config("journal")?.split(separator: " "), parts.count == 2, let end = off_t(parts[1]) else { return nil }
        return (String(parts[0]), end)
    }
}
