import Glibc
import JSONLines
import Testing
@testable import MailParse

/// A message whose only attachment has these header lines (and a Content-Type named
/// `fallback.bin` unless the lines give their own).
private func attachment(_ headerLines: String) throws -> JSONValue? {
    let contentType = headerLines.lowercased().hasPrefix("content-type:") ? "" : "Content-Type: application/octet-stream; name=\"fallback.bin\"\n"
    let r = try record("""
        Date: Mon, 1 Jan 2024 10:00:00 +0000
        Content-Type: multipart/mixed; boundary=z

        --z
        \(contentType)\(headerLines)

        xyz
        --z--

        """)
    return r["attachments"]?[0]
}

private func defects(_ headerLines: String) throws -> [String] {
    let contentType = headerLines.lowercased().hasPrefix("content-type:") ? "" : "Content-Type: application/octet-stream\n"
    let r = try record("Date: Mon, 1 Jan 2024 10:00:00 +0000\nContent-Type: multipart/mixed; boundary=z\n\n--z\n\(contentType)\(headerLines)\n\nxyz\n--z--\n")
    return r["defects"]?.strings ?? []
}

@Suite struct AttachmentNameTests {
    /// Each form of name real mail uses, and the name it means. (Header lines, the expected
    /// name, and the defect it must carry or nil for none.)
    @Test(arguments: [
        // RFC 2231 continuations: a quoted piece keeps its spaces (Thunderbird splits at them)
        ("Content-Disposition: attachment; filename*0=\"Annual \"; filename*1=\"report 2024.pdf\"", "Annual report 2024.pdf", nil),
        ("Content-Disposition: attachment;\n filename*0*=utf-8''%C3%A9t%C3%A9;\n filename*1=\" plan.pdf\"", "été plan.pdf", nil),
        ("Content-Disposition: attachment; filename*2=\"c.txt\"; filename*0=\"a\"; filename*1=\"b\"", "abc.txt", nil),
        ("Content-Disposition: attachment; filename*0=\"a\"; filename*2=\"c.txt\"", "ac.txt", "invalid_rfc2231_parameter"),
        ("Content-Disposition: attachment; filename*0=\"a\"; filename*0=\"b\"; filename*1=\".txt\"", "a.txt", "invalid_rfc2231_parameter"),
        ("Content-Disposition: attachment; FILENAME*0*=UTF-8''%C3%A9; Filename*1=.txt", "é.txt", nil),
        // some mailers repeat charset'language' in every piece
        ("Content-Disposition: attachment; filename*0*=utf-8''%C3%A9; filename*1*=utf-8''t%C3%A9.txt", "été.txt", nil),
        // a whole value beside numbered pieces, a piece with no number: read what is sound
        ("Content-Disposition: attachment; filename*=utf-8''x.txt; filename*0=y; filename*1=.pdf", "x.txt", "invalid_rfc2231_parameter"),
        ("Content-Disposition: attachment; filename*x=evil.exe; filename=\"ok.txt\"", "ok.txt", "invalid_rfc2231_parameter"),
        // charsets and languages; iso-8859-1 is read as windows-1252, as mail means it
        ("Content-Disposition: attachment; filename*=iso-8859-1'en'caf%E9.txt", "café.txt", nil),
        ("Content-Disposition: attachment; filename*=iso-8859-1''%93quoted%94.txt", "\u{201C}quoted\u{201D}.txt", nil),
        ("Content-Disposition: attachment; filename*=utf-8''l'%C3%A9t%C3%A9.txt", "l'été.txt", nil),
        ("Content-Disposition: attachment; filename*=''caf%C3%A9.txt", "café.txt", nil),
        ("Content-Disposition: attachment; filename*=caf%E9.txt", "café.txt", nil),
        ("Content-Disposition: attachment; filename*=\"iso-8859-1''HasenundFr%F6sche.txt\"", "HasenundFrösche.txt", nil),
        ("Content-Disposition: attachment; filename*=shift_jis''%83e%83X%83g.txt", "テスト.txt", nil),
        // an unknown charset: best effort, and a defect; a plain filename beside it is better
        ("Content-Disposition: attachment; filename*=x-klingon'tlh'caf%C3%A9.txt", "café.txt", "unknown_charset"),
        ("Content-Disposition: attachment; filename=\"cafe.txt\"; filename*=x-klingon''caf%E9.txt", "cafe.txt", "unknown_charset"),
        // RFC 2047 words inside RFC 2231 values and across continuations
        ("Content-Disposition: attachment; filename*=\"=?UTF-8?B?5paH5Lu2LnR4dA==?=\"", "文件.txt", nil),
        ("Content-Disposition: attachment; filename*=UTF-8''=?UTF-8?B?5paH5Lu2LnR4dA==?=", "文件.txt", nil),
        ("Content-Disposition: attachment; filename*0=\"=?UTF-8?B?5paH5Lu2?=\"; filename*1=\"=?UTF-8?B?LnR4dA==?=\"", "文件.txt", nil),
        ("Content-Disposition: attachment; filename*0=\"=?UTF-8?Q?caf=C3\"; filename*1=\"=A9.txt?=\"", "café.txt", nil),
        ("Content-Disposition: attachment;\n filename=\"=?ISO-8859-1?Q?Eelanal=FC=FCsi_p=E4ring.jpg?=\"", "Eelanalüüsi päring.jpg", nil),
        // filename and filename* both: filename* wins (RFC 6266 §4.3), in either order; an empty one does not
        ("Content-Disposition: attachment; filename=\"plain.txt\"; filename*=utf-8''%E2%82%AC.txt", "€.txt", nil),
        ("Content-Disposition: attachment; filename*=utf-8''%E2%82%AC.txt; filename=\"plain.txt\"", "€.txt", nil),
        ("Content-Disposition: attachment; filename*=utf-8''; filename=\"plain.txt\"", "plain.txt", nil),
        // Content-Type's name when Content-Disposition has none; Content-Disposition's first
        ("Content-Type: text/plain; name*=utf-8''%E2%82%AC.txt\nContent-Disposition: attachment", "€.txt", nil),
        ("Content-Type: application/pdf; name=\"a.pdf\"\nContent-Disposition: attachment; filename=\"b.pdf\"", "b.pdf", nil),
        ("Content-Disposition: attachment", "fallback.bin", nil),
        // quoted strings: escapes undone, a ';' inside is text, white space around '=' allowed
        ("Content-Disposition: attachment; filename=\"a \\\"quoted\\\" \\\\ name.txt\"", "a \"quoted\" \\ name.txt", nil),
        ("Content-Disposition: attachment; filename=\"a;b.txt\"; size=3", "a;b.txt", nil),
        ("Content-Disposition: attachment; filename = \"spaced.txt\"", "spaced.txt", nil),
        // hostile names stay in the record as decoded (safe names are the saver's work)
        ("Content-Disposition: attachment; filename*=utf-8''..%2F..%2Fetc%2Fpasswd%00.txt", "../../etc/passwd\u{0}.txt", nil),
        ("Content-Disposition: attachment; filename*=utf-8''a%0D%0Ab%E2%80%AEgpj.exe", "a\r\nb\u{202E}gpj.exe", nil),
    ] as [(String, String, String?)])
    func nameForms(_ header: String, _ expected: String, _ defect: String?) throws {
        let a = try attachment(header)
        #expect(a?["filename"] == .string(expected), "\(header)")
        let found = try defects(header).filter { $0 != "missing_date" }
        #expect(found == (defect.map { [$0] } ?? []), "\(header)")
    }

    @Test func raw8BitNamesAreUTF8ElseWindows1252() throws {
        for (raw, expected) in [([0x63, 0x61, 0x66, 0xE9], "café"), ([0x63, 0x61, 0x66, 0xC3, 0xA9], "café")] as [([UInt8], String)] {
            let message = Array("Content-Type: multipart/mixed; boundary=z\n\n--z\nContent-Disposition: attachment; filename=\"".utf8)
                + raw + Array(".txt\"\n\nx\n--z--\n".utf8)
            #expect(try record(bytes: message)["attachments"]?[0]?["filename"] == .string(expected + ".txt"))
        }
    }

    /// A header of thousands of parameters: the first of a name given twice counts, numbered
    /// pieces join in order. (That it takes time in proportion is tested end to end.)
    @Test func manyParameters() throws {
        let many = (0..<20_000).map { ";p\($0)=v" }.joined()
        let sections = (0..<20_000).reversed().map { ";filename*\($0)=\($0 % 10)" }.joined()
        let a = try attachment("Content-Type: application/x-thing\(many); p7=second; name=\"last.bin\"\nContent-Disposition: attachment\(sections)")
        #expect(a?["filename"]?.stringValue == String((0..<20_000).map { Character(String($0 % 10)) }))
        #expect(a?["content_type"] == .string("application/x-thing"))
    }
}

/// Real messages of other projects' test suites, in ../shared (skipped without it), and the
/// names their attachments have.
private let corpus = String(#filePath.split(separator: "/", omittingEmptySubsequences: false).dropLast(3).joined(separator: "/")) + "/../shared/corpus/"
private let corpusPresent = access(corpus, F_OK) == 0 || getenv("MAILPIPE_REQUIRE_SHARED").map { String(cString: $0) == "1" } == true
private let corpusMissing: Comment = "optional external corpus missing: ../shared/corpus (a folder named shared beside the checkout; see README)"

private func readCorpus(_ path: String) throws -> [UInt8] {
    let fd = open(corpus + path, O_RDONLY)
    guard fd >= 0 else { throw CorpusError(path: path) }
    defer { close(fd) }
    var out: [UInt8] = []
    var buffer = [UInt8](repeating: 0, count: 65536)
    while case let n = read(fd, &buffer, buffer.count), n > 0 { out += buffer[0..<n] }
    return out
}

private struct CorpusError: Error { var path: String }

@Suite(.enabled(if: corpusPresent, corpusMissing)) struct CorpusAttachmentNameTests {
    @Test(arguments: [
        ("mime4j/mimetools-testmsgs/attachment-filename-encoding-Latin1.msg", ["attachment.äöü"]),
        ("mime4j/mimetools-testmsgs/attachment-filename-encoding-UTF8.msg", ["attachment.äöü"]),
        ("mime4j/mimetools-testmsgs/russian.msg", ["Список.doc"]),
        ("ruby-mail/emails/attachment_emails/attachment_with_quoted_filename.eml", ["Eelanalüüsi päring.jpg"]),
        ("ruby-mail/emails/attachment_emails/attachment_with_base64_encoded_name.eml", ["This is a test.pdf"]),
        ("ruby-mail/emails/multi_charset/japanese_attachment.eml", ["てすと.txt"]),
        ("ruby-mail/emails/multi_charset/japanese_attachment_long_name.eml", ["かきくけこかきくけこかきくけこかきくけこかきくけこ.txt"]),
        ("stalwart-mail-parser/eml/legacy/045.eml", ["HasenundFrösche.txt"]),
        ("nodemailer-mailparser/fixtures/nodemailer.eml", ["image.png", "nyan cat ✔.gif", "notes.txt"]),
        ("spamscope-mail-parser/mails/mail_test_5", ["mailingassets_d68799cd6301c7f5731a3c42946e528bcb78eb84.jpg",
            "mailingassets_a9ed45ff2645cff7fca702b289bc684b1bc72e2a.png", "mailingassets_0e4def97310df75c2fa6e0db8fe67b79d130b3c3.png",
            "mailingassets_228b182da05725833a4003dcbd8f6fe67956ad40.png", "mailingassets_4545af8d596bb510a1181c9a3be0460bc5718649.png"]),
    ])
    func namesOfRealMail(_ path: String, _ expected: [String]) throws {
        let r = try record(bytes: try readCorpus(path))
        let names = (r["attachments"]?.arrayValue ?? []).compactMap { $0["filename"]?.stringValue }
        #expect(names == expected, "\(path)")
    }

    /// Every attachment in the corpus with bytes has a detected type; none held by reference
    /// exists there.
    @Test func realAttachmentsAreTyped() throws {
        let r = try record(bytes: try readCorpus("nodemailer-mailparser/fixtures/nodemailer.eml"))
        let types = (r["attachments"]?.arrayValue ?? []).map { $0["detected_type"]?.stringValue }
        #expect(types.contains("image/png"))
        #expect(types.contains("image/gif"))
        #expect(!types.contains(nil))
    }
}

/// Names as hostile mail writes them: whatever the name, the file lands in the folder, under a
/// name that is one plain path component.
@Suite struct HostileNameTests {
    static let hostile: [String] = [
        "../../etc/passwd", "..", ".", "/", "//", "\\", "..\\..\\windows\\system32\\x.dll", "a/../../b", "./.bashrc",
        "\u{0}", "a\u{0}/../../etc/passwd", "evil\u{0}.txt", "line\nbreak\r.txt", "tab\t.txt", "\u{7F}\u{85}\u{9B}x",
        "invoice\u{202E}gpj.exe", "\u{2066}x\u{2069}.pdf", "C:\\Users\\x\\evil.exe", "con", "   ", " . . ",
        "..." + String(repeating: "/", count: 300), String(repeating: "é", count: 400) + ".pdf",
        String(repeating: "a", count: 5000), String(repeating: "\u{301}", count: 3000) + ".jpg",
        "%2e%2e%2fx", "\u{FF0F}fullwidth\u{2215}slash", "name.with.dots.", "~/x", "$HOME",
    ]

    @Test(arguments: hostile)
    func safeNameIsOneHarmlessComponent(_ suggested: String) {
        let name = AttachmentSaver.safeName(suggested, contentType: "application/pdf")
        #expect(!name.isEmpty)
        #expect(!name.contains("/") && !name.contains("\\"))
        #expect(name != "." && name != ".." && !name.hasPrefix("."))
        #expect(name.utf8.count <= 200)
        #expect(!name.unicodeScalars.contains { $0.value < 0x20 || (0x7F...0x9F).contains($0.value) || $0.value == 0x202E })
    }

    @Test func savedFilesNeverLeaveTheFolder() throws {
        let parent = temporaryDirectory()
        let dir = parent + "/attachments"
        let saver = try AttachmentSaver(directory: dir)
        var paths: [String] = []
        for name in Self.hostile {
            let path = try saver.save(Array(name.utf8), suggestedName: name, contentType: "application/pdf")
            // compared as bytes: a name may start with a combining mark, which joins the '/'
            let prefix = Array((dir + "/").utf8)
            #expect(Array(path.utf8.prefix(prefix.count)) == prefix, "\(name)")
            let component = Array(path.utf8.dropFirst(prefix.count))
            #expect(!component.contains(UInt8(ascii: "/")), "\(name)")
            paths.append(String(decoding: component, as: UTF8.self))
        }
        // every file is in the folder, each a new one, and nothing else was made beside it
        #expect(Set(paths).count == Self.hostile.count)
        #expect(listing(dir).sorted() == paths.sorted())
        #expect(listing(parent) == ["attachments"])
        for p in paths { unlink(dir + "/" + p) }
        rmdir(dir)
        rmdir(parent)
    }

    private func listing(_ dir: String) -> [String] {
        guard let d = opendir(dir) else { return [] }
        defer { closedir(d) }
        var names: [String] = []
        while let entry = readdir(d) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { String(cString: $0.bindMemory(to: CChar.self).baseAddress!) }
            if name != "." && name != ".." { names.append(name) }
        }
        return names
    }
}
