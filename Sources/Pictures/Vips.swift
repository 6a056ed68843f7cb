internal import CVips
#if canImport(Glibc)
import Glibc
#endif

/// libvips, started once for the process and locked down before it reads anything: no
/// operation cache (each picture is read once, and a cache would hold hostile files' pixels),
/// one worker thread, and every loader blocked but the six mailpipe chooses between. Loaders
/// are then narrowed to one per file (`allowing(only:)`), the one libmagic's type names.
enum Vips {
    /// The loaders mailpipe uses, by vips' class name; everything else (SVG through librsvg,
    /// ImageMagick, OpenSlide, FITS, Matlab, raw, vips' own format…) stays blocked.
    static let allowedLoaders = ["VipsForeignLoadJpeg", "VipsForeignLoadPng", "VipsForeignLoadNsgif",
                                 "VipsForeignLoadWebp", "VipsForeignLoadHeif", "VipsForeignLoadPdf"]

    /// Starts vips the first time it is asked for; the error when it cannot start.
    static func start() -> String? { started.failure }

    private final class Started: @unchecked Sendable {
        let failure: String?
        init() {
            // vips' own warnings ("premature end of JPEG file") go to stderr unasked; a file it
            // reads only in part still comes out as what it could read.
            setenv("VIPS_WARNING", "0", 1)
            mp_one_malloc_arena()
            guard mp_vips_init("mail-thumbnail") == 0 else {
                failure = "libvips: " + Vips.takeError()
                return
            }
            vips_cache_set_max(0)
            vips_cache_set_max_mem(0)
            vips_cache_set_max_files(0)
            vips_concurrency_set(1)
            vips_operation_block_set("VipsForeignLoad", 1)
            for loader in Vips.allowedLoaders { vips_operation_block_set(loader, 0) }
            failure = nil
        }
    }
    private static let started = Started()

    /// Runs `body` with `loader` the only loader vips may use, then the six allowed again:
    /// vips' thumbnail picks its loader by sniffing the file, and must find this one or none.
    /// vips is used from one thread at a time (PictureMaker is not Sendable).
    static func allowing<T>(only loader: String, _ body: () -> T) -> T {
        for other in allowedLoaders where other != loader { vips_operation_block_set(other, 1) }
        defer { for other in allowedLoaders where other != loader { vips_operation_block_set(other, 0) } }
        return body()
    }

    /// vips' error buffer as one line, cleared.
    static func takeError() -> String {
        let text = String(cString: vips_error_buffer())
        vips_error_clear()
        let lines = text.split(separator: "\n").map { $0.trimmingPrefix(" ") }.filter { !$0.isEmpty }
        return lines.isEmpty ? "unknown error" : lines.prefix(2).joined(separator: "; ")
    }
}

extension Substring {
    fileprivate func trimmingPrefix(_ s: String) -> Substring {
        var t = self
        while t.hasPrefix(s) { t = t.dropFirst(s.count) }
        return t
    }
}

/// One vips image, released when the Swift value goes.
final class VipsPicture {
    let image: OpaquePointer

    init(_ image: OpaquePointer) { self.image = image }
    deinit { mp_vips_unref(UnsafeMutablePointer(image)) }

    var width: Int { Int(mp_vips_width(UnsafeMutablePointer(image))) }
    var height: Int { Int(mp_vips_height(UnsafeMutablePointer(image))) }
    var pages: Int { Int(vips_image_get_n_pages(UnsafeMutablePointer(image))) }
    /// The EXIF orientation turns it a quarter (5–8): its width and height swap when shown.
    var orientationSwaps: Bool { vips_image_get_orientation_swap(UnsafeMutablePointer(image)) != 0 }

    /// The header of a file through one named loader ("jpegload"); the error otherwise.
    static func header(of path: String, loader: String) throws(VipsError) -> VipsPicture {
        var out: UnsafeMutablePointer<VipsImage>?
        guard mp_vips_load_header(loader, path, &out) == 0, let out else { throw VipsError() }
        return VipsPicture(OpaquePointer(out))
    }

    /// The file's first page at most `width` × `height`, turned upright, shrunk on load; made
    /// that size even when smaller with `enlarge` (a PDF's page, drawn at that size).
    static func thumbnail(of path: String, width: Int, height: Int, enlarge: Bool = false) throws(VipsError) -> VipsPicture {
        var out: UnsafeMutablePointer<VipsImage>?
        guard mp_vips_thumbnail(path, &out, Int32(width), Int32(height), enlarge ? 1 : 0) == 0, let out else { throw VipsError() }
        return VipsPicture(OpaquePointer(out))
    }

    func thumbnail(width: Int, height: Int) throws(VipsError) -> VipsPicture {
        var out: UnsafeMutablePointer<VipsImage>?
        guard mp_vips_thumbnail_image(UnsafeMutablePointer(image), &out, Int32(width), Int32(height)) == 0, let out else {
            throw VipsError()
        }
        return VipsPicture(OpaquePointer(out))
    }

    /// The pixels computed now and held in memory, so that two pictures made from this one
    /// decode the file once.
    func inMemory() throws(VipsError) -> VipsPicture {
        guard let out = vips_image_copy_memory(UnsafeMutablePointer(image)) else { throw VipsError() }
        return VipsPicture(OpaquePointer(out))
    }

    /// Whether the picture has transparency it uses: an alpha band that is opaque everywhere
    /// (a rendered PDF page, many screenshots) is none.
    func hasTransparency() throws(VipsError) -> Bool {
        switch mp_vips_alpha_is_opaque(UnsafeMutablePointer(image)) {
        case -1: throw VipsError()
        case 1: return false
        default: return vips_image_hasalpha(UnsafeMutablePointer(image)) != 0
        }
    }

    func withoutAlpha() throws(VipsError) -> VipsPicture {
        guard vips_image_hasalpha(UnsafeMutablePointer(image)) != 0 else { return self }
        var out: UnsafeMutablePointer<VipsImage>?
        guard mp_vips_drop_alpha(UnsafeMutablePointer(image), &out) == 0, let out else { throw VipsError() }
        return VipsPicture(OpaquePointer(out))
    }

    /// Saved without any metadata, as JPEG or PNG.
    func save(to path: String, png: Bool) throws(VipsError) {
        let failed = png ? mp_vips_pngsave(UnsafeMutablePointer(image), path) : mp_vips_jpegsave(UnsafeMutablePointer(image), path, 85)
        if failed != 0 { throw VipsError() }
    }
}

/// What vips said went wrong, taken from its error buffer when the error happened.
struct VipsError: Error, CustomStringConvertible {
    let description: String
    init() { description = Vips.takeError() }
}
