import Glibc
import Testing
import ICalendar

/// The device and inode of what fd 2 is now.
private func standardErrorIdentity() -> (UInt, UInt) {
    var s = stat()
    fstat(2, &s)
    return (UInt(s.st_dev), UInt(s.st_ino))
}

/// libical's warnings are silenced by sending fd 2 to /dev/null while it parses. Parses on
/// several threads at once must give fd 2 back as it was: a thread that saved the /dev/null
/// another had put there, and restored it last, silenced the process for good (Swift Testing's
/// own report vanished from parallel test runs).
@Test func parsesOnManyThreadsGiveStandardErrorBack() async {
    let before = standardErrorIdentity()
    let broken = "BEGIN:VCALENDAR\r\nBEGIN:VEVENT\r\nEND:VTODO\r\nUID:x\r\nEND:VEVENT\r\nEND:VCALENDAR\r\n"
    await withTaskGroup(of: Void.self) { group in
        for _ in 0..<8 {
            group.addTask {
                for _ in 0..<3000 { _ = ICalendarReader.read(broken) }
            }
        }
    }
    // other tests may be parsing right now: wait (a while) for their silence to end
    var after = standardErrorIdentity()
    for _ in 0..<200 where after != before {
        usleep(10_000)
        after = standardErrorIdentity()
    }
    #expect(after == before, "fd 2 is left pointing elsewhere (/dev/null)")
}
