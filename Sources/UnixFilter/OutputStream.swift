#if canImport(Glibc)
import Glibc
#endif
import CLibcExtras

/// Buffered standard output. Line-buffered when asked or when stdout is a terminal, so
/// interactive use sees each record at once. A write error ends the run with status 74.
public final class OutputStream {
    private var buffer: [UInt8] = []
    private let fd: Int32
    private let flushThreshold = 256 * 1024
    public let lineBuffered: Bool

    public init(fd: Int32 = 1, lineBuffered: Bool = false) {
        self.fd = fd
        self.lineBuffered = lineBuffered || isatty(fd) == 1
        buffer.reserveCapacity(flushThreshold + 65536)
        // A pipe holds 64 KB by default: a stage writing 256 KB at a time then waits on the
        // next stage, and the two take turns instead of running at once on two cores.
        mp_grow_pipe(fd, 1 << 20)
    }

    /// Writes one record and its newline.
    public func writeLine(_ bytes: [UInt8]) throws(OutputError) {
        buffer.append(contentsOf: bytes)
        buffer.append(0x0A)
        if lineBuffered || buffer.count >= flushThreshold { try flush() }
    }

    /// Writes bytes as they are (a message, not a record).
    public func write(_ bytes: [UInt8]) throws(OutputError) {
        buffer.append(contentsOf: bytes)
        if lineBuffered || buffer.count >= flushThreshold { try flush() }
    }

    public func flush() throws(OutputError) {
        guard !buffer.isEmpty else { return }
        if !writeAll(fd: fd, buffer) { throw OutputError(errno: errno) }
        buffer.removeAll(keepingCapacity: true)
    }
}

public struct OutputError: Error, CustomStringConvertible {
    public var errno: Int32
    public init(errno: Int32) { self.errno = errno }
    public var description: String { "write error: " + String(cString: strerror(errno)) }
}
