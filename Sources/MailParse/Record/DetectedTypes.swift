import FileType

/// The type of an attachment's content as libmagic reads it (`detected_type`), from at most its
/// first `bytesLooked` bytes. The magic database is loaded at the first attachment: mail
/// without one never pays for it.
final class DetectedTypes {
    /// Enough for every format's signature (an ISO 9660 image's is at 32 KiB); libmagic's time
    /// on text grows with what it is given.
    static let bytesLooked = 256 << 10

    private var detector: FileTypeDetector?
    /// Why the magic database could not be loaded; then no type is detected.
    private(set) var loadError: String?

    var isLoaded: Bool { detector != nil }

    /// libmagic's MIME type of `data`: `application/octet-stream` when it cannot tell (and for
    /// no bytes); nil when the database could not be loaded.
    func type(of data: [UInt8]) -> String? {
        if detector == nil, loadError == nil {
            do {
                detector = try FileTypeDetector(bytesMax: Self.bytesLooked)
            } catch {
                loadError = "\(error)"
            }
        }
        return detector?.mimeType(of: data)
    }
}
