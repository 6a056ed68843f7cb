import Testing
import Glibc
import JSONLines
@testable import MailParse

@Suite struct MboxTests {
    let takeout = """
        From 1234567890123@xxx Mon Jan 06 04:49:45 +0000 2020
        X-GM-THRID: 1655000000000000001
        X-Gmail-Labels: Inbox,Important,Category Promotions,=?UTF-8?Q?Reisen/Japan_=E6=97=85?=,"Work, urgent"
        Subject: one
        Message-ID: <one@x>

        >From the start
        >>From quoted twice
        From me, not a From_ line
        body
        
        From 1234567890124@xxx Tue Jan 07 04:49:45 +0000 2020
        X-Gmail-Labels: Sent,Opened,Posteingang
        Subject: two

        second

        """

    @Test func readsTakeoutMboxrd() throws {
        let r = try records(ofMailbox: Array(takeout.utf8))
        #expect(r.count == 2)
        #expect(r[0]["subject"] == .string("one"))
        #expect(r[0]["text"] == .string("From the start\n>From quoted twice\nFrom me, not a From_ line\nbody\n"))
        #expect(r[0]["labels"]?.strings == ["INBOX", "IMPORTANT", "CATEGORY_PROMOTIONS", "Reisen/Japan 旅", "Work, urgent"])
        #expect(r[0]["thread_id"] == .string("1655000000000000001"))
        // the From_ line's X-GM-MSGID, as the Gmail API names the message: in hex
        #expect(r[1]["gmail_id"] == .string(String(1234567890124, radix: 16)))
        #expect(r[0]["date"] == .string("2020-01-06T04:49:45Z"))  // no Date header: the From_ line's
        #expect(r[1]["labels"]?.strings == ["SENT", "Opened", "INBOX"])
        #expect(r[1]["text"] == .string("second\n"))
        // source offsets cut the mbox into its entries
        let bytes = Array(takeout.utf8)
        let second = r[1]["source"]!
        let offset = second["offset"]!.intValue!
        #expect(Array(bytes[offset..<(offset + 5)]) == Array("From ".utf8))
        #expect(offset + second["length"]!.intValue! == bytes.count)
        #expect(r[0]["source"]?["length"]?.intValue == offset)
    }

    @Test func mboxoUnquotesOnlyOneLevel() throws {
        let r = try records(ofMailbox: Array(takeout.utf8), format: .mboxo)
        #expect(r[0]["text"] == .string("From the start\n>>From quoted twice\nFrom me, not a From_ line\nbody\n"))
    }

    @Test func crlfMbox() throws {
        let crlf = takeout.replacingLF()
        let r = try records(ofMailbox: Array(crlf.utf8))
        #expect(r.count == 2)
        #expect(r[1]["subject"] == .string("two"))
    }

    @Test func mboxcl2TrustsContentLength() throws {
        let body = "From Mon Jan  1 00:00:00 2024 is a line in the body\nend\n"
        let mbox = """
            From a@x Mon Jan  1 00:00:00 2024
            Subject: cl2
            Content-Length: \(body.utf8.count)

            \(body)
            From b@x Mon Jan  1 00:00:01 2024
            Subject: next

            x

            """
        let auto = try records(ofMailbox: Array(mbox.utf8))
        #expect(auto.count == 2)
        #expect(auto[0]["text"] == .string(body))
        let forced = try records(ofMailbox: Array(mbox.utf8), format: .mboxcl2)
        #expect(forced.count == 2)
        // without Content-Length the body line would have started a message
        let plain = try records(ofMailbox: Array(mbox.utf8), format: .mboxrd)
        #expect(plain.count == 3)
    }

    @Test func wrongContentLengthIsIgnored() throws {
        let mbox = "From a@x Mon Jan  1 00:00:00 2024\nContent-Length: 3\n\nlonger body\n\nFrom b@x Mon Jan  1 00:00:01 2024\nSubject: b\n\nx\n"
        let r = try records(ofMailbox: Array(mbox.utf8))
        #expect(r.count == 2)
        #expect(r[0]["text"] == .string("longer body\n"))
    }

    @Test func messageLargerThanTheReadBuffer() throws {
        let line = String(repeating: "0123456789", count: 10) + "\n"
        let big = String(repeating: line, count: 40_000)  // ~4 MB, several buffer fills
        let mbox = "From a@x Mon Jan  1 00:00:00 2024\nSubject: big\n\n" + big + "\nFrom b@x Mon Jan  1 00:00:01 2024\nSubject: small\n\nx\n"
        let r = try records(ofMailbox: Array(mbox.utf8))
        #expect(r.count == 2)
        #expect(r[0]["source"]?["length"]?.intValue ?? 0 > big.utf8.count)  // read whole
        #expect(r[0]["text"]?.stringValue == String(big.utf8.prefix(1 << 20))!)  // kept to the limit
        #expect(r[0]["defects"]?.arrayValue?.contains(.string("text_over_limit")) == true)
        #expect(r[1]["subject"] == .string("small"))
    }

    /// The word-at-a-time search for "\nFrom " against a plain one: at every place in buffers
    /// of every length around the 16-byte steps, with near misses ("\nFrom" at the end, "\nFrog",
    /// "\n\nFrom ") and LFs and Fs next to it.
    @Test func newlineFromSearchMatchesAPlainSearch() {
        func plain(_ b: [UInt8], from: Int) -> Int? {
            let n = MboxReader.newlineFrom
            return b.count < n.count ? nil : (from...max(from, b.count - n.count)).first { $0 + n.count <= b.count && Array(b[$0..<($0 + n.count)]) == n }
        }
        let pieces = ["\nFrom ", "\nFrom", "\nFrog ", "\n\nFrom ", "F\nF", "xx", "\n", "F"].map { Array($0.utf8) }
        var seed: UInt64 = 7
        for length in 0..<70 {
            for _ in 0..<40 {
                let b = spliced(pieces, length: length, seed: &seed)
                for from in [0, 1, 5, 16, 17] where from <= b.count {
                    let found = b.withUnsafeBytes { MboxReader.findNewlineFrom($0, from: from) }
                    #expect(found == plain(b, from: from), "\(b) from \(from)")
                }
            }
        }
    }

    /// The quoting to remove from ">From " lines against a line-by-line reading, for mboxrd
    /// (every level) and mboxo (only one), with quotes that are not of From lines beside them.
    @Test func quotingToRemoveMatchesALineByLineReading() {
        let pieces = ["\n", ">", ">>", "From ", "From", "F", "x", "\r\n", "> From "].map { Array($0.utf8) }
        var seed: UInt64 = 11
        for length in 0..<90 {
            for _ in 0..<30 {
                let b = spliced(pieces, length: length, seed: &seed)
                for variant in [MboxVariant.mboxrd, .mboxo] {
                    var expected: [Int] = []
                    var lineStart = 0
                    for k in 0...b.count where k == b.count || b[k] == 0x0A {
                        let line = b[lineStart..<k]
                        let quotes = line.prefix { $0 == UInt8(ascii: ">") }.count
                        if quotes > 0, line.dropFirst(quotes).starts(with: Array("From ".utf8)), variant == .mboxrd || quotes == 1 {
                            expected.append(lineStart)
                        }
                        lineStart = k + 1
                    }
                    let found = b.withUnsafeBytes { MboxReader.quotingToRemove($0, variant: variant) }
                    #expect(found == expected, "\(String(decoding: b, as: UTF8.self).debugDescription) \(variant)")
                }
            }
        }
    }

    @Test func singleMessageWithAFromLineAsProcmailHandsIt() throws {
        let r = try records(ofMailbox: Array("From sender@x  Sat Jan  3 01:05:34 1996\nSubject: hi\n\nbody\n".utf8))
        #expect(r.count == 1)
        #expect(r[0]["subject"] == .string("hi"))
        let eml = try records(ofMailbox: Array("Subject: plain eml\n\nbody\n".utf8))
        #expect(eml[0]["source"]?["format"] == .string("eml"))
    }
}

/// `length` bytes of the pieces in a pseudo-random order (the last one cut).
private func spliced(_ pieces: [[UInt8]], length: Int, seed: inout UInt64) -> [UInt8] {
    var b: [UInt8] = []
    while b.count < length {
        seed = seed &* 6364136223846793005 &+ 1442695040888963407
        b += pieces[Int(seed >> 33) % pieces.count]
    }
    return Array(b.prefix(length))
}

@Suite struct MaildirTests {
    @Test func readsCurAndNewWithFlags() throws {
        let dir = temporaryDirectory()
        for sub in ["cur", "new", "tmp"] { mkdir(dir + "/" + sub, 0o755) }
        func put(_ path: String, _ text: String) {
            let fd = open(dir + "/" + path, O_WRONLY | O_CREAT, 0o644)
            _ = Array(text.utf8).withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
            close(fd)
        }
        put("cur/1700000000.1.host:2,FS", "Subject: seen and flagged\n\nx\n")
        put("cur/1700000001.2.host:2,", "Subject: unseen\n\nx\n")
        put("new/1700000002.3.host", "Subject: new\n\nx\n")
        put("tmp/1700000003.4.host", "Subject: being delivered\n\nx\n")
        let converter = MessageConverter()
        var out: [JSONValue] = []
        try MailboxInput.read(fd: -1, path: dir, isDirectory: true, format: nil,
                              message: { out.append(try JSONValue.parse(converter.record(for: $0).json)) }, bad: { _ in })
        #expect(out.map { $0["subject"]?.stringValue } == ["seen and flagged", "unseen", "new"])
        #expect(out[0]["labels"]?.strings == ["STARRED"])
        #expect(out[0]["source"]?["flags"] == .string("FS"))
        #expect(out[1]["labels"]?.strings == ["UNREAD"])
        #expect(out[2]["labels"]?.strings == ["UNREAD"])
        #expect(out[2]["source"]?["format"] == .string("maildir"))
    }
}

@Suite struct GmailAPITests {
    func b64url(_ s: String) -> String {
        let table = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_".utf8)
        let bytes = Array(s.utf8)
        var out = [UInt8]()
        var i = 0
        while i < bytes.count {
            let chunk = Array(bytes[i..<min(i + 3, bytes.count)]) + [0, 0]
            let v = UInt32(chunk[0]) << 16 | UInt32(chunk[1]) << 8 | UInt32(chunk[2])
            let n = min(3, bytes.count - i) + 1
            for k in 0..<n { out.append(table[Int((v >> UInt32(18 - 6 * k)) & 63)]) }
            i += 3
        }
        return String(decoding: out, as: UTF8.self)
    }

    @Test func rawAndFullFormats() throws {
        let raw = b64url("From: A <a@x>\r\nSubject: raw one\r\nMessage-ID: <r@x>\r\n\r\nhello raw\r\n")
        let html = b64url("<p>caf\u{e9}</p>")
        let lines = """
            {"id":"18c1","threadId":"18c0","labelIds":["INBOX","UNREAD","Label_5"],"internalDate":"1700000000000","raw":"\(raw)"}
            not json
            {"id":"18c2","threadId":"18c0","labelIds":["SENT"],"internalDate":"1700000001000","payload":{"mimeType":"multipart/alternative","headers":[{"name":"From","value":"Me <me@x>"},{"name":"Subject","value":"full one"},{"name":"Content-Type","value":"multipart/alternative; boundary=zz"}],"parts":[{"partId":"0","mimeType":"text/html","headers":[{"name":"Content-Type","value":"text/html; charset=UTF-8"}],"body":{"size":12,"data":"\(html)"}},{"partId":"1","mimeType":"application/pdf","filename":"a.pdf","headers":[{"name":"Content-Disposition","value":"attachment"}],"body":{"attachmentId":"ANGjdJ","size":5000}}]}}

            """
        let r = try records(ofMailbox: Array(lines.utf8))
        #expect(r.count == 3)
        #expect(r[0]["subject"] == .string("raw one"))
        #expect(r[0]["text"] == .string("hello raw\n"))
        #expect(r[0]["labels"]?.strings == ["INBOX", "UNREAD", "Label_5"])
        #expect(r[0]["thread_id"] == .string("18c0"))
        #expect(r[0]["gmail_id"] == .string("18c1"))
        #expect(r[0]["date"] == .string("2023-11-14T22:13:20Z"))
        #expect(r[0]["source"]?["line"] == .number("1"))
        #expect(r[1] == .null)  // the bad line is reported, not lost
        #expect(r[2]["subject"] == .string("full one"))
        #expect(r[2]["html"] == .string("<p>café</p>"))
        #expect(r[2]["attachments"]?[0]?["filename"] == .string("a.pdf"))
        #expect(r[2]["attachments"]?[0]?["size"] == .number("5000"))
        #expect(r[2]["attachments"]?[0]?["sha256"] == .null)
    }

    /// Gmail leaves out an empty labelIds: such a message has no labels, and the Takeout header
    /// its raw text kept from an import is not what Gmail says of it now.
    @Test func withoutLabelIdsAMessageHasNoLabels() throws {
        let raw = b64url("From: A <a@x>\r\nX-Gmail-Labels: Inbox,Unread\r\nMessage-ID: <l@x>\r\n\r\nhi\r\n")
        let r = try records(ofMailbox: Array("{\"id\":\"18c3\",\"threadId\":\"18c3\",\"raw\":\"\(raw)\"}\n".utf8))
        #expect(r[0]["labels"]?.strings == [])
        let takeout = try records(ofMailbox: Array("From x Mon Jan  1 00:00:00 2024\nX-Gmail-Labels: Inbox,Unread\nMessage-ID: <t@x>\n\nhi\n".utf8))
        #expect(takeout[0]["labels"]?.strings == ["INBOX", "UNREAD"])
    }
}

@Suite struct AttachmentSaverTests {
    @Test(arguments: [
        ("../../etc/passwd", "passwd"), ("C:\\evil\\x.exe", "x.exe"), (".hidden", "hidden"),
        ("a\u{0}b\nc.txt", "abc.txt"), ("", "attachment.pdf"), ("...", "attachment.pdf"),
    ])
    func namesAreSafe(_ suggested: String, _ expected: String) {
        #expect(AttachmentSaver.safeName(suggested, contentType: "application/pdf") == expected)
    }

    @Test func neverOverwrites() throws {
        let dir = temporaryDirectory()
        let saver = try AttachmentSaver(directory: dir)
        let a = try saver.save([1], suggestedName: "x.pdf", contentType: "application/pdf")
        let b = try saver.save([2], suggestedName: "x.pdf", contentType: "application/pdf")
        let c = try saver.save([3], suggestedName: "../x.pdf", contentType: "application/pdf")
        #expect(a == dir + "/x.pdf")
        #expect(b == dir + "/x (1).pdf")
        #expect(c == dir + "/x (2).pdf")
    }
}

extension String {
    func replacingLF() -> String {
        var out = ""
        for ch in unicodeScalars {
            if ch == "\n" { out += "\r\n" } else { out.unicodeScalars.append(ch) }
        }
        return out
    }
}
