import Testing
@testable import JSONLines

@Suite struct JSONRecordTests {
    @Test func indexesMembersAndReadsFields() throws {
        let r = try JSONRecord(#"{"a": 1.50e+3, "b":"x\ny\u00e9\ud83d\ude00", "c":[1,{"d":null}], "e":true}"#)
        #expect(r.keys == ["a", "b", "c", "e"])
        #expect(r.rawValue("a").map { String(decoding: $0, as: UTF8.self) } == "1.50e+3")
        #expect(r.string("b") == "x\nyé😀")
        #expect(r.value("c") == .array([.number("1"), .object([("d", .null)])]))
        #expect(r.value("e") == .bool(true))
        #expect(r.value("missing") == nil)
    }

    @Test(arguments: [
        #"{"a":1,}"#, #"{"a":01}"#, #"{"a":"\x"}"#, "{\"a\":\"tab\there\"}", #"[1,2]"#, #"{"a":1} x"#,
        #"{"a":tru}"#, #"{"a" 1}"#, #"{"a":"unterminated}"#, #"{"a":-}"#, #"{"a":1.}"#, #"{"a":.5}"#,
    ])
    func rejectsInvalidJSON(_ text: String) {
        #expect(throws: JSONError.self) { try JSONRecord(text) }
    }

    @Test func rejectsInvalidUTF8() throws {
        let bytes: [UInt8] = Array(#"{"a":""#.utf8) + [0xC3, 0x28] + Array(#""}"#.utf8)
        #expect(throws: JSONError.self) { try JSONRecord(bytes) }
        let overlong: [UInt8] = Array(#"{"a":""#.utf8) + [0xE0, 0x80, 0xAF] + Array(#""}"#.utf8)
        #expect(throws: JSONError.self) { try JSONRecord(overlong) }
        // a bad byte inside a run of CJK text, and a run that ends the string
        let inRun: [UInt8] = Array(#"{"a":"日本"#.utf8) + [0xE8, 0x41] + Array(#"語"}"#.utf8)
        #expect(throws: JSONError.self) { try JSONRecord(inRun) }
        let cut: [UInt8] = Array(#"{"a":"日本"#.utf8) + [0xE8, 0xAA] + Array(#""}"#.utf8)
        #expect(throws: JSONError.self) { try JSONRecord(cut) }
        #expect(try JSONRecord(#"{"a":"日本語","b":"é"}"#).string("a") == "日本語")
    }

    @Test func aStringIsWellFormedUTF8ExactlyWhenTheStandardLibrarySaysSo() {
        // every string of one to three well-formed and ill-formed sequences, at the start of the
        // scanner's 16-byte blocks and across their edges, against Swift's own decoder
        let pieces: [[UInt8]] = ["x", "é", "߿", "日", "\u{FFFF}", "😀", "\u{10FFFF}"].map { Array($0.utf8) }
            + [[0x80], [0xC1, 0xBF], [0xC2], [0xE0, 0x9F, 0xBF], [0xED, 0xA0, 0x80], [0xE6, 0x97], [0xF0, 0x8F, 0xBF, 0xBF],
               [0xF4, 0x90, 0x80, 0x80], [0xF0, 0x9F, 0x98], [0xF5, 0x80, 0x80, 0x80], [0xFF]]
        var texts = pieces
        texts += texts.flatMap { a in pieces.map { a + $0 } }
        texts += pieces.flatMap { a in pieces.flatMap { b in pieces.map { a + b + $0 } } }
        for text in texts {
            let wellFormed = String(validating: text, as: UTF8.self) != nil
            for lead in [0, 13] {
                let line = Array(#"{"a":""#.utf8) + Array(repeating: UInt8(ascii: "x"), count: lead) + text + Array(#""}"#.utf8)
                #expect(((try? JSONRecord(line)) != nil) == wellFormed, "\(text)")
            }
        }
    }

    @Test func aStringIsCheckedAtEveryPlaceOfItsFastPath() throws {
        // the scanner passes over 16 plain ASCII bytes at a time: a byte it must stop at is
        // found at every offset, before, inside and after a block, and in the last bytes
        for length in 1..<40 {
            for place in 0..<length {
                func line(_ stop: [UInt8]) -> [UInt8] {
                    var text = [UInt8](repeating: UInt8(ascii: "x"), count: length)
                    text.replaceSubrange(place...place, with: stop)
                    return Array(#"{"a":""#.utf8) + text + Array(#""}"#.utf8)
                }
                #expect(throws: JSONError.self) { try JSONRecord(line([0x09])) }
                #expect(throws: JSONError.self) { try JSONRecord(line([0x7F, 0xFF])) }
                #expect(throws: JSONError.self) { try JSONRecord(line([0x22])) }  // a quote ends it early
                #expect(try JSONRecord(line([0x7E])).string("a")?.count == length)
                #expect(try JSONRecord(line(Array("é".utf8))).string("a")?.count == length)
                #expect(try JSONRecord(line([0x5C, 0x6E])).string("a")?.count == length)  // an escaped line feed
            }
        }
    }

    @Test func findsTheMembersOfAnObjectMemberWithoutDecodingThem() throws {
        let r = try JSONRecord(#"{"headers":{"list-id":["<a.b>"],"x":{"list-unsubscribe":1}},"n":{"\u006cist-id":null},"s":"list-id"}"#)
        #expect(r.object("headers", hasMemberNamed: "list-id", "list-unsubscribe"))
        #expect(!r.object("headers", hasMemberNamed: "list-unsubscribe"))  // only at its own level
        #expect(r.object("n", hasMemberNamed: "list-id"))  // a key as escaped
        #expect(!r.object("s", hasMemberNamed: "list-id"))  // not an object
        #expect(!r.object("missing", hasMemberNamed: "list-id"))
        // quotes and backslashes inside values: `"list-id":` written in a value is no member
        let q = try JSONRecord(#"{"headers":{"a":["\\", "x \"list-id\": y\\"], "b" : [] , "list-unsubscribe" :["<u>"]}}"#)
        #expect(!q.object("headers", hasMemberNamed: "list-id"))
        #expect(q.object("headers", hasMemberNamed: "list-unsubscribe"))
    }

    @Test func errorSaysWhere() {
        do {
            _ = try JSONRecord(#"{"a":1,"b":?}"#)
            Issue.record("no error")
        } catch {
            #expect(error.offset == 11)
        }
    }

    @Test func appendsNewFieldsWithoutTouchingOthers() throws {
        let line = #"{"z": 1.0 , "a":"é\u0041"}"#
        let r = try JSONRecord(line)
        let out = String(decoding: r.updated([("new", Array("[1]".utf8))]), as: UTF8.self)
        #expect(out == #"{"z": 1.0 , "a":"é\u0041","new":[1]}"#)
    }

    @Test func replacesInPlaceAndRemoves() throws {
        let r = try JSONRecord(#"{"a":1,"b":2,"c":3}"#)
        let out = String(decoding: r.updated([("b", Array("\"x\"".utf8)), ("c", nil), ("d", Array("4".utf8))]), as: UTF8.self)
        #expect(out == #"{"a":1,"b":"x","d":4}"#)
    }

    /// Found by fuzzing newsletter-detect: a second run, which replaces its fields, dropped the
    /// whitespace between the members it left alone, so running a filter twice changed bytes.
    @Test func replacingKeepsEveryByteBetweenTheMembersLeftAlone() throws {
        let line = "{\"from\":{\"a\":\"x\"\r\r},\"l\":[]\t,\"k\" : 1 ,\"z,\":\"a,b\" }"
        let r = try JSONRecord(line)
        let once = r.updated([("k", Array("2".utf8)), ("n", Array("3".utf8))])
        #expect(String(decoding: once, as: UTF8.self) == "{\"from\":{\"a\":\"x\"\r\r},\"l\":[]\t,\"k\" : 2 ,\"z,\":\"a,b\" ,\"n\":3}")
        let twice = try JSONRecord(once).updated([("k", Array("2".utf8)), ("n", Array("3".utf8))])
        #expect(twice == once)
        // removing the first member takes the comma after it; removing any other, the one before
        let first = try JSONRecord(line).updated([("from", nil)])
        #expect(String(decoding: first, as: UTF8.self) == "{\"l\":[]\t,\"k\" : 1 ,\"z,\":\"a,b\" }")
        let middle = try JSONRecord(line).updated([("k", nil), ("z,", nil)])
        #expect(String(decoding: middle, as: UTF8.self) == "{\"from\":{\"a\":\"x\"\r\r},\"l\":[] }")
        let all = try JSONRecord(line).updated([("from", nil), ("l", nil), ("k", nil), ("z,", nil), ("n", Array("1".utf8))])
        #expect(String(decoding: all, as: UTF8.self) == "{ \"n\":1}")
        for out in [once, first, middle, all] { _ = try JSONRecord(out) }
    }

    @Test func matchesEscapedKeys() throws {
        let r = try JSONRecord(#"{"\u0061b":5}"#)
        #expect(r.value("ab") == .number("5"))
        // replaced where they are, as written; a key as long as another is not it
        let r2 = try JSONRecord(#"{"\u0061b":5,"":1,"ac":2}"#)
        let out = r2.updated([("ab", Array("6".utf8)), ("", Array("7".utf8)), ("ad", Array("8".utf8))])
        #expect(String(decoding: out, as: UTF8.self) == #"{"\u0061b":6,"":7,"ac":2,"ad":8}"#)
    }

    @Test func stringPrefixStopsAtACharacterBoundary() throws {
        let r = try JSONRecord(#"{"t":"ab\ncdé日本語 end","n":1}"#)
        #expect(r.stringPrefix("t", maxBytes: 100) == "ab\ncdé日本語 end")
        #expect(r.stringPrefix("t", maxBytes: 3) == "ab\n")
        #expect(r.stringPrefix("t", maxBytes: 6) == "ab\ncdé")  // é is two bytes: kept whole
        #expect(r.stringPrefix("t", maxBytes: 8) == "ab\ncdé日")
        #expect(r.stringPrefix("n", maxBytes: 8) == nil)
    }

    @Test(arguments: [
        (#""""#, ""), (#""\/\\\"\b\f\n\r\t""#, "/\\\"\u{8}\u{C}\n\r\t"), (#""\u00e9\u65E5\u0000x""#, "é日\u{0}x"),
        (#""\ud83d\ude00""#, "😀"), (#""a\ud83d""#, "a\u{FFFD}"), (#""\ud83dx""#, "\u{FFFD}x"),
        (#""\ud83d\u0041""#, "\u{FFFD}A"), (#""\ude00\ud83d\ud83d\ude00""#, "\u{FFFD}\u{FFFD}😀"),
        (#""plain text long enough for whole words\n""#, "plain text long enough for whole words\n"),
    ])
    func stringBytesDecodesEveryEscape(json: String, expected: String) throws {
        let r = try JSONRecord(#"{"s":"# + json + "}")
        #expect(r.stringBytes("s") == Array(expected.utf8))
        // as the decoder that stops at a length does
        #expect(r.stringPrefix("s", maxBytes: .max - 1) == expected)
    }

    @Test func emptyObject() throws {
        let r = try JSONRecord("{}")
        #expect(String(decoding: r.updated([("a", Array("1".utf8))]), as: UTF8.self) == #"{"a":1}"#)
    }
}

@Suite struct JSONWriterTests {
    @Test func escapesMinimally() {
        var w = JSONWriter()
        w.beginObject()
        w.field("s", "quote\" back\\ nl\n tab\t bell\u{7} é 😀 long-ascii-run-to-cross-the-word-boundary")
        w.field("n", 42)
        w.key("a")
        w.beginArray()
        w.null()
        w.bool(false)
        w.endArray()
        w.endObject()
        let text = String(decoding: w.bytes, as: UTF8.self)
        #expect(text == #"{"s":"quote\" back\\ nl\n tab\t bell\u0007 é 😀 long-ascii-run-to-cross-the-word-boundary","n":42,"a":[null,false]}"#)
    }

    /// Against a byte-at-a-time escaper: strings of pieces that need escaping, multi-byte
    /// characters (whose bytes of 0x80 and up make the word test flag the byte above them), and
    /// runs long and short, to lengths past the 512-byte buffer the writer gathers output in.
    @Test func escapesAsAPlainEscaperDoes() throws {
        let hex = Array("0123456789abcdef".utf8)
        func plain(_ s: [UInt8]) -> [UInt8] {
            var out: [UInt8] = [0x22]
            for c in s {
                switch c {
                case 0x22, 0x5C: out += [0x5C, c]
                case 0x0A: out += Array(#"\n"#.utf8)
                case 0x0D: out += Array(#"\r"#.utf8)
                case 0x09: out += Array(#"\t"#.utf8)
                case 0..<0x20: out += Array(#"\u00"#.utf8) + [hex[Int(c >> 4)], hex[Int(c & 15)]]
                default: out.append(c)
                }
            }
            return out + [0x22]
        }
        let pieces = ["\"", "\\", "\n", "\u{1}", "\t", "é ", "日本", "😀", "\u{80}\u{20}", "a", " ", String(repeating: "x", count: 300),
                      String(repeating: "y", count: 9)].map { Array($0.utf8) }
        var seed: UInt64 = 3
        for length in stride(from: 0, to: 1_300, by: 7) {
            var s: [UInt8] = []
            while s.count < length {
                seed = seed &* 6364136223846793005 &+ 1442695040888963407
                s += pieces[Int(seed >> 33) % pieces.count]
            }
            var out: [UInt8] = []
            s.withUnsafeBytes { JSONWriter.appendString(utf8: $0, to: &out) }
            #expect(out == plain(s), "length \(s.count)")
            // and read back: the scanner and the decoder jump to the first escape of a word too
            let record = try JSONRecord(Array(#"{"s":"#.utf8) + out + Array("}".utf8))
            #expect(record.stringBytes("s") == s, "length \(s.count)")
            var control = out
            control.insert(0x01, at: 1 + s.count / 2)  // a raw control character anywhere is refused
            #expect(throws: JSONError.self) { try JSONRecord(Array(#"{"s":"#.utf8) + control + Array("}".utf8)) }
        }
    }

    @Test func roundTripsThroughTheScanner() throws {
        var w = JSONWriter()
        let nasty = String(decoding: (0..<128).map { UInt8($0) }, as: UTF8.self) + "日本語"
        w.beginObject()
        w.field("x", nasty)
        w.endObject()
        #expect(try JSONRecord(w.bytes).string("x") == nasty)
    }
}

