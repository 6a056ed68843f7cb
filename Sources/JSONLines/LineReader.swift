#if canImport(Glibc)
import Glibc
#endif

/// Reads a file descriptor in large chunks and hands out its lines without their line ending
/// (LF or CRLF), each with its 1-based number. A line longer than the buffer grows it; memory
/// stays proportional to the longest line, not to the input.
public struct LineReader {
    public enum ReadError: Error, Sendable { case io(errno: Int32) }

    private let fd: Int32
    private var buffer: UnsafeMutableRawBufferPointer
    private var start = 0
    private var end = 0
    private var eof = false
    public private(set) var lineNumber = 0
    /// Bytes read from the input so far.
    public private(set) var bytesRead = 0
    private var consumed = 0

    /// One line: its bytes (valid until the next line is read), number and file offset.
    public struct Line {
        public var bytes: UnsafeRawBufferPointer
        public var number: Int
        public var offset: Int
        /// Bytes the line takes in the input, line ending included.
        public var length: Int
    }

    /// `initial` holds bytes already read from `fd` (for format detection). `offset` and
    /// `lineNumber` say where `fd` stands in its file when reading starts in the middle.
    public init(fd: Int32, initial: [UInt8] = [], chunkSize: Int = 1 << 20, offset: Int = 0, lineNumber: Int = 0) {
        self.fd = fd
        self.consumed = offset
        self.lineNumber = lineNumber
        buffer = .allocate(byteCount: max(chunkSize, initial.count * 2), alignment: 16)
        initial.withUnsafeBytes { buffer.copyMemory(from: $0) }
        end = initial.count
        bytesRead = initial.count
    }

    /// Frees the buffer; call once when done.
    public func close() { buffer.deallocate() }

    /// Calls `body` with each line until the input ends or `body` returns false.
    public mutating func forEachLine(_ body: (Line) throws -> Bool) throws {
        while true {
            let found: Int? = {
                guard end > start, let base = buffer.baseAddress else { return nil }
                let p = memchr(base + start, 0x0A, end - start)
                return p.map { base.distance(to: $0) }
            }()
            if let newline = found {
                lineNumber += 1
                var lineEnd = newline
                if lineEnd > start, buffer[lineEnd - 1] == 0x0D { lineEnd -= 1 }
                let line = Line(bytes: UnsafeRawBufferPointer(rebasing: buffer[start..<lineEnd]), number: lineNumber,
                                offset: consumed, length: newline + 1 - start)
                consumed += line.length
                start = newline + 1
                if try !body(line) { return }
                continue
            }
            if eof {
                if end > start {
                    lineNumber += 1
                    var lineEnd = end
                    if buffer[lineEnd - 1] == 0x0D { lineEnd -= 1 }
                    let line = Line(bytes: UnsafeRawBufferPointer(rebasing: buffer[start..<lineEnd]), number: lineNumber,
                                    offset: consumed, length: end - start)
                    consumed += line.length
                    start = end
                    _ = try body(line)
                }
                return
            }
            try fill()
        }
    }

    private mutating func fill() throws {
        if start > 0 {
            // move the partial line to the front
            if end > start, let base = buffer.baseAddress { memmove(base, base + start, end - start) }
            end -= start
            start = 0
        }
        if end == buffer.count {
            let bigger = UnsafeMutableRawBufferPointer.allocate(byteCount: buffer.count * 2, alignment: 16)
            bigger.copyMemory(from: UnsafeRawBufferPointer(buffer))
            buffer.deallocate()
            buffer = bigger
        }
        while true {
            let n = read(fd, buffer.baseAddress! + end, buffer.count - end)
            if n < 0 {
                if errno == EINTR { continue }
                throw ReadError.io(errno: errno)
            }
            if n == 0 { eof = true }
            end += n
            bytesRead += n
            return
        }
    }
}
