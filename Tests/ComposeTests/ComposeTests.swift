#if canImport(Glibc)
import Glibc
#endif
import Conversations
import JSONLines
import MailParse
import MailSubject
import Testing
import UTF8Text
@testable import Compose

/// Records made in the test, read as a records file would be.
final class MemoryOriginals: Originals {
    var byID: [String: Original] = [:]
    var newest: [String: String] = [:]

    func add(_ json: String, conversation: String? = nil) throws {
        let o = try Original(Array(json.utf8))
        byID[o.id] = o
        if let conversation { newest[conversation] = o.id }
    }

    func message(id: String) throws -> Original? { byID[id] }
    func newestMessage(conversation: String) throws -> Original? { newest[conversation].flatMap { byID[$0] } }
    func ownAddresses() throws -> [String] { [] }
    func ownName(address: String) throws -> String? { nil }
}

func record(id: String, from: String, to: [String] = [], cc: [String] = [], replyTo: [String] = [], subject: String = "Hello",
            references: [String] = [], headers: [String: String] = [:], text: String = "Hi\n") -> String {
    func box(_ s: String) -> String {
        let parts = s.split(separator: "|", maxSplits: 1).map(String.init)
        let name = parts.count == 2 ? parts[0] : "", address = parts.last!
        return #"{"name":"\#(name)","address":"\#(address)"}"#
    }
    func list(_ l: [String]) -> String { "[" + l.map(box).joined(separator: ",") + "]" }
    func strings(_ l: [String]) -> String { "[" + l.map { "\"\($0)\"" }.joined(separator: ",") + "]" }
    let h = headers.map { #""\#($0.key)":["\#($0.value)"]"# }.joined(separator: ",")
    return #"{"id":"\#(id)","message_id":"\#(id)","date":"2026-03-02T01:14:58Z","from":\#(box(from)),"to":\#(list(to)),"cc":\#(list(cc)),"bcc":[],"reply_to":\#(list(replyTo)),"subject":"\#(subject)","references":\#(strings(references)),"in_reply_to":[],"text":"\#(text.replacing("\n", with: "\\n"))","headers":{\#(h)},"calendar":[],"attachments":[]}"#
}

/// mime-parse's record of a written message.
func parsed(_ bytes: [UInt8]) throws -> JSONValue {
    let converter = MessageConverter()
    return try JSONValue.parse(converter.record(for: RawMessage(bytes: bytes, source: MessageSource(path: "-", offset: 0, length: bytes.count, format: "eml"))).json)
}

func composer(_ originals: Originals?, me: [String] = ["mei@example.tw"]) -> Composer {
    Composer(originals: originals, me: me, rules: AddressRules(), prefixes: .builtIn, zone: "Asia/Taipei", now: 1_780_000_000)
}

func request(_ json: String) throws -> ComposeRequest { try ComposeRequest.parse(Array(json.utf8), addresses: AddressListReader()) }

func addresses(_ v: JSONValue?) -> [String] { v?.arrayValue?.compactMap { $0["address"]?.stringValue } ?? [] }

@Suite struct HeaderWritingTests {
    static let subjects = [
        "Plain ASCII subject",
        "A long ASCII subject that goes on and on past the seventy-eight columns a header line should stay within, and then some more",
        "您的訂單已出貨：請於三日內至全家便利商店福美門市取貨，逾期將退回寄件人，謝謝您的耐心等候與支持",
        "Re: Trip photos 📷 from the Taroko gorge with the whole family 👨‍👩‍👧‍👦 and friends",
        "Café crème à la française, résumé ci-joint",
        "Literal =?utf-8?q?not-a-word?= inside",
        "Two  spaces,   three  spaces",
        "Spaces  around  é  encoded   words  ü",
        "مرحبا بالعالم هذا موضوع طويل باللغة العربية لاختبار الترميز والطي",
    ]

    @Test(arguments: subjects)
    func subjectsReadBackAndStayWithinTheLimits(_ subject: String) throws {
        let line = HeaderWriting.unstructured("Subject", subject)
        for physical in line.split(separator: "\n") {
            #expect(physical.utf8.count <= 78 || !physical.contains(" "), "\(physical)")
        }
        for word in line.split(whereSeparator: { $0 == " " || $0 == "\n" }) where word.hasPrefix("=?") {
            #expect(word.utf8.count <= 75)
        }
        let message = Array("From: a@example.com\n\(line)\n\nx\n".utf8)
        #expect(try parsed(message)["subject"]?.stringValue == subject)
    }

    @Test func longNamesAreCutBetweenWords() {
        let atoms = HeaderWriting.encodedWords("Александр Васильевич Суворов-Рымникский граф", phrase: true)
        #expect(atoms.count > 1)
        // each encoded word but the last ends in a space: no word is cut in two
        let texts = atoms.map { atom -> String in
            let payload = atom.text.dropFirst("=?UTF-8?B?".count).dropLast(2)
            return String(decoding: base64Decoded(String(payload)), as: UTF8.self)
        }
        #expect(texts.joined() == "Александр Васильевич Суворов-Рымникский граф")
        for t in texts.dropLast() { #expect(t.hasSuffix(" "), "\(t)") }
    }

    func base64Decoded(_ s: String) -> [UInt8] {
        let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/".utf8)
        var bits = 0, count = 0
        var out: [UInt8] = []
        for c in s.utf8 where c != UInt8(ascii: "=") {
            bits = bits << 6 | alphabet.firstIndex(of: c)!
            count += 6
            if count >= 8 {
                count -= 8
                out.append(UInt8((bits >> count) & 0xFF))
            }
        }
        return out
    }

    @Test(arguments: ["Sato, Hana", "陳美玲", "O'Brien \"Bobby\"", "Jürgen Müller-Lüdenscheidt von und zu Hohenstein-Ernstthal"])
    func displayNamesReadBack(_ name: String) throws {
        let line = HeaderWriting.addresses("To", [Mailbox(name: name, address: "x@example.com"), Mailbox(name: "", address: "y@example.org")])
        let record = try parsed(Array("From: a@example.com\n\(line)\nSubject: s\n\nx\n".utf8))
        #expect(record["to"]?.arrayValue?.first?["name"]?.stringValue == name)
        #expect(addresses(record["to"]) == ["x@example.com", "y@example.org"])
    }
}

@Suite struct BodyWritingTests {
    @Test func flowedLinesJoinBackAndAreStuffed() {
        let long = String(repeating: "word ", count: 40) + "end"
        let encoded = FlowedWriting.encode(long + "\nFrom here\n leading space\n> quoted stays\n-- \nsig  \n")
        let lines = encoded.split(separator: "\n", omittingEmptySubsequences: false).dropLast()
        #expect(lines.allSatisfy { $0.count <= 78 })
        // soft breaks end in a space; joined, they give the line back
        var joined = "", i = lines.startIndex
        while lines[i].hasSuffix(" ") {
            joined += lines[i]
            i += 1
        }
        joined += lines[i]
        #expect(joined == long)
        #expect(lines.contains(" From here") && lines.contains("  leading space") && lines.contains("> quoted stays"))
        #expect(lines.contains("-- ") && lines.contains("sig"))
    }

    @Test func aLineStartingLikeASignatureSeparatorIsNotCutThere() throws {
        // cut after "-- ", its first piece would be the signature's separator, not a soft break
        let line = "-- " + String(repeating: "x", count: 100) + " end"
        let lines = FlowedWriting.encode(line).split(separator: "\n")
        #expect(lines.first != "-- ")
        #expect(lines.map(String.init).joined() == line)
    }

    @Test func encodingByContent() {
        #expect(FlowedWriting.transferEncoding(Array("plain\n".utf8)) == "7bit")
        #expect(FlowedWriting.transferEncoding(Array("好\n".utf8)) == "8bit")
        #expect(FlowedWriting.transferEncoding(Array(String(repeating: "好", count: 400).utf8)) == "quoted-printable")
    }

    @Test func aLineTooLongForSMTPGoesQuotedPrintableAndReadsBack() throws {
        let text = String(repeating: "好", count: 400) + "\nend  \n"
        let part = MIMEPart.text(text)
        #expect(part.headers.contains("Content-Transfer-Encoding: quoted-printable"))
        #expect(part.body.split(separator: 0x0A).allSatisfy { $0.count <= 76 })
        let record = try parsed(Array("From: a@example.com\nSubject: s\nMIME-Version: 1.0\n".utf8) + MIMEPart(headers: part.headers, body: part.body).bytes)
        #expect(record["text"]?.stringValue == String(repeating: "好", count: 400) + "\nend\n")
    }

    @Test func base64KnownAnswers() {
        #expect(Base64.encode(Array("".utf8)) == "")
        #expect(Base64.encode(Array("f".utf8)) == "Zg==")
        #expect(Base64.encode(Array("fo".utf8)) == "Zm8=")
        #expect(Base64.encode(Array("foobar".utf8)) == "Zm9vYmFy")
        #expect(String(decoding: Base64.encodeURL([0xFB, 0xFF]), as: UTF8.self) == "-_8")
    }
}

@Suite struct AddressingTests {
    let originals = MemoryOriginals()

    init() throws {
        try originals.add(record(id: "plain@x", from: "Alex|alex@example.com", to: ["Mei|mei@example.tw", "jordan@example.org"], cc: ["hana@example.jp", "MEI@example.tw"]))
        try originals.add(record(id: "mine@x", from: "mei@example.tw", to: ["alex@example.com"], cc: ["hana@example.jp"]))
        try originals.add(record(id: "self@x", from: "mei@example.tw", to: ["mei@example.tw"], subject: "note"))
        try originals.add(record(id: "munged@x", from: "priya@example.net", to: ["dev@lists.example.org"], replyTo: ["dev@lists.example.org"],
                                 headers: ["list-post": "<mailto:dev@lists.example.org>", "mail-followup-to": "dev@lists.example.org, priya@example.net"]))
        try originals.add(record(id: "encoded@x", from: "sam@example.net", to: ["team+post@lists.example.org"],
                                 headers: ["list-post": "<mailto:team%2Bpost@lists.example.org?subject=x>"]))
        try originals.add(record(id: "replyto@x", from: "shop@example.com", to: ["mei@example.tw"], replyTo: ["Help|help@example.com"]))
        try originals.add(record(id: "delivered@x", from: "alex@example.com", to: ["undisclosed-recipients@example.com"],
                                 headers: ["delivered-to": "mei.chen@work.example"]))
        // two authors: the record's from is the first, the header names both (RFC 5322 3.6.2)
        try originals.add(record(id: "authors@x", from: "Alex|alex@example.com", to: ["mei@example.tw"],
                                 headers: ["from": "Alex <alex@example.com>, Jordan Lee <jordan@example.org>"]))
        // a group's name read as an address, as mime-parse reads `To: <Undisclosed-Recipient:@host;>`
        try originals.add(record(id: "group@x", from: "alex@example.com", to: ["Undisclosed-Recipient:@mailman.example.com;", "hana@example.jp", "<>", "root"]))
    }

    func reply(_ json: String, me: [String] = ["mei@example.tw"]) throws -> JSONValue {
        try parsed(try composer(originals, me: me).compose(try request(json)).bytes)
    }

    @Test func replyGoesToTheSenderAndReplyAllToEveryoneButMe() throws {
        let one = try reply(#"{"reply":"plain@x","text":"ok"}"#)
        #expect(addresses(one["to"]) == ["alex@example.com"] && addresses(one["cc"]).isEmpty)
        let all = try reply(#"{"reply":"plain@x","all":true,"text":"ok"}"#)
        #expect(addresses(all["to"]) == ["alex@example.com", "jordan@example.org"])
        #expect(addresses(all["cc"]) == ["hana@example.jp"])  // MEI@example.tw is me too
        #expect(all["from"]?["address"]?.stringValue == "mei@example.tw")
        #expect(all["in_reply_to"]?.arrayValue == [.string("plain@x")])
    }

    @Test func aReplyToMyOwnMessageGoesToThoseIWroteTo() throws {
        #expect(addresses(try reply(#"{"reply":"mine@x"}"#)["to"]) == ["alex@example.com"])
        let all = try reply(#"{"reply":"mine@x","all":true}"#)
        #expect(addresses(all["to"]) == ["alex@example.com"] && addresses(all["cc"]) == ["hana@example.jp"])
        #expect(addresses(try reply(#"{"reply":"self@x"}"#)["to"]) == ["mei@example.tw"])
    }

    @Test func listMail() throws {
        // a Reply-To the list put in is passed over for the author, as notmuch does
        #expect(addresses(try reply(#"{"reply":"munged@x"}"#)["to"]) == ["priya@example.net"])
        #expect(addresses(try reply(#"{"reply":"munged@x","list_reply":"list"}"#)["to"]) == ["dev@lists.example.org"])
        #expect(addresses(try reply(#"{"reply":"munged@x","all":true}"#)["to"]) == ["dev@lists.example.org", "priya@example.net"])
        #expect(addresses(try reply(#"{"reply":"munged@x","all":true,"list_reply":"author"}"#)["to"]) == ["priya@example.net", "dev@lists.example.org"])
        #expect(addresses(try reply(#"{"reply":"encoded@x","list_reply":"list"}"#)["to"]) == ["team+post@lists.example.org"])
        #expect(addresses(try reply(#"{"reply":"replyto@x"}"#)["to"]) == ["help@example.com"])
        #expect(addresses(try reply(#"{"reply":"replyto@x","list_reply":"author"}"#)["to"]) == ["shop@example.com"])
    }

    @Test func fromIsTheAddressOfMineTheMailCameTo() throws {
        let me = ["mei@example.tw", "mei.chen@work.example"]
        #expect(try reply(#"{"reply":"delivered@x"}"#, me: me)["from"]?["address"]?.stringValue == "mei.chen@work.example")
        #expect(try reply(#"{"reply":"plain@x"}"#, me: me)["from"]?["address"]?.stringValue == "mei@example.tw")
    }

    @Test func aReplyGoesToEveryAuthor() throws {
        let r = try reply(#"{"reply":"authors@x"}"#)
        #expect(addresses(r["to"]) == ["alex@example.com", "jordan@example.org"])
        #expect(r["to"]?.arrayValue?.last?["name"]?.stringValue == "Jordan Lee")
    }

    @Test func whatIsNotAnAddressIsLeftOut() throws {
        let r = try reply(#"{"reply":"group@x","all":true}"#)
        #expect(addresses(r["to"]) == ["alex@example.com", "hana@example.jp", "root"])  // root: a user of the machine
    }

    @Test func extraRecipientsAreAddedOnce() throws {
        let r = try reply(#"{"reply":"plain@x","cc":["Alex <ALEX@example.com>","new@example.net"],"bcc":"secret@example.net"}"#)
        #expect(addresses(r["to"]) == ["alex@example.com"] && addresses(r["cc"]) == ["new@example.net"])
        #expect(addresses(r["bcc"]) == ["secret@example.net"])
    }
}

@Suite struct SubjectAndThreadTests {
    @Test func replyAndForwardPrefixesAreNotStacked() {
        let c = composer(nil)
        #expect(c.replySubject("Re: AW: 回覆： Dinner") == "Re: Dinner")
        #expect(c.replySubject("RE : Re[2]: x") == "Re: x")
        #expect(c.replySubject("Fwd: parcel") == "Re: Fwd: parcel")
        #expect(c.replySubject("") == "Re:")
        #expect(c.forwardSubject("Fwd: WG: x") == "Fwd: x")
        #expect(c.forwardSubject("Re: x") == "Fwd: Re: x")
    }

    @Test func referencesKeepTheFirstAndTheNewest() throws {
        let ids = (1...30).map { "m\($0)@x" }
        let o = try Original(Array(record(id: "m31@x", from: "a@x.com", references: ids).utf8))
        let refs = Composer.references(answering: o, id: "m31@x")
        #expect(refs.count == 20 && refs.first == "m1@x" && refs.last == "m31@x" && refs[1] == "m13@x")
    }

    @Test func aConversationIsAnsweredAtItsNewestMessageToEveryone() throws {
        let originals = MemoryOriginals()
        try originals.add(record(id: "old@x", from: "alex@example.com", to: ["mei@example.tw"]), conversation: "c1")
        try originals.add(record(id: "new@x", from: "jordan@example.org", to: ["mei@example.tw", "alex@example.com"], subject: "Re: Hello",
                                 references: ["old@x"]), conversation: "c1")
        let r = try parsed(try composer(originals).compose(try request(#"{"conversation":"c1","text":"yes"}"#)).bytes)
        #expect(addresses(r["to"]) == ["jordan@example.org", "alex@example.com"])
        #expect(r["subject"]?.stringValue == "Re: Hello")
        #expect(r["references"]?.arrayValue == [.string("old@x"), .string("new@x")])
    }

    @Test func aQuoteOfHTMLMailQuotesItsText() throws {
        let originals = MemoryOriginals()
        try originals.add(#"{"id":"h@x","message_id":"h@x","date":"2026-03-02T01:14:58Z","from":{"name":"Shop","address":"shop@example.com"},"to":[],"cc":[],"bcc":[],"reply_to":[],"subject":"Order","references":[],"in_reply_to":[],"text":null,"html":"<p>Your order <b>A-17</b> has shipped.</p>","headers":{}}"#)
        let r = try parsed(try composer(originals).compose(try request(#"{"reply":"h@x","text":"Thanks","quote":true}"#)).bytes)
        let text = r["text"]?.stringValue ?? ""
        #expect(text.hasPrefix("Thanks\n\nOn Mon, 2 Mar 2026 09:14:58 +0800, Shop <shop@example.com> wrote:\n"))
        #expect(text.contains("> Your order A-17 has shipped."))
    }

    @Test func aHostileIDAddsNoHeaderLine() throws {
        let originals = MemoryOriginals()
        try originals.add(record(id: "a@x>\\nBcc: spy@example.com\\n<b", from: "alex@example.com", references: ["ok@x", "bad id@x"]))
        let composed = try composer(originals).compose(try request(#"{"reply":"a@x>\nBcc: spy@example.com\n<b"}"#))
        let text = String(decoding: composed.bytes, as: UTF8.self)
        #expect(!text.contains("spy@") && !text.contains("In-Reply-To"))
    }

    @Test func theDateIsInTheZone() {
        #expect(composer(nil).dateText(1_780_000_000) == "Fri, 29 May 2026 04:26:40 +0800")
    }
}

@Suite struct RequestTests {
    @Test(arguments: [
        (#"{"reply":"a@x","txet":"typo"}"#, "unknown field 'txet'"),
        (#"{"reply":"a@x","forward":"b@x"}"#, "one of reply"),
        (#"{"to":"not an address","text":"x"}"#, "is not an address"),
        (#"{"to":"a@","text":"x"}"#, "is not an address"),
        (#"{"to":"Alex Rivera\"<alex@example.com","text":"x"}"#, "is not an address"),  // read as AlexRivera<alex@example.com
        (#"{"text":"to no one"}"#, "needs to, cc or bcc"),
        (#"{"rsvp":"a@x","partstat":"maybe"}"#, "is not accepted"),
        (#"{"rsvp":"a@x"}"#, "partstat is missing"),
        (#"{"reply":"a@x","all":"yes"}"#, "not true or false"),
        (#"["reply"]"#, "a JSON object"),
        (#"{"reply":"a@x","attachments":"one.pdf"}"#, "not a list of paths"),
    ])
    func badRequestsSayWhat(_ json: String, _ expected: String) {
        do {
            _ = try request(json)
            Issue.record("accepted: \(json)")
        } catch {
            #expect("\(error)".contains(expected), "\(error)")
        }
    }

    @Test func aMessageTheSourceLacksIsNamed() throws {
        do {
            _ = try composer(MemoryOriginals()).compose(try request(#"{"reply":"<gone@x>"}"#))
            Issue.record("composed")
        } catch {
            #expect("\(error)" == "no message gone@x")
        }
    }
}

@Suite struct ForwardTests {
    @Test func aForwardedMessageWhoseBytesAreGoneIsMadeFromItsRecord() throws {
        let originals = MemoryOriginals()
        try originals.add(record(id: "gone@x", from: "Shop|shop@example.com", to: ["mei@example.tw"], subject: "您的訂單已出貨", text: "Parcel 9040\n"))
        let r = try parsed(try composer(originals).compose(try request(#"{"forward":"gone@x","to":"mom@example.tw","as_attachment":true}"#)).bytes)
        #expect(r["subject"]?.stringValue == "Fwd: 您的訂單已出貨")
        let attached = r["attachments"]?.arrayValue?.first
        #expect(attached?["content_type"]?.stringValue == "message/rfc822")
    }

    @Test func aFIFOIsNoAttachment() throws {
        let path = "/tmp/compose-fifo-\(getpid())"
        mkfifo(path, 0o600)
        defer { unlink(path) }
        do {
            _ = try composer(nil).compose(try request(#"{"to":"a@example.com","attachments":["\#(path)"]}"#))
            Issue.record("composed")
        } catch {
            #expect("\(error)".hasSuffix("not a regular file"))
        }
    }
}

@Suite struct AttachmentTests {
    @Test func namesAndBytesReadBack() throws {
        var template = Array("/tmp/compose-test-XXXXXX".utf8CString)
        let folder = template.withUnsafeMutableBufferPointer { String(cString: mkdtemp($0.baseAddress!)) }
        defer { _ = system("rm -rf '\(folder)'") }
        let longName = "報告書-" + String(repeating: "長い名前", count: 12) + ".txt"
        let files: [(String, [UInt8])] = [("plain.txt", Array("hello\n".utf8)), (longName, Array("日本語\n".utf8)),
                                          ("photo.jpg", [0x7F, 0x45, 0x4C, 0x46, 2, 1, 1, 0] + [UInt8](repeating: 0, count: 56))]
        for (name, bytes) in files {
            let fd = open(folder + "/" + name, O_WRONLY | O_CREAT, 0o600)
            _ = bytes.withUnsafeBytes { write(fd, $0.baseAddress, bytes.count) }
            close(fd)
        }
        let paths = files.map { "\"\(folder)/\($0.0)\"" }.joined(separator: ",")
        let composed = try composer(nil).compose(try request(#"{"to":"a@example.com","subject":"files","text":"see","attachments":[\#(paths)]}"#))
        let r = try parsed(composed.bytes)
        let attachments = r["attachments"]?.arrayValue ?? []
        #expect(attachments.compactMap { $0["filename"]?.stringValue } == files.map(\.0))
        #expect(attachments.compactMap { $0["size"]?.intValue } == files.map(\.1.count))
        // the type is the content's: an ELF program named .jpg is no image
        #expect(attachments[2]["content_type"]?.stringValue?.hasPrefix("image/") == false)
        #expect(r["text"]?.stringValue == "see\n")
    }
}
