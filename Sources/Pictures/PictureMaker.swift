#if canImport(Glibc)
import Glibc
#endif
import FileType
import Hashing

/// Pictures of mail attachments, made safely: the thumbnails and display copies chat-render's
/// site shows, from files that are hostile until proven otherwise.
///
/// libvips rather than ImageMagick: it streams pictures and shrinks them while decoding, and its
/// loaders can be blocked one by one (docs/architecture.md, "Pictures", has the facts).
///
/// What is refused becomes kind `file` with a reason, never a failure of the run: a type other
/// than JPEG, PNG, GIF, WebP, HEIF and PDF (read by libmagic from the bytes, never from the
/// name; SVG included, as it can carry script), a header that declares more than `maxPixels`
/// pixels (a decompression bomb is refused before a pixel is decoded), and whatever vips cannot
/// read.
public struct PictureOptions: Sendable {
    /// The longest side of a thumbnail, in pixels.
    public var thumbnailSize = 320
    /// The longest side of the display copy (the picture a click opens), in pixels.
    public var displaySize = 1600
    /// The most pixels (width × height of the first page) a picture may declare.
    public var maxPixels = 100_000_000

    public init() {}
}

public enum PictureKind: String, Sendable {
    case image, pdf, file
}

/// What was made of one file.
public struct Picture: Sendable, Equatable {
    public var kind: PictureKind
    /// The picture's size as shown (after its EXIF orientation), of a PDF its first page's at 72
    /// dpi; nil for a file.
    public var width: Int?
    public var height: Int?
    /// The paths written, nil for a file.
    public var thumbnail: String?
    public var display: String?
    /// Why it is a file, not a picture; nil for a picture.
    public var error: String?

    public init(kind: PictureKind, width: Int? = nil, height: Int? = nil, thumbnail: String? = nil, display: String? = nil, error: String? = nil) {
        self.kind = kind
        self.width = width
        self.height = height
        self.thumbnail = thumbnail
        self.display = display
        self.error = error
    }

    static func file(_ why: String) -> Picture { Picture(kind: .file, error: why) }
}

/// Makes pictures one file at a time. Not for two threads at once: vips' loaders are narrowed
/// per file, for the whole process.
public final class PictureMaker {
    public let options: PictureOptions
    private let types: FileTypeDetector

    /// Starts libvips and libmagic; throws when either cannot start.
    public init(options: PictureOptions = PictureOptions()) throws {
        if let failure = Vips.start() { throw PictureError(description: failure) }
        do { types = try FileTypeDetector() } catch { throw PictureError(description: "\(error)") }
        self.options = options
    }

    /// The loader for each type libmagic tells, and whether it makes a PDF.
    private static let loaders: [String: (loader: String, className: String, kind: PictureKind)] = [
        "image/jpeg": ("jpegload", "VipsForeignLoadJpeg", .image),
        "image/png": ("pngload", "VipsForeignLoadPng", .image),
        "image/gif": ("gifload", "VipsForeignLoadNsgif", .image),
        "image/webp": ("webpload", "VipsForeignLoadWebp", .image),
        "image/heic": ("heifload", "VipsForeignLoadHeif", .image),
        "image/heif": ("heifload", "VipsForeignLoadHeif", .image),
        "image/avif": ("heifload", "VipsForeignLoadHeif", .image),
        "application/pdf": ("pdfload", "VipsForeignLoadPdf", .pdf),
    ]

    /// The detected type of the file, as libmagic reads its bytes.
    public func detectedType(of path: String) -> Result<String, PictureError> {
        do { return .success(try types.mimeType(ofFileAt: path)) } catch {
            return .failure(PictureError(description: "\(error)"))
        }
    }

    /// Reads the file, and writes its thumbnail and display copy into `folder` as
    /// `<name>.t.jpg` and `<name>.jpg` (`.png` when the picture has transparency), metadata-free
    /// and upright. Files are written under a temporary name and renamed, so that a reader never
    /// sees half of one.
    public func make(file path: String, name: String, into folder: String) -> Picture {
        let type: String
        switch detectedType(of: path) {
        case .failure(let error): return .file("cannot read: \(error)")
        case .success(let t): type = t
        }
        guard let (loader, className, kind) = Self.loaders[type] else {
            if type == "image/svg+xml" || type.hasSuffix("+xml") && type.hasPrefix("image/") {
                return .file("\(type): a picture that can carry script is offered as a file only")
            }
            return .file("\(type): not a picture type mail-thumbnail reads")
        }
        return Vips.allowing(only: className) { make(path, loader: loader, kind: kind, type: type, name: name, folder: folder) }
    }

    private func make(_ path: String, loader: String, kind: PictureKind, type: String, name: String, folder: String) -> Picture {
        let header: VipsPicture
        do { header = try VipsPicture.header(of: path, loader: loader) } catch {
            return .file("\(type): cannot read its header: \(error)")
        }
        let (width, height) = header.orientationSwaps ? (header.height, header.width) : (header.width, header.height)
        guard width > 0, height > 0 else { return .file("\(type): no pixels") }
        let (pixels, overflow) = width.multipliedReportingOverflow(by: height)
        guard !overflow, pixels <= options.maxPixels else {
            return .file("\(type): \(width)×\(height) is over the limit of \(options.maxPixels) pixels")
        }

        let display: VipsPicture, thumbnail: VipsPicture, transparent: Bool
        do {
            // decoded once, into the display copy, which the thumbnail is made from
            let decoded = try VipsPicture.thumbnail(of: path, width: options.displaySize, height: options.displaySize,
                                                    enlarge: kind == .pdf).inMemory()
            transparent = try kind == .image && decoded.hasTransparency()
            display = transparent ? decoded : try decoded.withoutAlpha()
            thumbnail = try display.thumbnail(width: options.thumbnailSize, height: options.thumbnailSize)
        } catch {
            return .file("\(type): cannot decode: \(error)")
        }
        let suffix = transparent ? ".png" : ".jpg"
        let displayPath = folder + "/" + name + suffix
        let thumbnailPath = folder + "/" + name + ".t" + suffix
        if let why = save(display, to: displayPath, png: transparent) ?? save(thumbnail, to: thumbnailPath, png: transparent) {
            return .file("\(type): cannot write: \(why)")
        }
        return Picture(kind: kind, width: width, height: height, thumbnail: thumbnailPath, display: displayPath, error: nil)
    }

    /// Saves under a temporary name beside `path`, then renames it into place; the error.
    private func save(_ picture: VipsPicture, to path: String, png: Bool) -> String? {
        let temporary = path + ".tmp-\(getpid())"
        do { try picture.save(to: temporary, png: png) } catch {
            unlink(temporary)
            return error.description
        }
        guard rename(temporary, path) == 0 else {
            let why = String(cString: strerror(errno))
            unlink(temporary)
            return why
        }
        return nil
    }

    /// The SHA-256 of a file's bytes, in lower-case hex; read in blocks, never whole.
    public static func sha256(ofFileAt path: String) -> Result<String, PictureError> {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { return .failure(PictureError(description: String(cString: strerror(errno)))) }
        defer { close(fd) }
        let hash = SHA256()
        var buffer = [UInt8](repeating: 0, count: 1 << 16)
        while true {
            let n = buffer.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
            if n < 0 && errno == EINTR { continue }
            guard n >= 0 else { return .failure(PictureError(description: String(cString: strerror(errno)))) }
            if n == 0 { break }
            buffer.withUnsafeBytes { hash.update(UnsafeRawBufferPointer(rebasing: $0[..<n])) }
        }
        return .success(hexString(hash.finalize()))
    }
}

public struct PictureError: Error, CustomStringConvertible, Sendable {
    public var description: String
}
