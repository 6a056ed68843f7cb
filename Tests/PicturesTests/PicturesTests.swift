import Glibc
import Testing
@testable import Pictures

// The pictures are written here byte by byte (PNG with stored zlib blocks), so that what is
// tested never comes from the library under test.

private func crc32(_ bytes: [UInt8]) -> UInt32 {
    var crc: UInt32 = 0xFFFF_FFFF
    for byte in bytes {
        crc ^= UInt32(byte)
        for _ in 0..<8 { crc = crc & 1 == 1 ? (crc >> 1) ^ 0xEDB8_8320 : crc >> 1 }
    }
    return ~crc
}

private func bigEndian(_ value: UInt32) -> [UInt8] { [24, 16, 8, 0].map { UInt8(truncatingIfNeeded: value >> $0) } }

private func chunk(_ type: String, _ data: [UInt8]) -> [UInt8] {
    let body = Array(type.utf8) + data
    return bigEndian(UInt32(data.count)) + body + bigEndian(crc32(body))
}

/// zlib data of stored (uncompressed) blocks.
private func zlibStored(_ data: [UInt8]) -> [UInt8] {
    var out: [UInt8] = [0x78, 0x01]
    var offset = 0
    repeat {
        let n = min(65535, data.count - offset)
        let last: UInt8 = offset + n == data.count ? 1 : 0
        out += [last, UInt8(n & 0xFF), UInt8(n >> 8), UInt8(~n & 0xFF), UInt8((~n >> 8) & 0xFF)]
        out += data[offset..<offset + n]
        offset += n
    } while offset < data.count
    var a: UInt32 = 1, b: UInt32 = 0
    for byte in data {
        a = (a + UInt32(byte)) % 65521
        b = (b + a) % 65521
    }
    return out + bigEndian(b << 16 | a)
}

/// A PNG of `width` × `height`, RGBA (colour type 6) or RGB (2), every pixel `pixel`; the
/// header may declare other dimensions than the pixels it holds (`declared`).
private func png(width: Int, height: Int, pixel: [UInt8], declared: (Int, Int)? = nil) -> [UInt8] {
    let (w, h) = declared ?? (width, height)
    var rows: [UInt8] = []
    for _ in 0..<height { rows += [0] + Array([[UInt8]](repeating: pixel, count: width).joined()) }
    let header = bigEndian(UInt32(w)) + bigEndian(UInt32(h)) + [8, pixel.count == 4 ? 6 : 2, 0, 0, 0]
    return [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A] + chunk("IHDR", header) + chunk("IDAT", zlibStored(rows)) + chunk("IEND", [])
}

private func temporaryFolder() -> String {
    var template = Array("/tmp/pictures-test-XXXXXX".utf8CString)
    return template.withUnsafeMutableBufferPointer { String(cString: mkdtemp($0.baseAddress!)) }
}

private func removeFolder(_ folder: String) {
    if let dir = opendir(folder) {
        while let entry = readdir(dir) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { String(cString: $0.bindMemory(to: CChar.self).baseAddress!) }
            if name != "." && name != ".." { unlink(folder + "/" + name) }
        }
        closedir(dir)
    }
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
    guard fd >= 0 else { return [] }
    defer { close(fd) }
    var out: [UInt8] = []
    var buffer = [UInt8](repeating: 0, count: 65536)
    while case let n = read(fd, &buffer, buffer.count), n > 0 { out += buffer[0..<n] }
    return out
}

/// The width and height a PNG's IHDR declares.
private func pngSize(_ bytes: [UInt8]) -> (Int, Int)? {
    guard bytes.count > 24, bytes[12..<16].elementsEqual("IHDR".utf8) else { return nil }
    func int(_ at: Int) -> Int { bytes[at..<at + 4].reduce(0) { $0 << 8 | Int($1) } }
    return (int(16), int(20))
}

/// The chunk types of a PNG, in order.
private func pngChunks(_ bytes: [UInt8]) -> [String] {
    var types: [String] = []
    var at = 8
    while at + 8 <= bytes.count {
        let length = bytes[at..<at + 4].reduce(0) { $0 << 8 | Int($1) }
        types.append(String(decoding: bytes[at + 4..<at + 8], as: UTF8.self))
        at += 12 + length
    }
    return types
}

/// One at a time: vips' loaders are narrowed per file for the whole process.
@Suite(.serialized) struct PicturesTests {
    @Test func aPictureWithTransparencyIsAPNGFitToTheSizes() throws {
        let folder = temporaryFolder()
        defer { removeFolder(folder) }
        write(png(width: 400, height: 100, pixel: [255, 0, 0, 128]), to: folder + "/in.bin")
        var options = PictureOptions()
        options.thumbnailSize = 40
        options.displaySize = 200
        let picture = try PictureMaker(options: options).make(file: folder + "/in.bin", name: "abc", into: folder)
        #expect(picture == Picture(kind: .image, width: 400, height: 100, thumbnail: folder + "/abc.t.png", display: folder + "/abc.png"))
        let display = readAll(folder + "/abc.png"), thumbnail = readAll(folder + "/abc.t.png")
        #expect(pngSize(display)! == (200, 50))
        #expect(pngSize(thumbnail)! == (40, 10))
        // nothing but the pixels: no text, EXIF, ICC profile or time
        #expect(Set(pngChunks(display)).subtracting(["IHDR", "IDAT", "IEND", "pHYs"]).isEmpty, "\(pngChunks(display))")
    }

    @Test func anOpaquePictureIsAJPEGAndNeverEnlarged() throws {
        let folder = temporaryFolder()
        defer { removeFolder(folder) }
        // an alpha band it does not use is no transparency
        write(png(width: 30, height: 20, pixel: [0, 0, 255, 255]), to: folder + "/in.png")
        let picture = try PictureMaker().make(file: folder + "/in.png", name: "def", into: folder)
        #expect(picture == Picture(kind: .image, width: 30, height: 20, thumbnail: folder + "/def.t.jpg", display: folder + "/def.jpg"))
        let jpeg = readAll(folder + "/def.jpg")
        #expect(jpeg.starts(with: [0xFF, 0xD8]))
        // no APP1 (EXIF, XMP) or APP2 (ICC) segment: the segments before the first frame
        var at = 2, markers: [UInt8] = []
        while at + 4 <= jpeg.count, jpeg[at] == 0xFF, jpeg[at + 1] != 0xDA {
            markers.append(jpeg[at + 1])
            at += 2 + (Int(jpeg[at + 2]) << 8 | Int(jpeg[at + 3]))
        }
        #expect(!markers.contains(0xE1) && !markers.contains(0xE2) && !markers.contains(0xFE), "\(markers)")
        #expect(access(folder + "/def.png", F_OK) != 0)
    }

    @Test func aHeaderOverThePixelLimitIsAFileBeforeAnyDecoding() throws {
        let folder = temporaryFolder()
        defer { removeFolder(folder) }
        // declares 100,000 × 100,000 and holds 1 × 1: a decompression bomb's shape
        write(png(width: 1, height: 1, pixel: [1, 2, 3], declared: (100_000, 100_000)), to: folder + "/bomb.png")
        let bomb = try PictureMaker().make(file: folder + "/bomb.png", name: "bomb", into: folder)
        #expect(bomb.kind == .file && bomb.thumbnail == nil && bomb.display == nil)
        #expect(bomb.error?.contains("100000×100000 is over the limit of 100000000 pixels") == true, "\(bomb)")

        var options = PictureOptions()
        options.maxPixels = 399
        write(png(width: 20, height: 20, pixel: [1, 2, 3]), to: folder + "/small.png")
        let small = try PictureMaker(options: options).make(file: folder + "/small.png", name: "small", into: folder)
        #expect(small.kind == .file && small.error?.contains("20×20") == true)
        options.maxPixels = 400
        #expect(try PictureMaker(options: options).make(file: folder + "/small.png", name: "small", into: folder).kind == .image)
    }

    @Test func theContentDecidesNeverTheName() throws {
        let folder = temporaryFolder()
        defer { removeFolder(folder) }
        let maker = try PictureMaker()
        let svg = Array(#"<svg xmlns="http://www.w3.org/2000/svg" width="10" height="10"><script>alert(1)</script></svg>"#.utf8)
        let zip: [UInt8] = [0x50, 0x4B, 0x05, 0x06] + [UInt8](repeating: 0, count: 18)
        let ppm = Array("P3\n2 2\n255\n0 0 0 0 0 0 0 0 0 0 0 0\n".utf8)
        for (name, bytes, reason) in [("a.svg", svg, "script"), ("b.jpg", zip, "application/zip"), ("c.png", ppm, "not a picture type"),
                                      ("d.gif", Array("GIF89a".utf8), "cannot read its header"), ("e.jpg", [], "application/octet-stream")] {
            write(bytes, to: folder + "/" + name)
            let picture = maker.make(file: folder + "/" + name, name: name, into: folder)
            #expect(picture.kind == .file && picture.thumbnail == nil, "\(name): \(picture)")
            #expect(picture.error?.contains(reason) == true, "\(name): \(picture.error ?? "no error")")
        }
        // a PNG named .pdf is a picture
        write(png(width: 8, height: 8, pixel: [9, 9, 9]), to: folder + "/f.pdf")
        #expect(maker.make(file: folder + "/f.pdf", name: "f", into: folder).kind == .image)
    }

    /// vips' own sniffing, as its thumbnail uses it, finds only the loaders left unblocked: none
    /// but the six for a PPM, and only PNG's while a PNG is read.
    @Test func loadersOutsideTheSixAreBlocked() throws {
        let folder = temporaryFolder()
        defer { removeFolder(folder) }
        _ = try PictureMaker()
        write(Array("P3\n2 2\n255\n0 0 0 0 0 0 0 0 0 0 0 0\n".utf8), to: folder + "/p.ppm")
        #expect(throws: VipsError.self) { try VipsPicture.thumbnail(of: folder + "/p.ppm", width: 10, height: 10) }
        write(png(width: 8, height: 8, pixel: [9, 9, 9]), to: folder + "/p.png")
        #expect(try VipsPicture.thumbnail(of: folder + "/p.png", width: 4, height: 4).inMemory().width == 4)
        let underJPEG = Vips.allowing(only: "VipsForeignLoadJpeg") {
            Result { () throws(VipsError) in try VipsPicture.thumbnail(of: folder + "/p.png", width: 4, height: 4).inMemory() }
        }
        #expect(throws: VipsError.self) { try underJPEG.get() }
        // and the six again after
        #expect(try VipsPicture.thumbnail(of: folder + "/p.png", width: 4, height: 4).inMemory().width == 4)
    }

    @Test func sha256OfAFileIsReadInBlocks() throws {
        let folder = temporaryFolder()
        defer { removeFolder(folder) }
        write(Array("abc".utf8), to: folder + "/abc")
        #expect(try PictureMaker.sha256(ofFileAt: folder + "/abc").get() == "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad")
        // 200,000 bytes: more than one block
        write([UInt8](repeating: 0x61, count: 200_000), to: folder + "/many")
        #expect(try PictureMaker.sha256(ofFileAt: folder + "/many").get() == "2287d207f24a941ff3b56c04c8a25ad56b63e3023207b3bb5b4ac0c9869d74be")
        #expect(throws: PictureError.self) { try PictureMaker.sha256(ofFileAt: folder + "/missing").get() }
    }

    /// A worker that dies is a refusal of that file, and the next file gets a new worker.
    @Test func aWorkerThatDiesRefusesItsFileOnly() throws {
        let folder = temporaryFolder()
        defer { removeFolder(folder) }
        write(Array("abc".utf8), to: folder + "/abc")
        // /bin/sh answering one name and killing itself at the next, as a decoder that aborts would
        let script = "head -c 1 >/dev/null; echo '{}'; head -c 1 >/dev/null; kill -ABRT $$"
        let worker = PictureWorker(executable: "/bin/sh", arguments: ["-c", script], timeoutSeconds: 5)
        for round in 0..<2 {
            guard case .answered(let first) = worker.make(file: folder + "/abc"), first == Array("{}".utf8) else {
                Issue.record("round \(round): the worker's answer was not passed on")
                return
            }
            guard case .workerFailed(let line, let why) = worker.make(file: folder + "/abc") else {
                Issue.record("round \(round): the worker's death was not a refusal")
                return
            }
            #expect(why.contains("killed by signal 6"), "\(why)")
            let text = String(decoding: line, as: UTF8.self)
            #expect(text.contains(#""sha256":"ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad","kind":"file""#), "\(text)")
        }
        let slow = PictureWorker(executable: "/bin/sh", arguments: ["-c", "sleep 30"], timeoutSeconds: 1)
        guard case .workerFailed(_, let why) = slow.make(file: folder + "/abc") else {
            Issue.record("a worker out of time was not a refusal")
            return
        }
        #expect(why == "the picture library took more than 1 s on it")
        // one that ends before its first answer without a signal could not start: the run ends
        let broken = PictureWorker(executable: "/bin/sh", arguments: ["-c", "exit 75"], timeoutSeconds: 5)
        guard case .cannotRun(let reason) = broken.make(file: folder + "/abc") else {
            Issue.record("a worker that cannot start was taken for a refusal")
            return
        }
        #expect(reason.contains("status 75"))
    }

    @Test func theLineHasEveryFieldInOrder() {
        let line = PictureWorker.line(file: "a \"b\".jpg", sha256: nil, picture: Picture(kind: .file, error: "why"))
        #expect(String(decoding: line, as: UTF8.self)
            == #"{"file":"a \"b\".jpg","sha256":null,"kind":"file","width":null,"height":null,"thumbnail":null,"display":null,"error":"why"}"#)
    }
}
