import Glibc
import Testing
import FileType

/// A fresh folder under /tmp, removed with what is in it by `clean`.
private func temporaryFolder() -> String {
    var template = Array("/tmp/filetype-test-XXXXXX".utf8CString)
    return template.withUnsafeMutableBufferPointer { String(cString: mkdtemp($0.baseAddress!)) }
}

private func clean(_ folder: String, _ names: [String]) {
    for name in names { unlink(folder + "/" + name) }
    rmdir(folder)
}

private func write(_ bytes: [UInt8], to path: String) {
    let fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
    precondition(fd >= 0, "cannot create \(path)")
    _ = bytes.withUnsafeBytes { Glibc.write(fd, $0.baseAddress, $0.count) }
    close(fd)
}

private func readAll(_ path: String) -> [UInt8] {
    let fd = open(path, O_RDONLY)
    precondition(fd >= 0, "cannot read \(path)")
    defer { close(fd) }
    var out: [UInt8] = []
    var buffer = [UInt8](repeating: 0, count: 65536)
    while case let n = read(fd, &buffer, buffer.count), n > 0 { out += buffer[0..<n] }
    return out
}

// The first bytes of each kind, as their writers start them: all libmagic needs.
private let jpeg: [UInt8] = [0xFF, 0xD8, 0xFF, 0xE0, 0x00, 0x10] + Array("JFIF".utf8) + [0x00, 0x01, 0x01, 0x00, 0x00, 0x01, 0x00, 0x01, 0x00, 0x00]
private let png: [UInt8] = [0x89] + Array("PNG\r\n\u{1A}\n".utf8) + [0, 0, 0, 13] + Array("IHDR".utf8)
    + [0, 0, 0, 1, 0, 0, 0, 1, 8, 6, 0, 0, 0, 0x1F, 0x15, 0xC4, 0x89]
private let gif: [UInt8] = Array("GIF89a".utf8) + [1, 0, 1, 0, 0x80, 0, 0]
private let pdf: [UInt8] = Array("%PDF-1.4\n%".utf8) + [0xE2, 0xE3, 0xCF, 0xD3] + Array("\n1 0 obj\n<< /Type /Catalog >>\nendobj\n".utf8)
/// An empty zip: the end-of-central-directory record alone.
private let zip: [UInt8] = [0x50, 0x4B, 0x05, 0x06] + [UInt8](repeating: 0, count: 18)
private let ascii = Array("Dear Ana,\nthe minutes are attached.\n".utf8)
private let utf8 = Array("Grüße aus Köln, 台北見 🙂\n".utf8)

@Test func headersAreReadAsTheirTypes() throws {
    let detector = try FileTypeDetector()
    #expect(detector.mimeType(of: jpeg) == "image/jpeg")
    #expect(detector.mimeType(of: png) == "image/png")
    #expect(detector.mimeType(of: gif) == "image/gif")
    #expect(detector.mimeType(of: pdf) == "application/pdf")
    #expect(detector.mimeType(of: zip) == "application/zip")
    #expect(detector.mimeType(of: ascii) == "text/plain")
    #expect(detector.mimeType(of: utf8) == "text/plain")
}

@Test func unknownAndEmptyAreOctetStream() throws {
    let detector = try FileTypeDetector()
    #expect(detector.mimeType(of: []) == "application/octet-stream")
    #expect(detector.mimeType(of: [0x00, 0x01, 0x02, 0x03, 0xFE, 0xFF, 0x7F, 0x10]) == "application/octet-stream")
}

@Test func charsetOfText() throws {
    let detector = try FileTypeDetector()
    #expect(detector.charset(of: ascii) == "us-ascii")
    #expect(detector.charset(of: utf8) == "utf-8")
    #expect(detector.charset(of: Array("caf\u{E9} cr\u{E8}me br\u{FB}l\u{E9}e\n".unicodeScalars.map { UInt8($0.value) })) == "iso-8859-1")
    #expect(detector.charset(of: png) == "binary")
    #expect(detector.charset(of: []) == "binary")
}

/// Each kind written to a file whose name says something else (or nothing): the content
/// decides.
@Test func filesAreReadByContentNotName() throws {
    let detector = try FileTypeDetector()
    let folder = temporaryFolder()
    let files: [(name: String, bytes: [UInt8], type: String)] = [
        ("photo.pdf", jpeg, "image/jpeg"), ("scan", png, "image/png"), ("anim.txt", gif, "image/gif"),
        ("paper.jpg", pdf, "application/pdf"), ("archive.doc", zip, "application/zip"),
        ("notes.png", ascii, "text/plain"), ("grüße.bin", utf8, "text/plain"), ("empty.jpg", [], "application/octet-stream"),
    ]
    defer { clean(folder, files.map(\.name) + ["true.jpg"]) }
    for f in files {
        write(f.bytes, to: folder + "/" + f.name)
        #expect(try detector.mimeType(ofFileAt: folder + "/" + f.name) == f.type, "\(f.name)")
    }
    // a program named as a photo is a program (an executable; a position-independent one on Debian)
    write(readAll("/bin/true"), to: folder + "/true.jpg")
    let program = try detector.mimeType(ofFileAt: folder + "/true.jpg")
    #expect(["application/x-executable", "application/x-pie-executable", "application/x-sharedlib"].contains(program), "\(program)")
}

/// A file longer than libmagic's window (7 MiB in file 5.44) is typed by its start.
@Test func bigFileIsTypedByItsStart() throws {
    let detector = try FileTypeDetector()
    let folder = temporaryFolder()
    defer { clean(folder, ["big.bin"]) }
    write(pdf + [UInt8](repeating: 0x20, count: 9 << 20), to: folder + "/big.bin")
    #expect(try detector.mimeType(ofFileAt: folder + "/big.bin") == "application/pdf")
}

@Test func unreadablePathsThrowNamingThePath() throws {
    let detector = try FileTypeDetector()
    let missing = "/tmp/filetype-test-no-such-folder/nothing.jpg"
    do {
        _ = try detector.mimeType(ofFileAt: missing)
        Issue.record("a missing file was typed")
    } catch {
        #expect("\(error)".hasPrefix(missing + ": "), "\(error)")
        #expect("\(error)".contains("No such file"), "\(error)")
    }
    let folder = temporaryFolder()
    defer { clean(folder, []) }
    #expect(throws: FileTypeError.self) { try detector.mimeType(ofFileAt: folder) }
}

/// Two detectors answer independently (each owns its libmagic handle), and a detector asked
/// for charsets in between still answers types.
@Test func detectorsAreIndependent() throws {
    let a = try FileTypeDetector(), b = try FileTypeDetector()
    #expect(a.charset(of: utf8) == "utf-8")
    #expect(b.mimeType(of: jpeg) == "image/jpeg")
    #expect(a.mimeType(of: pdf) == "application/pdf")
}

/// A detector given a lower bytesMax hands libmagic no more than that: an ISO 9660 image's
/// signature at byte 32,769 is seen by the default detector, not by one that looks at 32 KiB.
@Test func bytesMaxBoundsWhatLibmagicSees() throws {
    var image = [UInt8](repeating: 0, count: 40_000)
    image.replaceSubrange(32_769..<32_774, with: Array("CD001".utf8))
    let whole = try FileTypeDetector(), start = try FileTypeDetector(bytesMax: 32 << 10)
    #expect(start.bytesMax == 32 << 10)
    #expect(whole.mimeType(of: image) == "application/x-iso9660-image")
    #expect(start.mimeType(of: image) == "application/octet-stream")
}
