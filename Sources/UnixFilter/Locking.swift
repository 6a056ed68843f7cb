#if canImport(Glibc)
import Glibc
#endif

/// Takes an exclusive lock on `fd`, waiting at most `seconds`: a writer that stopped while it
/// held the lock must not hold every later one back for ever. 0, or the errno (EWOULDBLOCK when
/// the wait ran out).
public func lockExclusively(_ fd: Int32, waitingAtMost seconds: Int) -> Int32 {
    var waited = 0  // milliseconds
    while flock(fd, LOCK_EX | LOCK_NB) != 0 {
        guard errno == EWOULDBLOCK || errno == EINTR else { return errno }
        guard waited < seconds * 1000 else { return EWOULDBLOCK }
        usleep(10_000)
        waited += 10
    }
    return 0
}
