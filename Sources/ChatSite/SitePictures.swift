#if canImport(Glibc)
import Glibc
#endif
import Hashing
import JSONLines
import UnixFilter
import UTF8Text

/// The pictures and files of a site: the attachments whose bytes were kept (`saved_as`),
/// offered from copies in the site, never from where they were kept. mail-thumbnail makes a
/// thumbnail and a metadata-free display copy of each image, and a PDF's first page, in `a/`,
/// named by the file's SHA-256; the other files are in `f/` (a hard link to the kept file, else
/// a copy) under a name the program chose: the hash and an extension that never runs in a
/// browser. `.chat-render-pictures` remembers what mail-thumbnail said of each file (its
/// refusals too, so that a bad file is not tried at every delivery) and each kept file's hash
/// by its place, size and time, so that a render of what is made already reads no file and
/// starts no process.
final class SitePictures {
    /// What mail-thumbnail said of a file: kind "image", "pdf" or "file" (then `error` says why).
    struct Made: Equatable {
        var kind: String
        var width: Int?
        var height: Int?
        var thumbnail: String?
        var display: String?
        var error: String?
    }

    /// What a bubble shows of an attachment; paths are from the site's folder.
    enum Shown: Equatable {
        case picture(display: String, thumbnail: String, width: Int, height: Int)
        /// `href` nil: the bytes were not kept. `download`: the name a download is saved under,
        /// nil for a type a browser may open.
        case file(href: String?, download: String?, thumbnail: String?, width: Int, height: Int)
    }

    struct FileKey: Hashable {
        var path: String
        var device: UInt64, inode: UInt64, size: Int, modified: Int
    }

    let root: String
    private let findProgram: () -> String?
    private lazy var program: String? = findProgram()
    private var loaded = false
    private var made: [String: Made] = [:]
    private var hashes: [FileKey: String] = [:]
    private var changed = false
    /// The hashes of the files this render showed: after a whole render, the others go.
    private(set) var used = Set<String>()
    /// Said to the user (mail-thumbnail failing, a copy that could not be made); the delivery
    /// or the render goes on.
    var report: (String) -> Void = { _ in }
    /// Pictures after the pages (a delivery's render): a picture not made yet is not made, its
    /// kept file not even read; the bubble shows it as a card without a link until a render
    /// after this one makes it, and `leftWaiting` says that one is needed.
    var later = false
    var leftWaiting = false

    static let indexName = ".chat-render-pictures"
    static let pictureFolder = "a", fileFolder = "f"
    /// The longest side of a thumbnail, as mail-thumbnail makes it by default.
    static let thumbnailSize = 320
    /// Files given to one mail-thumbnail (its command line stays far under ARG_MAX).
    static let batchSize = 200
    /// mail-thumbnail's address space (a hostile image that would need more ends it, not the
    /// render), and the processor time it may take for each file.
    static let memoryLimit = 2 << 30
    static let secondsPerFile = 20

    /// `program`: mail-thumbnail's path, looked for once it is needed (nil: none, every
    /// attachment is a file).
    init(root: String, program: @escaping () -> String? = SitePictures.findThumbnailer) {
        self.root = root
        findProgram = program
    }

    // MARK: what is shown

    /// The type an attachment is taken for: libmagic's when mime-parse read the bytes, else the declared one.
    static func type(_ a: JSONValue) -> String {
        (a["detected_type"]?.stringValue ?? a["content_type"]?.stringValue ?? "application/octet-stream").lowercased()
    }

    /// Whether mail-thumbnail may make something of it (it alone says whether it is an image).
    static func mayBePicture(_ type: String) -> Bool {
        type == "application/pdf" || (type.hasPrefix("image/") && !type.hasPrefix("image/svg"))
    }

    /// Whether some attachment of these may be a picture that is not made yet (and there is a
    /// mail-thumbnail to make it).
    func needsMaking(_ attachments: [JSONValue]) -> Bool {
        attachments.contains { a in
            guard let saved = a["saved_as"]?.stringValue, Self.mayBePicture(Self.type(a)), let sha = identify(saved) else { return false }
            return !isMade(sha)
        } && program != nil
    }

    /// Makes the pictures of these attachments that are not made yet: one mail-thumbnail for
    /// all of them (in batches of `batchSize`).
    func make(_ attachments: [JSONValue]) {
        var pending: [(path: String, sha: String)] = []
        var seen = Set<String>()
        for a in attachments {
            guard let saved = a["saved_as"]?.stringValue, Self.mayBePicture(Self.type(a)), let sha = identify(saved),
                  !isMade(sha), seen.insert(sha).inserted else { continue }
            pending.append((saved, sha))
        }
        guard !pending.isEmpty, let program else { return }
        var rest = pending[...]
        while !rest.isEmpty {
            let batch = Array(rest.prefix(Self.batchSize))
            guard let answered = run(program, batch) else { return }
            rest = rest.dropFirst(answered)
        }
    }

    /// What a bubble shows of attachment `a`.
    func show(_ a: JSONValue) -> Shown {
        let type = Self.type(a)
        if later, let saved = a["saved_as"]?.stringValue, Self.mayBePicture(type), program != nil,
           !(knownHash(saved).map(isMade) ?? false) {
            leftWaiting = true
            return .file(href: nil, download: nil, thumbnail: nil, width: 0, height: 0)
        }
        guard let saved = a["saved_as"]?.stringValue, let sha = identify(saved) else {
            return .file(href: nil, download: nil, thumbnail: nil, width: 0, height: 0)
        }
        let picture = Self.mayBePicture(type) && isMade(sha) ? made[sha] : nil
        if let p = picture, p.kind == "image", let thumbnail = p.thumbnail, let display = p.display {
            used.insert(sha)
            let (w, h) = Self.fitted(p.width ?? Self.thumbnailSize, p.height ?? Self.thumbnailSize)
            return .picture(display: Self.pictureFolder + "/" + display, thumbnail: Self.pictureFolder + "/" + thumbnail, width: w, height: h)
        }
        let name = a["filename"]?.stringValue ?? ""
        guard let copy = fileCopy(saved, sha: sha, type: type, name: name) else {
            return .file(href: nil, download: nil, thumbnail: nil, width: 0, height: 0)
        }
        used.insert(sha)
        if let p = picture, p.kind == "pdf", let thumbnail = p.thumbnail {
            let (w, h) = Self.fitted(p.width ?? Self.thumbnailSize, p.height ?? Self.thumbnailSize, box: 96)
            return .file(href: copy.name, download: copy.download, thumbnail: Self.pictureFolder + "/" + thumbnail, width: w, height: h)
        }
        return .file(href: copy.name, download: copy.download, thumbnail: nil, width: 0, height: 0)
    }

    /// An image's display copy as a data: URL (its thumbnail when the copy is over
    /// `maxInlineBytes`), for an HTML message's frame; nil when it is not an image.
    func dataURL(_ a: JSONValue) -> String? {
        guard case let .picture(display, thumbnail, _, _) = show(a) else { return nil }
        var st = stat()
        let name = stat(root + "/" + display, &st) == 0 && Int(st.st_size) <= Self.maxInlineBytes ? display : thumbnail
        guard let bytes = SiteWriter.read(root + "/" + name) else { return nil }
        let type = name.hasSuffix(".png") ? "image/png" : name.hasSuffix(".webp") ? "image/webp" : "image/jpeg"
        return "data:" + type + ";base64," + Base64.encode(bytes)
    }

    static let maxInlineBytes = 2 << 20

    /// A picture of `width` × `height` fitted in a square of `box` pixels.
    static func fitted(_ width: Int, _ height: Int, box: Int = thumbnailSize) -> (Int, Int) {
        let longest = max(width, height, 1)
        guard longest > box else { return (max(width, 1), max(height, 1)) }
        return (max(1, (width * box + longest / 2) / longest), max(1, (height * box + longest / 2) / longest))
    }

    // MARK: files

    /// The extensions of the types a site offers by their own name: none of them runs in a
    /// browser. Any other text (HTML, SVG, XML, JavaScript) is offered as .txt, anything else as .bin.
    static let extensions: [String: String] = [
        "application/pdf": "pdf", "text/plain": "txt", "text/csv": "csv", "text/calendar": "ics", "application/ics": "ics",
        "application/json": "json", "message/rfc822": "eml",
        "application/zip": "zip", "application/gzip": "gz", "application/x-7z-compressed": "7z", "application/x-tar": "tar",
        "application/msword": "doc", "application/vnd.ms-excel": "xls", "application/vnd.ms-powerpoint": "ppt",
        "application/vnd.openxmlformats-officedocument.wordprocessingml.document": "docx",
        "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet": "xlsx",
        "application/vnd.openxmlformats-officedocument.presentationml.presentation": "pptx",
        "application/vnd.oasis.opendocument.text": "odt", "application/vnd.oasis.opendocument.spreadsheet": "ods",
        "application/vnd.oasis.opendocument.presentation": "odp",
        "image/jpeg": "jpg", "image/png": "png", "image/gif": "gif", "image/webp": "webp", "image/heic": "heic", "image/heif": "heif",
        "image/tiff": "tif", "image/bmp": "bmp", "audio/mpeg": "mp3", "audio/ogg": "ogg", "audio/mp4": "m4a", "audio/x-wav": "wav",
        "video/mp4": "mp4", "video/quicktime": "mov", "video/webm": "webm",
    ]
    /// The types a browser may open in place; every other file is a download.
    static let opensInBrowser: Set<String> = ["application/pdf", "text/plain"]

    /// A file's name in the site (in `f/`), and the name a download is saved under (nil when
    /// the browser may open it): the file's own name, with the site's extension added when it
    /// has another (`page.html` becomes `page.html.txt`).
    static func siteName(sha: String, type: String, name: String) -> (name: String, download: String?) {
        let text = type.hasPrefix("text/") || type.hasSuffix("+xml") || type.hasSuffix("/xml") || type.hasSuffix("javascript")
            || type.hasSuffix("ecmascript")
        let ext = extensions[type] ?? (text ? "txt" : "bin")
        let file = fileFolder + "/" + sha + "." + ext
        if opensInBrowser.contains(type) { return (file, nil) }
        // no folder, control character or direction override in a name a browser saves a file under
        var clean = ""
        clean.unicodeScalars.append(contentsOf: name.unicodeScalars.filter {
            $0.value >= 0x20 && $0.value != 0x7F && $0 != "/" && $0 != "\\" && !(0x80...0x9F).contains($0.value)
                && !(0x202A...0x202E).contains($0.value) && !(0x2066...0x2069).contains($0.value)
        })
        while clean.hasPrefix(".") { clean.removeFirst() }
        if clean.isEmpty { clean = "attachment" }
        let given = clean.split(separator: ".", omittingEmptySubsequences: false)
        if given.count < 2 || given.last!.lowercased() != ext { clean += "." + ext }
        return (file, clean)
    }

    /// The site's copy of the kept file at `saved`: a hard link when it can be, else a copy.
    private func fileCopy(_ saved: String, sha: String, type: String, name: String) -> (name: String, download: String?)? {
        let site = Self.siteName(sha: sha, type: type, name: name)
        let path = root + "/" + site.name
        if access(path, F_OK) == 0 { return site }
        guard folder(Self.fileFolder) else { return nil }
        // a link to the file a symbolic link names, never to the symbolic link
        if linkat(AT_FDCWD, saved, AT_FDCWD, path, AT_SYMLINK_FOLLOW) == 0 || errno == EEXIST { return site }
        guard Self.copy(saved, to: path, scratch: root + "/" + Self.fileFolder + "/.copy-\(getpid())") else {
            report("\(saved): cannot copy it into the site: \(String(cString: strerror(errno)))")
            return nil
        }
        return site
    }

    private func folder(_ name: String) -> Bool {
        do { try PrivateFolder.make(root + "/" + name, mode: 0o755) } catch {
            report(error.description)
            return false
        }
        return true
    }

    static func copy(_ from: String, to path: String, scratch: String) -> Bool {
        let input = open(from, O_RDONLY | O_CLOEXEC)
        guard input >= 0 else { return false }
        defer { close(input) }
        unlink(scratch)
        let output = open(scratch, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0o644)
        guard output >= 0 else { return false }
        var buffer = [UInt8](repeating: 0, count: 1 << 20)
        var ok = true
        while ok {
            let n = buffer.withUnsafeMutableBytes { read(input, $0.baseAddress!, $0.count) }
            if n < 0 && errno == EINTR { continue }
            if n <= 0 { ok = n == 0; break }
            ok = writeAll(fd: output, Array(buffer[0..<n]))
            if !ok { break }
        }
        if close(output) != 0 { ok = false }
        guard ok, rename(scratch, path) == 0 else {
            unlink(scratch)
            return false
        }
        return true
    }

    // MARK: hashes

    /// The SHA-256 of the regular file at `path`, read once for each place, size and time.
    func identify(_ path: String) -> String? {
        guard let key = fileKey(path) else { return nil }
        if let sha = hashes[key] { return sha }
        guard let sha = Self.hash(path) else { return nil }
        hashes[key] = sha
        changed = true
        return sha
    }

    /// The SHA-256 of the file at `path` when it was read before (none is read now).
    private func knownHash(_ path: String) -> String? {
        fileKey(path).flatMap { hashes[$0] }
    }

    private func fileKey(_ path: String) -> FileKey? {
        load()
        var st = stat()
        guard stat(path, &st) == 0, (st.st_mode & S_IFMT) == S_IFREG else { return nil }
        return FileKey(path: path, device: UInt64(st.st_dev), inode: UInt64(st.st_ino), size: Int(st.st_size),
                       modified: Int(st.st_mtim.tv_sec) * 1_000_000_000 + Int(st.st_mtim.tv_nsec))
    }

    static func hash(_ path: String) -> String? {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { return nil }
        defer { close(fd) }
        let hasher = SHA256()
        var buffer = [UInt8](repeating: 0, count: 1 << 20)
        while true {
            let n = buffer.withUnsafeMutableBytes { read(fd, $0.baseAddress!, $0.count) }
            if n < 0 && errno == EINTR { continue }
            if n < 0 { return nil }
            if n == 0 { break }
            buffer.withUnsafeBytes { hasher.update(UnsafeRawBufferPointer(rebasing: $0[0..<n])) }
        }
        return hexString(hasher.finalize())
    }

    /// Whether mail-thumbnail answered for this file and what it made is still there.
    private func isMade(_ sha: String) -> Bool {
        load()
        guard let m = made[sha] else { return false }
        for name in [m.thumbnail, m.display].compactMap({ $0 }) where access(root + "/" + Self.pictureFolder + "/" + name, F_OK) != 0 {
            return false
        }
        return true
    }

    // MARK: mail-thumbnail

    /// mail-thumbnail: $MAILPIPE_THUMBNAIL (empty: none), else beside this program, else on PATH.
    static func findThumbnailer() -> String? {
        if let given = getenv("MAILPIPE_THUMBNAIL") {
            let path = String(cString: given)
            return path.isEmpty ? nil : path
        }
        var buffer = [CChar](repeating: 0, count: 4096)
        let n = readlink("/proc/self/exe", &buffer, buffer.count - 1)
        if n > 0 {
            let exe = String(decoding: buffer[0..<n].map { UInt8(bitPattern: $0) }, as: UTF8.self)
            if let slash = exe.lastIndex(of: "/") {
                let beside = exe[..<slash] + "/mail-thumbnail"
                if access(String(beside), X_OK) == 0 { return String(beside) }
            }
        }
        let path = getenv("PATH").map { String(cString: $0) } ?? "/usr/local/bin:/usr/bin:/bin"
        for dir in path.split(separator: ":") where access(dir + "/mail-thumbnail", X_OK) == 0 {
            return dir + "/mail-thumbnail"
        }
        return nil
    }

    /// Runs mail-thumbnail on `batch` under its limits and keeps what it says. Returns how many
    /// files of the batch are done (answered, or refused as the one it ended on), nil when it
    /// could not run at all.
    private func run(_ program: String, _ batch: [(path: String, sha: String)]) -> Int? {
        guard folder(Self.pictureFolder) else { return nil }
        let out = root + "/" + Self.pictureFolder
        // the limits are set in a shell between this process and mail-thumbnail: posix_spawn has none
        let limits = "ulimit -v \"$1\" && ulimit -t \"$2\" && shift 2 && exec \"$@\""
        let files = batch.map { $0.path.hasPrefix("/") ? $0.path : "./" + $0.path }
        let arguments = ["/bin/sh", "-c", limits, "mail-thumbnail", String(Self.memoryLimit / 1024), String(10 + Self.secondsPerFile * batch.count),
                         program, "--out", out] + files
        let (result, output) = Command.output(arguments)
        var answered = 0
        for line in output.split(separator: UInt8(ascii: "\n")) where answered < batch.count {
            guard let v = try? JSONValue.parse(Array(line)), v["file"]?.stringValue == files[answered] else { break }
            let sha = batch[answered].sha
            var m = Made(kind: v["kind"]?.stringValue ?? "file", width: v["width"]?.intValue, height: v["height"]?.intValue,
                         thumbnail: Self.madeName(v["thumbnail"]?.stringValue, sha: sha, in: out),
                         display: Self.madeName(v["display"]?.stringValue, sha: sha, in: out), error: v["error"]?.stringValue)
            if v["sha256"]?.stringValue != sha {
                m = Made(kind: "file", error: "the file changed while it was read")
            } else if m.kind == "image" && (m.thumbnail == nil || m.display == nil) {
                m = Made(kind: "file", error: m.error ?? "mail-thumbnail made no picture of it")
            } else if m.kind != "image" && m.kind != "pdf" {
                m = Made(kind: "file", error: m.error ?? "not an image")
            }
            made[sha] = m
            changed = true
            answered += 1
        }
        if answered == batch.count { return answered }
        if result.status == 127 || (answered == 0 && result.status != 0 && result.status < 128) {
            let why = result.standardError.split(separator: "\n").last.map(String.init) ?? "exit status \(result.status)"
            report("mail-thumbnail could not run (\(why)): the attachments are files")
            return nil
        }
        // it ended on this file (killed at its limits, or crashed): a file, not tried again
        let what = result.status >= 128 ? "signal \(result.status - 128)" : "exit status \(result.status)"
        made[batch[answered].sha] = Made(kind: "file", error: "mail-thumbnail ended on it (\(what))")
        changed = true
        report("\(batch[answered].path): mail-thumbnail ended on it (\(what)); it is shown as a file")
        return answered + 1
    }

    /// The name in `out` of a file mail-thumbnail made for `sha`: only a name it may have chosen.
    static func madeName(_ path: String?, sha: String, in out: String) -> String? {
        guard let path, let slash = path.lastIndex(of: "/") else { return nil }
        let name = String(path[path.index(after: slash)...])
        let folder = path[..<slash]
        guard folder == out || folder.hasSuffix("/" + pictureFolder) || folder == pictureFolder else { return nil }
        return safeName(name, sha: sha)
    }

    /// A picture's name: the file's hash, lower-case letters, digits and dots, a picture's extension.
    static func safeName(_ name: String?, sha: String) -> String? {
        guard let name, name.hasPrefix(sha), name.utf8.allSatisfy({ ($0 >= 0x30 && $0 <= 0x39) || ($0 >= 0x61 && $0 <= 0x7A) || $0 == 0x2E }),
              name.hasSuffix(".jpg") || name.hasSuffix(".png") || name.hasSuffix(".webp") else { return nil }
        return name
    }

    // MARK: the index

    private func load() {
        guard !loaded else { return }
        loaded = true
        guard let bytes = SiteWriter.read(root + "/" + Self.indexName) else { return }
        for line in bytes.split(separator: UInt8(ascii: "\n")) {
            guard let v = try? JSONValue.parse(Array(line)), let sha = v["sha256"]?.stringValue, sha.utf8.count == 64 else { continue }
            if let path = v["path"]?.stringValue {
                guard let device = v["device"]?.intValue, let inode = v["inode"]?.intValue, let size = v["size"]?.intValue,
                      let modified = v["modified"]?.intValue else { continue }
                hashes[FileKey(path: path, device: UInt64(truncatingIfNeeded: device), inode: UInt64(truncatingIfNeeded: inode),
                               size: size, modified: modified)] = sha
            } else if let kind = v["kind"]?.stringValue {
                made[sha] = Made(kind: kind, width: v["width"]?.intValue, height: v["height"]?.intValue,
                                 thumbnail: Self.safeName(v["thumbnail"]?.stringValue, sha: sha),
                                 display: Self.safeName(v["display"]?.stringValue, sha: sha), error: v["error"]?.stringValue)
            }
        }
    }

    /// Keeps the index; after a whole render (`sweep`), the pictures and files no page shows
    /// any more are removed, and what the index knew of them.
    func finish(sweep: Bool) {
        if sweep {
            load()
            for folder in [Self.pictureFolder, Self.fileFolder] { removeUnused(in: folder) }
            let before = (made.count, hashes.count)
            made = made.filter { used.contains($0.key) }
            hashes = hashes.filter { used.contains($0.value) }
            if before != (made.count, hashes.count) { changed = true }
        }
        guard changed else { return }
        var out: [UInt8] = []
        func number(_ name: String, _ n: Int?) {
            out += Array(",\"\(name)\":".utf8) + Array((n.map(String.init) ?? "null").utf8)
        }
        func string(_ name: String, _ s: String?) {
            out += Array(",\"\(name)\":".utf8)
            if let s { JSONWriter.appendString(s, to: &out) } else { out += Array("null".utf8) }
        }
        for (sha, m) in made.sorted(by: { $0.key < $1.key }) {
            out += Array("{\"sha256\":\"\(sha)\"".utf8)
            string("kind", m.kind)
            number("width", m.width)
            number("height", m.height)
            string("thumbnail", m.thumbnail)
            string("display", m.display)
            string("error", m.error)
            out += Array("}\n".utf8)
        }
        for (key, sha) in hashes.sorted(by: { $0.key.path < $1.key.path }) {
            out += Array("{\"sha256\":\"\(sha)\"".utf8)
            string("path", key.path)
            number("device", Int(truncatingIfNeeded: key.device))
            number("inode", Int(truncatingIfNeeded: key.inode))
            number("size", key.size)
            number("modified", key.modified)
            out += Array("}\n".utf8)
        }
        let path = root + "/" + Self.indexName, scratch = path + ".tmp-\(getpid())"
        unlink(scratch)
        let fd = open(scratch, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0o644)
        let written = fd >= 0 && writeAll(fd: fd, out)
        if fd >= 0 { close(fd) }
        guard written, rename(scratch, path) == 0 else {
            report("\(path): \(String(cString: strerror(errno)))")
            unlink(scratch)
            return
        }
        changed = false
    }

    private func removeUnused(in folder: String) {
        let path = root + "/" + folder
        guard let dir = opendir(path) else { return }
        var gone: [String] = []
        while let entry = readdir(dir) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { String(decoding: $0.prefix(while: { $0 != 0 }), as: UTF8.self) }
            guard !name.hasPrefix("."), name.utf8.count >= 64 else { continue }
            if !used.contains(String(name.prefix(64))) { gone.append(path + "/" + name) }
        }
        closedir(dir)
        for file in gone { unlink(file) }
    }
}
