import Glibc
import JSONLines
import Hashing
import Testing
import UTF8Text
@testable import MailParse

// Small real files, as Pillow writes them (1×1 or 2×2 pictures), a PDF of one empty page, an
// SVG with a script.
private let png = "iVBORw0KGgoAAAANSUhEUgAAAAIAAAACCAIAAAD91JpzAAAAFklEQVR4nGM8ISfHwMDAxMDAwMDAAAANBAEIfXHKZgAAAABJRU5ErkJggg=="
private let jpeg = "/9j/4AAQSkZJRgABAQAAAQABAAD/2wBDABALDA4MChAODQ4SERATGCgaGBYWGDEjJR0oOjM9PDkzODdASFxOQERXRTc4UG1RV19iZ2hnPk1xeXBkeFxlZ2P/wAALCAABAAEBAREA/8QAHwAAAQUBAQEBAQEAAAAAAAAAAAECAwQFBgcICQoL/8QAtRAAAgEDAwIEAwUFBAQAAAF9AQIDAAQRBRIhMUEGE1FhByJxFDKBkaEII0KxwRVS0fAkM2JyggkKFhcYGRolJicoKSo0NTY3ODk6Q0RFRkdISUpTVFVWV1hZWmNkZWZnaGlqc3R1dnd4eXqDhIWGh4iJipKTlJWWl5iZmqKjpKWmp6ipqrKztLW2t7i5usLDxMXGx8jJytLT1NXW19jZ2uHi4+Tl5ufo6erx8vP09fb3+Pn6/9oACAEBAAA/ACv/2Q=="
private let pdf = UTF8Text.Base64.encode(Array("""
    %PDF-1.4
    1 0 obj << /Type /Catalog /Pages 2 0 R >> endobj
    2 0 obj << /Type /Pages /Kids [3 0 R] /Count 1 >> endobj
    3 0 obj << /Type /Page /Parent 2 0 R /MediaBox [0 0 10 10] >> endobj
    trailer << /Root 1 0 R >>
    %%EOF

    """.utf8))
private let svg = UTF8Text.Base64.encode(Array("""
    <?xml version="1.0" encoding="UTF-8"?>
    <svg xmlns="http://www.w3.org/2000/svg" width="10" height="10"><script>alert(1)</script><rect width="10" height="10"/></svg>

    """.utf8))

private func decode64(_ text: String) -> [UInt8] {
    Array(text.utf8).withUnsafeBytes { MailParse.Base64.decode($0).bytes }
}

private func readFile(_ path: String) -> [UInt8] {
    let fd = open(path, O_RDONLY)
    guard fd >= 0 else { return [] }
    defer { close(fd) }
    var out: [UInt8] = []
    var buffer = [UInt8](repeating: 0, count: 65536)
    while case let n = read(fd, &buffer, buffer.count), n > 0 { out += buffer[0..<n] }
    return out
}

/// A message with one attachment: its name, declared type and base64 content.
private func attachmentRecord(name: String, declared: String, base64: String) throws -> JSONValue? {
    let r = try record("""
        Content-Type: multipart/mixed; boundary=z

        --z
        Content-Type: text/plain

        see attached
        --z
        Content-Type: \(declared); name="\(name)"
        Content-Disposition: attachment; filename="\(name)"
        Content-Transfer-Encoding: base64

        \(base64)
        --z--

        """)
    #expect(r["attachments"]?.count == 1)
    return r["attachments"]?[0]
}

@Suite struct DetectedTypeTests {
    @Test(arguments: [
        ("photo.png", "image/png", png, "image/png"),
        ("photo.jpg", "image/jpeg", jpeg, "image/jpeg"),
        ("paper.pdf", "application/pdf", pdf, "application/pdf"),
        ("drawing.svg", "image/svg+xml", svg, "image/svg+xml"),
        // the declared type says nothing: the content does
        ("scan", "application/octet-stream", png, "image/png"),
        ("invoice.jpg", "image/jpeg", pdf, "application/pdf"),
        ("empty.txt", "text/plain", "", "application/octet-stream"),
    ])
    func typeComesFromTheContent(_ name: String, _ declared: String, _ base64: String, _ expected: String) throws {
        let a = try attachmentRecord(name: name, declared: declared, base64: base64)
        #expect(a?["detected_type"] == .string(expected))
        #expect(a?["content_type"] == .string(declared))
        #expect(a?["filename"] == .string(name))
    }

    /// A program named as a photo and declared one is a program: consumers decide by
    /// detected_type.
    @Test func programNamedAsAPhotoIsAProgram() throws {
        let program = readFile("/bin/true")
        #expect(program.starts(with: [0x7F, 0x45, 0x4C, 0x46]))
        let a = try attachmentRecord(name: "holiday.jpg", declared: "image/jpeg", base64: UTF8Text.Base64.encode(program))
        let type = a?["detected_type"]?.stringValue ?? ""
        #expect(["application/x-executable", "application/x-pie-executable", "application/x-sharedlib"].contains(type), "\(type)")
        #expect(a?["content_type"] == .string("image/jpeg"))
    }

    @Test func uuencodedFilesAreTyped() throws {
        var uu = "begin 644 tiny.png\n"
        let bytes = decode64(png)
        for start in stride(from: 0, to: bytes.count, by: 45) {
            let chunk = Array(bytes[start..<min(start + 45, bytes.count)])
            var line = [UInt8(32 + chunk.count)]
            let padded = chunk + [UInt8](repeating: 0, count: (3 - chunk.count % 3) % 3)
            for i in stride(from: 0, to: padded.count, by: 3) {
                let v = UInt32(padded[i]) << 16 | UInt32(padded[i + 1]) << 8 | UInt32(padded[i + 2])
                for shift in [18, 12, 6, 0] {
                    let c = UInt8((v >> UInt32(shift)) & 63)
                    line.append(c == 0 ? UInt8(ascii: "`") : c + 32)
                }
            }
            uu += String(decoding: line, as: UTF8.self) + "\n"
        }
        uu += "`\nend\n"
        let r = try record("Subject: uu\n\nThe picture:\n" + uu)
        #expect(r["attachments"]?[0]?["filename"] == .string("tiny.png"))
        #expect(r["attachments"]?[0]?["sha256"] == .string(SHA256.hex(bytes)))
        #expect(r["attachments"]?[0]?["detected_type"] == .string("image/png"))
    }

    /// A Gmail API attachment held by reference has no bytes in the record: no type either.
    @Test func attachmentHeldByReferenceHasNone() throws {
        let html = UTF8Text.Base64.encodeURL(Array("<p>hi</p>".utf8))
        let line = """
            {"id":"18c2","threadId":"18c0","labelIds":["INBOX"],"internalDate":"1700000001000","payload":{"mimeType":"multipart/mixed","headers":[{"name":"From","value":"Me <me@x>"},{"name":"Content-Type","value":"multipart/mixed; boundary=zz"}],"parts":[{"partId":"0","mimeType":"text/html","headers":[{"name":"Content-Type","value":"text/html; charset=UTF-8"}],"body":{"size":9,"data":"\(String(decoding: html, as: UTF8.self))"}},{"partId":"1","mimeType":"application/pdf","filename":"a.pdf","headers":[{"name":"Content-Disposition","value":"attachment"}],"body":{"attachmentId":"ANGjdJ","size":5000}}]}}

            """
        let r = try records(ofMailbox: Array(line.utf8), format: .gmailAPI)
        let a = r.first?["attachments"]?[0]
        #expect(a?["filename"] == .string("a.pdf"))
        #expect(a?["detected_type"] == .null)
        #expect(a?["sha256"] == .null)
    }

    /// libmagic is handed only the start of a big part: the answer is the start's.
    @Test func bigPartIsTypedByItsStart() throws {
        let start = decode64(pdf)
        let big = start + [UInt8](repeating: 0x20, count: 3 << 20)
        let a = try attachmentRecord(name: "big.pdf", declared: "application/octet-stream", base64: String(decoding: UTF8Text.Base64.lines(big), as: UTF8.self))
        #expect(a?["detected_type"] == .string("application/pdf"))
        #expect(a?["size"] == .number(String(big.count)))
    }

    /// The magic database is loaded at the first attachment, not before: mail without one never
    /// pays for it.
    @Test func databaseIsLoadedOnlyForAnAttachment() throws {
        let converter = MessageConverter()
        let plain = Array("Subject: hi\n\nno attachment\n".utf8)
        _ = converter.record(for: RawMessage(bytes: plain, source: MessageSource(path: "t", offset: 0, length: plain.count, format: "eml")))
        #expect(!converter.detectedTypes.isLoaded)
        let withOne = Array("Content-Type: application/pdf\n\n%PDF-1.4\n".utf8)
        _ = converter.record(for: RawMessage(bytes: withOne, source: MessageSource(path: "t", offset: 0, length: withOne.count, format: "eml")))
        #expect(converter.detectedTypes.isLoaded)
        #expect(converter.fileTypeError == nil)
    }
}
