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

    @Test func matchesEscapedKeys() throws {
        let r = try JSONRecord(#"{"\u0061b":5}"#)
        #expect(r.value("ab") == .number("5"))
    }

    @Test func stringPrefixStopsAtACharacterBoundary() throws {
        let r = try JSONRecord(#"{"t":"ab\ncdé日本語 end","n":1}"#)
        #expect(r.stringPrefix("t", maxBytes: 100) == "ab\ncdé日本語 end")
        #expect(r.stringPrefix("t", maxBytes: 3) == "ab\n")
        #expect(r.stringPrefix("t", maxBytes: 6) == "ab\ncdé")  // é is two bytes: kept whole
        #expect(r.stringPrefix("t", maxBytes: 8) == "ab\ncdé日")
        #expect(r.stringPrefix("n", maxBytes: 8) == nil)
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

    @Test func roundTripsThroughTheScanner() throws {
        var w = JSONWriter()
        let nasty = String(decoding: (0..<128).map { UInt8($0) }, as: UTF8.self) + "日本語"
        w.beginObject()
        w.field("x", nasty)
        w.endObject()
        #expect(try JSONRecord(w.bytes).string("x") == nasty)
    }
}
