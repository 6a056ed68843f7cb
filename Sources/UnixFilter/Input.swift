#if canImport(Glibc)
import Glibc
#endif
import CLibcExtras

/// One input named on the command line: a file, or standard input for `-`.
public struct Input {
    /// The name used in messages: the path, or `-` for standard input.
    public let name: String
    /// The path, nil for standard input.
    public let path: String?
    public let fd: Int32
    /// The size when the input is a regular file (for progress and ETA).
    public let size: Int?
    public let isDirectory: Bool

    /// Opens `path` (`-` is standard input). Throws with a message ready for stderr.
    public static func open(_ path: String) throws(InputError) -> Input {
        if path == "-" {
            mp_grow_pipe(0, 1 << 20)  // see OutputStream
            var st = stat()
            let regular = fstat(0, &st) == 0 && (st.st_mode & S_IFMT) == S_IFREG
            return Input(name: "-", path: nil, fd: 0, size: regular ? Int(st.st_size) : nil, isDirectory: false)
        }
        var st = stat()
        guard stat(path, &st) == 0 else { throw InputError(path: path, errno: errno) }
        if (st.st_mode & S_IFMT) == S_IFDIR {
            return Input(name: path, path: path, fd: -1, size: nil, isDirectory: true)
        }
        let fd = Glibc.open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { throw InputError(path: path, errno: errno) }
        let regular = (st.st_mode & S_IFMT) == S_IFREG
        return Input(name: path, path: path, fd: fd, size: regular ? Int(st.st_size) : nil, isDirectory: false)
    }

    public func close() {
        if fd > 0 { _ = Glibc.close(fd) }
    }
}

public struct InputError: Error, CustomStringConvertible {
    public var path: String
    public var errno: Int32
    public var description: String { String(cString: strerror(errno)) }
    /// Missing or unreadable input is "no input" (66); anything else an I/O error (74).
    public var status: ExitStatus { errno == ENOENT || errno == EACCES || errno == ENOTDIR ? .noInput : .ioError }
}

/// Reads a whole file (for small inputs such as one message or a maildir entry).
public func readWholeFile(fd: Int32) throws(InputError) -> [UInt8] {
    // read in place, into room for the whole of a regular file, rather than chunk by chunk
    var st = stat()
    let size = fstat(fd, &st) == 0 && (st.st_mode & S_IFMT) == S_IFREG ? Int(st.st_size) : 0
    var out = [UInt8](repeating: 0, count: max(size + 1, 1 << 16))  // + 1: the read that finds the end
    var filled = 0
    while true {
        if filled == out.count { out += repeatElement(0, count: out.count) }
        let n = out.withUnsafeMutableBytes { read(fd, $0.baseAddress! + filled, $0.count - filled) }
        if n < 0 {
            if errno == EINTR { continue }
            throw InputError(path: "", errno: errno)
        }
        if n == 0 {
            out.removeLast(out.count - filled)
            return out
        }
        filled += n
    }
}

/// Copies standard input to an unlinked temporary file and puts that file on descriptor 0,
/// so that standard input can be read twice. Returns a second descriptor for the first pass.
public func spoolStandardInput() throws -> Int32 {
    var template = Array(((getenv("TMPDIR").map { String(cString: $0) } ?? "/tmp") + "/mailpipe-stdin-XXXXXX").utf8CString)
    let fd = template.withUnsafeMutableBufferPointer { mkstemp($0.baseAddress!) }
    guard fd >= 0 else { throw SpoolError(errno: errno) }
    template.withUnsafeBufferPointer { _ = unlink($0.baseAddress!) }
    var buffer = [UInt8](repeating: 0, count: 1 << 20)
    while true {
        let n = buffer.withUnsafeMutableBytes { read(0, $0.baseAddress!, $0.count) }
        if n < 0 && errno == EINTR { continue }
        if n < 0 { throw SpoolError(errno: errno) }
        if n == 0 { break }
        var written = 0
        while written < n {
            let w = buffer.withUnsafeBytes { write(fd, $0.baseAddress! + written, n - written) }
            if w < 0 && errno == EINTR { continue }
            if w < 0 { throw SpoolError(errno: errno) }
            written += w
        }
    }
    guard dup2(fd, 0) >= 0 else { throw SpoolError(errno: errno) }
    lseek(0, 0, SEEK_SET)
    lseek(fd, 0, SEEK_SET)
    return fd  // shares the offset with 0: the first pass rewinds when done
}

struct SpoolError: Error, CustomStringConvertible {
    var errno: Int32
    var description: String { "cannot keep standard input to read it twice: " + String(cString: strerror(errno)) }
}
