#if canImport(Glibc)
import Glibc
#endif
import MailStore
import UnixFilter

/// Renders of one site from a database take turns, so that the last message delivered is
/// always on the pages while deliveries that arrive together render it once: a run marks the
/// site due, then renders for as long as it is due while holding the site's lock. A run that
/// finds the lock held either leaves its mark to the holder, which renders again before it lets
/// go (`waiting: false`, for deliveries), or waits for its turn.
public enum SiteTurns {
    static let dueMark = ".mailpipe-site.due"
    static let lockFile = ".mailpipe-site.lock"

    /// Calls `render` while the site `root` is due and this run holds its turn; returns whether
    /// it rendered. The folder is made or checked first (a folder another user made or can
    /// write in is refused), so the mark and the lock are never written through another's link.
    /// A render that throws does not end the turn (the site may be due again); the first error
    /// is thrown once the turn is over. `taken` is called once, when this run's turn comes.
    public static func take(site root: String, waiting: Bool, taken: () throws -> Void = {}, _ render: () throws -> Void) throws -> Bool {
        do throws(PrivateFolder.Refused) { try PrivateFolder.make(root, mode: 0o755) } catch {
            throw SiteWriter.WriteError(error)
        }
        let due = root + "/" + dueMark
        try markDue(site: root)
        var rendered = false
        var failure: Error?
        while true {
            let lock = open(root + "/" + lockFile, O_RDWR | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0o600)
            guard lock >= 0 else { throw SiteWriter.WriteError(path: root + "/" + lockFile, errno: errno) }
            while flock(lock, waiting ? LOCK_EX : LOCK_EX | LOCK_NB) != 0 {
                let error = errno
                if error == EINTR { continue }
                Glibc.close(lock)
                if error == EWOULDBLOCK { return rendered }  // the holder will see the mark
                throw SiteWriter.WriteError(path: root + "/" + lockFile, errno: error)
            }
            if !rendered { try taken() }
            while access(due, F_OK) == 0 {
                unlink(due)
                do { try render() } catch is HandedOver {
                    Glibc.close(lock)  // not unlocked: the process the turn went on in holds it
                    return true
                } catch { failure = failure ?? error }
                rendered = true
            }
            Glibc.close(lock)
            // another run may have marked the site between the last look and the unlock
            if access(due, F_OK) != 0 { break }
        }
        if let failure { throw failure }
        return rendered
    }

    /// What a run in the background writes its errors to, in the site's folder.
    public static let logFile = ".mailpipe-site.log"

    /// Goes on in a process of its own, the caller's returning 0 at once (its turn goes with
    /// it): standard input and output are /dev/null, errors are appended to the site's log.
    /// Called before any thread is started.
    public static func leaveForBackground(site root: String) throws {
        if try !forked(site: root) { _exit(0) }
    }

    /// Goes on with the turn in a process of its own, the caller's leaving it to that one:
    /// `take` returns at once in the caller's, the lock still held by the other. Called inside
    /// `take`'s render, with no thread but the caller's.
    static func goOnInBackground(site root: String) throws {
        if try !forked(site: root) { throw HandedOver() }
        setpriority(__priority_which_t(PRIO_PROCESS.rawValue), 0, 10)  // the next delivery goes first
    }

    struct HandedOver: Error {}

    /// Forks: true in the new process, in a session of its own, with standard input and output
    /// /dev/null and errors appended to the site's log; false in the caller's.
    private static func forked(site root: String) throws -> Bool {
        let log = root + "/" + logFile
        let errors = open(log, O_WRONLY | O_APPEND | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0o600)
        guard errors >= 0 else { throw SiteWriter.WriteError(path: log, errno: errno) }
        let nothing = open("/dev/null", O_RDWR | O_CLOEXEC)
        defer {
            Glibc.close(nothing)
            Glibc.close(errors)
        }
        switch fork() {
        case -1: throw SiteWriter.WriteError(path: root, errno: errno)
        case 0:
            setsid()
            dup2(nothing, 0)
            dup2(nothing, 1)
            dup2(errors, 2)
            return true
        default: return false
        }
    }

    /// Marks the site due: its turn renders it again.
    static func markDue(site root: String) throws {
        let due = root + "/" + dueMark
        guard mark(due) else { throw SiteWriter.WriteError(path: due, errno: errno) }
    }

    private static func mark(_ path: String) -> Bool {
        let fd = open(path, O_WRONLY | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0o600)
        guard fd >= 0 else { return false }
        Glibc.close(fd)
        return true
    }
}
