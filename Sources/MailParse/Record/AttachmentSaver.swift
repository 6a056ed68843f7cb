#if canImport(Glibc)
import Glibc
#endif
import UnixFilter

/// Where a converter puts each attachment's bytes: mime-parse's folder of named files
/// (`AttachmentSaver`), or the store's folder of files named by their SHA-256.
public protocol AttachmentKeeper: AnyObject {
    /// Keeps `data`, whose SHA-256 (lower-case hex) is `sha256`; returns the path of the file
    /// that holds it, or nil when it is listed but not kept (over a size cap).
    func keep(_ data: [UInt8], sha256: String, suggestedName: String?, contentType: String) throws -> String?
    /// The largest content kept (0: none), nil when every size is: a part that may be larger
    /// is decoded a piece at a time, never held whole, unless it turns out to fit.
    var largestKept: Int? { get }
}

/// Writes attachments into one folder under safe names: no path, no hidden or device names,
/// never over an existing file (`name (1).pdf`, `name (2).pdf`, ...).
public final class AttachmentSaver: AttachmentKeeper {
    public let directory: String

    public struct SaveError: Error { public var errno: Int32 }

    public init(directory: String) throws(SaveError) {
        if mkdir(directory, 0o755) != 0 && errno != EEXIST { throw SaveError(errno: errno) }
        self.directory = directory
    }

    public var largestKept: Int? { nil }

    public func keep(_ data: [UInt8], sha256: String, suggestedName: String?, contentType: String) throws -> String? {
        try save(data, suggestedName: suggestedName, contentType: contentType)
    }

    /// Saves `data`; returns the path written.
    public func save(_ data: [UInt8], suggestedName: String?, contentType: String) throws(SaveError) -> String {
        let name = Self.safeName(suggestedName, contentType: contentType)
        let (stem, ext) = Self.splitExtension(name)
        var attempt = 0
        while true {
            let candidate = attempt == 0 ? name : "\(stem) (\(attempt))\(ext)"
            let path = directory + "/" + candidate
            let fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, 0o644)
            if fd < 0 {
                if errno == EEXIST {
                    attempt += 1
                    continue
                }
                throw SaveError(errno: errno)
            }
            defer { close(fd) }
            if !writeAll(fd: fd, data) { throw SaveError(errno: errno) }
            return path
        }
    }

    /// The last path component, without control characters (C0, DEL, C1), separators, leading
    /// or trailing dots and spaces, or the bidirectional controls that make `exe.jpg` of
    /// `\u{202E}gpj.exe`; `attachment` when nothing usable is left. At most 200 bytes,
    /// extension kept. So a name can never leave the folder, nor hide what it is.
    public static func safeName(_ suggested: String?, contentType: String) -> String {
        var name = suggested ?? ""
        if let slash = name.lastIndex(where: { $0 == "/" || $0 == "\\" }) { name = String(name[name.index(after: slash)...]) }
        var kept = String.UnicodeScalarView()
        for scalar in name.unicodeScalars where !isUnsafe(scalar) { kept.append(scalar) }
        name = String(kept).trimmingCharacters(from: " .")
        if name.isEmpty { name = "attachment" + (defaultExtension[contentType] ?? "") }
        if name.utf8.count > maxNameBytes {
            var (stem, ext) = splitExtension(name)
            if ext.utf8.count > 16 { (stem, ext) = (name, "") }
            // cut at a scalar's boundary, in one pass
            var budget = maxNameBytes - ext.utf8.count
            var cut = String.UnicodeScalarView()
            for scalar in stem.unicodeScalars {
                let width = String(scalar).utf8.count
                if width > budget { break }
                budget -= width
                cut.append(scalar)
            }
            name = String(cut) + ext
        }
        return name
    }

    static let maxNameBytes = 200

    private static func isUnsafe(_ s: Unicode.Scalar) -> Bool {
        switch s.value {
        case 0..<0x20, 0x7F...0x9F: true  // control characters, NUL among them
        case 0x3A: true  // ':', a separator to some systems
        case 0x200E, 0x200F, 0x202A...0x202E, 0x2066...0x2069, 0x2028, 0x2029: true
        default: false
        }
    }

    static func splitExtension(_ name: String) -> (String, String) {
        guard let dot = name.lastIndex(of: "."), dot != name.startIndex, name.distance(from: dot, to: name.endIndex) <= 10 else {
            return (name, "")
        }
        return (String(name[..<dot]), String(name[dot...]))
    }

    static let defaultExtension: [String: String] = [
        "application/pdf": ".pdf", "image/png": ".png", "image/jpeg": ".jpg", "image/gif": ".gif",
        "text/plain": ".txt", "text/html": ".html", "text/calendar": ".ics", "message/rfc822": ".eml",
    ]
}
