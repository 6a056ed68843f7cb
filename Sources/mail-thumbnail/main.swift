#if canImport(Glibc)
import Glibc
#endif
import ArgumentParser
import JSONLines
import Pictures
import UnixFilter

struct MailThumbnailCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "mail-thumbnail",
        abstract: "Make metadata-free thumbnails and display copies of mail's pictures and PDFs.",
        discussion: """
            For each FILE, one JSON line on standard output, in order: {"file", "sha256", "kind": \
            "image"|"pdf"|"file", "width", "height", "thumbnail", "display", "error"}. Pictures \
            (JPEG, PNG, GIF, WebP, HEIF; the type read from the bytes, never the name) and a \
            PDF's first page are written into DIR as SHA256.t.jpg and SHA256.jpg (.png when the \
            picture has transparency), turned upright, without EXIF, GPS, XMP or ICC data. A file \
            it refuses (another type, SVG, a picture over --max-pixels, one the library cannot \
            read) is kind "file" with the reason in "error"; the run goes on. See mail-thumbnail(1).

            Example:
              mail-thumbnail --out site/pictures photo.jpg scan.pdf
            """,
        version: mailpipeVersion)

    @Option(name: .customLong("size"), help: ArgumentHelp("The longest side of a thumbnail, in pixels.", valueName: "px"))
    var size = 320

    @Option(name: .customLong("display"), help: ArgumentHelp("The longest side of the display copy, in pixels.", valueName: "px"))
    var display = 1600

    @Option(name: .customLong("max-pixels"), help: ArgumentHelp("Refuse a picture whose header declares more pixels than this (width × height of its first page).", valueName: "n"))
    var maxPixels = 100_000_000

    @Option(name: .customLong("max-memory"), help: ArgumentHelp("The address space this program may use, in MiB: past it an allocation fails, and the picture with it.", valueName: "mib"))
    var maxMemory = 2048

    @Option(name: .customLong("timeout"), help: ArgumentHelp("The most seconds one file may take: past it the file is refused.", valueName: "seconds"))
    var timeout = 30

    /// The child that decodes (see PictureWorker): mail-thumbnail starts it, never a person.
    @Flag(name: .customLong("worker"), help: .hidden)
    var worker = false

    @Option(name: .customLong("out"), help: ArgumentHelp("The folder the pictures are written into (it must exist).", valueName: "dir"))
    var out: String

    @Argument(help: ArgumentHelp("The files to read.", valueName: "file"))
    var files: [String] = []

    func validate() throws {
        guard (16...4096).contains(size) else { throw ValidationError("--size: from 16 to 4096 pixels") }
        guard (16...8192).contains(display) else { throw ValidationError("--display: from 16 to 8192 pixels") }
        guard maxPixels > 0 else { throw ValidationError("--max-pixels: more than 0") }
        guard (256...1 << 20).contains(maxMemory) else { throw ValidationError("--max-memory: from 256 to 1048576 MiB") }
        guard (1...86400).contains(timeout) else { throw ValidationError("--timeout: from 1 to 86400 seconds") }
        guard !files.isEmpty || worker else { throw ValidationError("no file given") }
    }

    func run() throws {
        let diagnostics = Diagnostics(program: "mail-thumbnail")
        let addressSpace = __rlimit_resource_t(RLIMIT_AS.rawValue)
        var limit = rlimit(rlim_cur: rlim_t(maxMemory) << 20, rlim_max: rlim_t(maxMemory) << 20)
        var current = rlimit()
        if getrlimit(addressSpace, &current) == 0 && current.rlim_max != rlim_t.max && current.rlim_max < limit.rlim_max {
            limit = current  // a harder limit set by whoever started this one stays
        }
        if setrlimit(addressSpace, &limit) != 0 {
            diagnostics.error("cannot limit its memory: \(String(cString: strerror(errno)))")
            Glibc.exit(ExitStatus.temporaryFailure.rawValue)
        }
        var folder = stat()
        guard stat(out, &folder) == 0, (folder.st_mode & S_IFMT) == S_IFDIR, access(out, W_OK) == 0 else {
            diagnostics.error("\(out): not a folder it can write in")
            Glibc.exit(ExitStatus.cannotCreate.rawValue)
        }
        if worker { serve(diagnostics) }
        let pictures = PictureWorker(executable: "/proc/self/exe", arguments: [
            "--worker", "--size", String(size), "--display", String(display), "--max-pixels", String(maxPixels),
            "--max-memory", String(maxMemory), "--out", out,
        ], timeoutSeconds: timeout)
        let output = UnixFilter.OutputStream(fd: 1, lineBuffered: true)
        for file in files {
            let line: [UInt8]
            switch pictures.make(file: file) {
            case .answered(let answer): line = answer
            case .workerFailed(let answer, let why):
                diagnostics.error(why, file: file)
                line = answer
            case .cannotRun(let why):
                diagnostics.error(why)
                Glibc.exit(ExitStatus.temporaryFailure.rawValue)
            }
            do { try output.writeLine(line) } catch {
                diagnostics.error("\(error)")
                Glibc.exit(ExitStatus.ioError.rawValue)
            }
        }
    }

    /// The worker: pictures for the names on standard input, one line each on standard output.
    private func serve(_ diagnostics: Diagnostics) -> Never {
        var options = PictureOptions()
        options.thumbnailSize = size
        options.displaySize = display
        options.maxPixels = maxPixels
        let maker: PictureMaker
        do { maker = try PictureMaker(options: options) } catch {
            diagnostics.error("\(error)")
            Glibc.exit(ExitStatus.temporaryFailure.rawValue)
        }
        Glibc.exit(PictureWorker.serve(maker: maker, folder: out) ? 0 : ExitStatus.ioError.rawValue)
    }
}

MailThumbnailCommand.main()
