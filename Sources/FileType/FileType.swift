internal import CMagic
#if canImport(Glibc)
import Glibc
#endif

/// A file that could not be read, or a magic database that could not be loaded.
public struct FileTypeError: Error, CustomStringConvertible, Sendable {
    public var description: String
}

/// The MIME type of content, as file(1) tells it, from libmagic and the system's compiled magic
/// database (Debian's libmagic-mgc). Names are never looked at.
///
/// One libmagic handle per detector: libmagic keeps its state and its answer buffer in the
/// handle, so a detector must not be used by two threads at once; detectors on different
/// threads are independent.
public final class FileTypeDetector {
    private let magic: OpaquePointer
    /// How much of a file libmagic looks at; reading more would be wasted. Only this much of
    /// any content is handed to libmagic, so a 2 GB attachment costs what its start costs.
    public let bytesMax: Int

    /// The type alone ("text/plain"). Never decompress (that forks gzip, xz…, and the type of a
    /// .gz is application/gzip whatever it holds); errors as errors, not as answers.
    private static let typeFlags = MAGIC_MIME_TYPE | MAGIC_ERROR | MAGIC_NO_CHECK_COMPRESS | MAGIC_NO_COMPRESS_FORK
    private static let encodingFlags = MAGIC_MIME_ENCODING | MAGIC_ERROR | MAGIC_NO_CHECK_COMPRESS | MAGIC_NO_COMPRESS_FORK

    /// Loads the magic database (about a millisecond, more when it is not in the page cache).
    /// `bytesMax` lowers how much of the content libmagic looks at (libmagic's own default:
    /// 7 MiB in file 5.44): the time it takes on text grows with it.
    public init(bytesMax: Int? = nil) throws {
        guard let m = magic_open(Self.typeFlags) else { throw FileTypeError(description: "libmagic: cannot open: out of memory") }
        guard magic_load(m, nil) == 0 else {
            let why = magic_error(m).map { String(cString: $0) } ?? "cannot load the magic database"
            magic_close(m)
            throw FileTypeError(description: "libmagic: \(why)")
        }
        if var wanted = bytesMax, wanted > 0 {
            _ = magic_setparam(m, MAGIC_PARAM_BYTES_MAX, &wanted)
        }
        var limit = 0
        self.bytesMax = magic_getparam(m, MAGIC_PARAM_BYTES_MAX, &limit) == 0 && limit > 0 ? limit : 1 << 20
        magic = m
    }

    deinit { magic_close(magic) }

    /// "image/jpeg", "application/pdf", "text/plain"…; "application/octet-stream" when libmagic
    /// cannot tell, and for no bytes at all (libmagic's "application/x-empty" is no type a mail
    /// reader knows).
    public func mimeType(of bytes: [UInt8]) -> String {
        bytes.withUnsafeBytes { mimeType(of: $0) }
    }

    /// The same for bytes in memory (of which only the first `bytesMax` are looked at).
    public func mimeType(of bytes: UnsafeRawBufferPointer) -> String {
        ask(bytes, flags: Self.typeFlags) ?? "application/octet-stream"
    }

    /// The type of the file's content; throws when it cannot be read (missing, a directory, no
    /// permission).
    public func mimeType(ofFileAt path: String) throws -> String {
        mimeType(of: try readStart(of: path))
    }

    /// The charset of text as libmagic guesses it: "us-ascii", "utf-8", "iso-8859-1",
    /// "utf-16le"…; "binary" for what is not text (and for no bytes).
    public func charset(of bytes: [UInt8]) -> String {
        bytes.withUnsafeBytes { ask($0, flags: Self.encodingFlags) } ?? "binary"
    }

    private func ask(_ bytes: UnsafeRawBufferPointer, flags: Int32) -> String? {
        guard let base = bytes.baseAddress, !bytes.isEmpty else { return nil }
        magic_setflags(magic, flags)
        guard let answer = magic_buffer(magic, base, min(bytes.count, bytesMax)) else { return nil }
        let text = String(cString: answer)
        return text.isEmpty || text == "application/x-empty" ? nil : text
    }

    /// The first `bytesMax` bytes of the file: all that libmagic would look at.
    private func readStart(of path: String) throws -> [UInt8] {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { throw FileTypeError(description: "\(path): \(String(cString: strerror(errno)))") }
        defer { close(fd) }
        var bytes = [UInt8](repeating: 0, count: bytesMax)
        var count = 0
        while count < bytes.count {
            let n = bytes.withUnsafeMutableBytes { read(fd, $0.baseAddress! + count, $0.count - count) }
            if n < 0 && errno == EINTR { continue }
            guard n >= 0 else { throw FileTypeError(description: "\(path): \(String(cString: strerror(errno)))") }
            if n == 0 { break }
            count += n
        }
        bytes.removeSubrange(count...)
        return bytes
    }
}
