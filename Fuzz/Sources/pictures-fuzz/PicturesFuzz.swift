#if canImport(Glibc)
import Glibc
#endif
import CFuzzer
import Pictures

/// mail-thumbnail's reader: the bytes are a file, read as mail-thumbnail's worker reads it
/// (PictureMaker.make: libmagic's type, the one loader it names, the header's pixel count, the
/// decoding, the saves). Nothing may crash or hang; a picture must come out as files that are
/// JPEG or PNG and hold no EXIF, and a refusal must say why and write nothing.
/// The pixel limit is 4 megapixels here, so that each input stays well under libFuzzer's
/// -timeout.

let folder: String = {
    var template = Array("/tmp/pictures-fuzz-XXXXXX".utf8CString)
    return template.withUnsafeMutableBufferPointer { String(cString: mkdtemp($0.baseAddress!)) }
}()
nonisolated(unsafe) let maker: PictureMaker = {
    var options = PictureOptions()
    options.maxPixels = 4_000_000
    options.thumbnailSize = 64
    options.displaySize = 256
    do { return try PictureMaker(options: options) } catch { fail("cannot start: \(error)") }
}()

func fail(_ message: String) -> Never {
    let text = Array("pictures-fuzz: \(message)\n".utf8)
    _ = text.withUnsafeBytes { write(2, $0.baseAddress, $0.count) }
    abort()
}

func readAll(_ path: String) -> [UInt8]? {
    let fd = open(path, O_RDONLY)
    guard fd >= 0 else { return nil }
    defer { close(fd) }
    var out: [UInt8] = []
    var buffer = [UInt8](repeating: 0, count: 65536)
    while case let n = read(fd, &buffer, buffer.count), n > 0 { out += buffer[0..<n] }
    return out
}

func contains(_ bytes: [UInt8], _ needle: String) -> Bool {
    let n = Array(needle.utf8)
    guard bytes.count >= n.count else { return false }
    return (0...(bytes.count - n.count)).contains { bytes[$0..<$0 + n.count].elementsEqual(n) }
}

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzOnce(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    let input = folder + "/input"
    let fd = open(input, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
    guard fd >= 0 else { fail("cannot write \(input)") }
    if size > 0 { _ = write(fd, data, size) }
    close(fd)
    let picture = maker.make(file: input, name: "out", into: folder)
    let made = [picture.thumbnail, picture.display].compactMap { $0 }
    defer { for path in made { unlink(path) } }
    switch picture.kind {
    case .file:
        guard picture.error != nil, made.isEmpty, picture.width == nil else { fail("a refusal without its reason, or with files: \(picture)") }
        for suffix in [".jpg", ".png", ".t.jpg", ".t.png"] where access(folder + "/out" + suffix, F_OK) == 0 {
            fail("a refusal left out\(suffix)")
        }
    case .image, .pdf:
        guard picture.error == nil, made.count == 2, let w = picture.width, let h = picture.height, w > 0, h > 0, w * h <= 4_000_000 else {
            fail("a picture without its files or size: \(picture)")
        }
        for path in made {
            guard let bytes = readAll(path) else { fail("\(path) was not written") }
            guard bytes.starts(with: [0xFF, 0xD8, 0xFF]) || bytes.starts(with: [0x89, 0x50, 0x4E, 0x47]) else { fail("\(path) is not JPEG or PNG") }
            guard !contains(bytes, "Exif"), !contains(bytes, "http://ns.adobe.com/xap") else { fail("\(path) holds metadata") }
        }
    }
    return 0
}

/// SwiftPM links an executable's main under this name, and libFuzzer brings a main of its own
/// (the link allows both): either way the command line goes to libFuzzer's driver.
@_cdecl("pictures_fuzz_main")
func fuzzMain(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> CInt {
    var argc = argc
    var argv = argv
    return LLVMFuzzerRunDriver(&argc, &argv) { data, size in fuzzOnce(data, size) }
}
