import Testing
@testable import UnicodeServices
import UTF8Text

@Suite struct CharsetDecoderTests {
    let decoder = CharsetDecoder()

    func decode(_ bytes: [UInt8], _ label: String?) -> (String, CharsetDecoder.Problem?) {
        let r = decoder.decode(bytes, label: label)
        return (String(decoding: r.utf8, as: UTF8.self), r.problem)
    }

    @Test(arguments: [
        ([0xA4, 0xA4, 0xA4, 0xE5] as [UInt8], "big5", "中文"),
        ([0xD6, 0xD0, 0xCE, 0xC4], "gb2312", "中文"),
        ([0x81, 0x40], "gb2312", "丂"),  // a GBK character under a gb2312 label
        ([0xC7, 0xD1, 0xB1, 0xDB], "ks_c_5601-1987", "한글"),
        ([0x82, 0xA0], "x-sjis", "あ"),
        ([0x1B, 0x24, 0x42, 0x24, 0x22, 0x1B, 0x28, 0x42], "ISO-2022-JP", "あ"),
        ([0x93, 0x71, 0x94], "iso-8859-1", "\u{201C}q\u{201D}"),  // cp1252 quotes under a latin-1 label
        ([0xF0, 0xD2, 0xD9], "KOI8-R", "Пры"),
        (Array("+ZeVnLIqe-".utf8), "utf-7", "日本語"),
        ([0xE9], "\"ISO-8859-1\"", "é"),
        ([0xC3, 0xA9], "3D\"utf-8\"", "é"),
    ])
    func decodesMailCharsets(_ bytes: [UInt8], _ label: String, _ expected: String) {
        #expect(decode(bytes, label).0 == expected)
    }

    @Test func undeclared8BitIsUTF8WhenValidElseWindows1252() {
        #expect(decode([0xC3, 0xA9], nil) == ("é", .undeclared8Bit))
        #expect(decode([0xE9, 0x80], nil) == ("é€", .undeclared8Bit))
        #expect(decode(Array("plain".utf8), nil) == ("plain", nil))
    }

    @Test func unknownLabelsFallBack() {
        #expect(decode([0xC3, 0xA9], "x-unknown").0 == "é")
        let (text, problem) = decode([0xE9], "no-such-charset")
        #expect(text == "é")
        #expect(problem == .unknownCharset("no-such-charset"))
    }

    @Test func invalidUTF8IsRepaired() {
        let (text, problem) = decode([0x61, 0xFF, 0x62], "utf-8")
        #expect(text == "a\u{FFFD}b")
        #expect(problem == .invalidBytes("utf-8"))
    }

    @Test func validatesUTF8Strictly() {
        #expect(UTF8Bytes.isValid([0xF0, 0x9F, 0x98, 0x80]))
        #expect(!UTF8Bytes.isValid([0xED, 0xA0, 0x80]))  // surrogate
        #expect(!UTF8Bytes.isValid([0xC0, 0xAF]))  // overlong
        #expect(!UTF8Bytes.isValid([0xF4, 0x90, 0x80, 0x80]))  // above U+10FFFF
    }
}

@Suite struct MislabelTests {
    @Test func utf8UnderALegacyLabelIsReadAsUTF8() {
        let text = "你好，我公司代开各类发票"
        let r = CharsetDecoder().decode(Array(text.utf8), label: "gb2312")
        #expect(String(decoding: r.utf8, as: UTF8.self) == text)
        #expect(r.problem == .mislabelledUTF8("gb18030"))
    }

    @Test func realLegacyTextIsNotMistakenForUTF8() {
        let r = CharsetDecoder().decode([0xC4, 0xE3, 0xBA, 0xC3], label: "gb2312")  // 你好 in GB2312
        #expect(String(decoding: r.utf8, as: UTF8.self) == "你好")
        #expect(r.problem == nil)
    }
}

@Suite struct AddressTextTests {
    @Test(arguments: [
        ("Bücher.Example", "xn--bcher-kva.example"), ("EXAMPLE.com", "example.com"), ("例子.广告", "xn--fsqu00a.xn--4rr70v"),
        ("ｅｘａｍｐｌｅ．ｃｏｍ", "example.com"), ("faß.de", "xn--fa-hia.de"),
    ])
    func domainsToASCII(_ domain: String, _ ascii: String) {
        #expect(IDNAConverter().toASCII(domain) == ascii)
    }

    @Test func invalidDomainsAreRejected() {
        #expect(IDNAConverter().toASCII("a..b") == nil)
        #expect(IDNAConverter().toASCII("-bad-.com") == nil)
    }

    @Test(arguments: [("Ｊｏｈｎ．Ｄｏｅ", "john.doe"), ("ﬁle", "file"), ("STRASSE", "strasse"), ("Straße", "strasse"), ("ÉLISE", "élise")])
    func nfkcCasefold(_ text: String, _ folded: String) {
        #expect(Casefold.nfkc(text) == folded)
    }
}
