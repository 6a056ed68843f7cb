internal import CMagic
#if canImport(Glibc)
import Glibc
#endif

/// A file that could not be read, or libmagic or its database that could not be loaded.
public struct FileTypeError: Error, CustomStringConvertible, Sendable {
    public var description: String
}

/// libmagic's functions, from the library opened when the first detector is made rather than
/// linked: a program that never types a file (mime-parse on mail without attachments) does not
/// load it, nor the three compression libraries it brings (half a millisecond of each start).
private final class LibMagic: @unchecked Sendable {
    typealias Open = @convention(c) (Int32) -> OpaquePointer?
    typealias Close = @convention(c) (OpaquePointer?) -> Void
    typealias Load = @convention(c) (OpaquePointer?, UnsafePointer<CChar>?) -> Int32
    typealias ErrorText = @convention(c) (OpaquePointer?) -> UnsafePointer<CChar>?
    typealias Buffer = @convention(c) (OpaquePointer?, UnsafeRawPointer?, Int) -> UnsafePointer<CChar>?
    typealias SetFlags = @convention(c) (OpaquePointer?, Int32) -> Int32
    typealias GetParam = @convention(c) (OpaquePointer?, Int32, UnsafeMutableRawPointer?) -> Int32
    typealias SetParam = @convention(c) (OpaquePointer?, Int32, UnsafeRawPointer?) -> Int32

    let open: Open
    let close: Close
    let load: Load
    let error: ErrorText
    let buffer: Buffer
    let setFlags: SetFlags
    let getParam: GetParam
    let setParam: SetParam

    /// Opened once, on first use (a static let is initialized once, whatever the threads).
    static let shared: Result<LibMagic, FileTypeError> = {
        do {
            return .success(try LibMagic(library: "libmagic.so.1"))
        } catch let error as FileTypeError {
            return .failure(error)
        } catch {
            return .failure(FileTypeError(description: "libmagic: \(error)"))
        }
    }()

    private init(library: String) throws(FileTypeError) {
        guard let handle = dlopen(library, RTLD_NOW | RTLD_LOCAL) else {
            throw FileTypeError(description: "libmagic: " + (dlerror().map { String(cString: $0) } ?? "cannot open \(library)"))
        }
        func function<F>(_ name: String, _ type: F.Type) throws(FileTypeError) -> F {
            guard let address = dlsym(handle, name) else { throw FileTypeError(description: "libmagic: \(library) has no \(name)") }
            return unsafeBitCast(address, to: type)
        }
        open = try function("magic_open", Open.self)
        close = try function("magic_close", Close.self)
        load = try function("magic_load", Load.self)
        error = try function("magic_error", ErrorText.self)
        buffer = try function("magic_buffer", Buffer.self)
        setFlags = try function("magic_setflags", SetFlags.self)
        getParam = try function("magic_getparam", GetParam.self)
        setParam = try function("magic_setparam", SetParam.self)
    }
}

/// The MIME type of content, as file(1) tells it, from libmagic and the system's compiled magic
/// database (Debian's libmagic-mgc). Names are never looked at.
///
/// One libmagic handle per detector: libmagic keeps its state and its answer buffer in the
/// handle, so a detector must not be used by two threads at once; detectors on different
/// threads are independent.
public final class FileTypeDetector {
    private let magic: OpaquePointer
    private let lib: LibMagic
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
        let lib = try LibMagic.shared.get()
        guard let m = lib.open(Self.typeFlags) else { throw FileTypeError(description: "libmagic: cannot open: out of memory") }
        guard lib.load(m, nil) == 0 else {
            let why = lib.error(m).map { String(cString: $0) } ?? "cannot load the magic database"
            lib.close(m)
            throw FileTypeError(description: "libmagic: \(why)")
        }
        if var wanted = bytesMax, wanted > 0 {
            _ = lib.setParam(m, MAGIC_PARAM_BYTES_MAX, &wanted)
        }
        var limit = 0
        self.bytesMax = lib.getParam(m, MAGIC_PARAM_BYTES_MAX, &limit) == 0 && limit > 0 ? limit : 1 << 20
        magic = m
        self.lib = lib
    }

    deinit { lib.close(magic) }

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
        _ = lib.setFlags(magic, flags)
        guard let answer = lib.buffer(magic, base, min(bytes.count, bytesMax)) else { return nil }
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
