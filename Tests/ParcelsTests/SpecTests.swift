import Testing
import UnicodeServices
@testable import Parcels

/// The carrier data built into the program, checked against itself.
@Suite struct BuiltInSpecs {
    let specs = CarrierSpecs.builtIn()

    @Test func everyFileInTheCarriersFolderIsBuiltIn() throws {
        let folder = String(#filePath.split(separator: "/").dropLast(3).joined(separator: "/"))
        let dir = "/" + folder + "/Sources/Parcels/carriers"
        let names = DataFilesProbe.jsonFiles(in: dir)
        #expect(!names.isEmpty)
        #expect(names.count == PackageResources.allFiles.count, "add new files of \(dir) to BuiltInData.swift")
    }

    /// The built-in patterns are compiled when first used, not when the data loads: each must
    /// compile (as a user's file is checked when it loads).
    @Test func everyBuiltInPatternCompiles() throws {
        #expect(specs.formats.count > 50)
        for f in specs.formats {
            for p in [f.search, f.verify] + (f.prepend.map { [$0.pattern] } ?? []) + f.required.flatMap(\.patterns) {
                _ = try TextPattern(p.pattern)
            }
        }
        #expect(throws: CarrierSpecs.SpecError.self) {
            try CarrierSpecs().add(json: Array(#"{"courier_code": "x", "tracking_numbers": [{"name": "X", "regex": "(unclosed"}]}"#.utf8))
        }
    }

    @Test func everyCarrierTheIssueNamesIsKnown() {
        let codes = Set(specs.formats.map(\.carrier))
        for code in ["ups", "usps", "fedex", "dhl", "amazon", "ontrac", "lasership", "s10", "tcat", "hct", "kerry_tj", "ecan",
                     "seven_eleven", "family_mart", "hilife", "ok_mart", "shopee_spx", "sf_express", "chunghwa_post", "pchome", "momo"] {
            #expect(codes.contains(code), "\(code)")
            #expect(!(specs.words[code] ?? []).isEmpty, "\(code) has no context words")
        }
    }

    /// Every spec's own test numbers: the valid ones pass their format, the invalid ones fail it.
    @Test func everyFormatAgreesWithItsOwnTestNumbers() throws {
        var checked = 0
        for file in PackageResources.allFiles {
            let root = try JSONValue.parse(file)
            let couriers = root["courier_code"] != nil ? [root] : (root["couriers"]?.arrayValue ?? [])
            for courier in couriers {
                for spec in courier["tracking_numbers"]?.arrayValue ?? [] {
                    let name = spec["name"]?.stringValue ?? ""
                    let format = try #require(specs.formats.first { $0.carrier == courier["courier_code"]?.stringValue && $0.name == name })
                    for number in spec["test_numbers"]?["valid"]?.arrayValue?.compactMap(\.stringValue) ?? [] {
                        let n = Array(number.filter { !$0.isWhitespace }.uppercased().utf16)
                        #expect(format.validate(n)?.valid == true, "\(format.carrier) \(name): \(number) should be valid")
                        checked += 1
                    }
                    for number in spec["test_numbers"]?["invalid"]?.arrayValue?.compactMap(\.stringValue) ?? [] {
                        let n = Array(number.filter { !$0.isWhitespace }.uppercased().utf16)
                        #expect(format.validate(n)?.valid != true, "\(format.carrier) \(name): \(number) should be invalid")
                        checked += 1
                    }
                }
            }
        }
        #expect(checked > 250)
    }
}

import JSONLines
#if canImport(Glibc)
import Glibc
#endif

enum DataFilesProbe {
    static func jsonFiles(in dir: String) -> [String] {
        guard let d = opendir(dir) else { return [] }
        defer { closedir(d) }
        var out: [String] = []
        while let e = readdir(d) {
            let name = withUnsafeBytes(of: e.pointee.d_name) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
            if name.hasSuffix(".json") { out.append(name) }
        }
        return out
    }
}

@Suite struct PatternLengths {
    @Test func whitespaceAnchorsAndLookaroundsCountNothing() {
        #expect(minimumMatchLength(#"\s*1\s*Z\s*(?<S>(?:[A-Z0-9]\s*){6,6})(?<C>[0-9]\s*)"#) == 9)
        #expect(minimumMatchLength(#"\b(?=[0-9]{3})(?<N>([0-9]\s*){9,10})\b"#) == 9)
        #expect(minimumMatchLength(#"(?:GM|LX)\s*(?<S>[0-9A-Z\s]{10,39})"#) == 12)
        #expect(minimumMatchLength(#"(4\s*2\s*0\s*)?9\s*[0-9]+"#) == 2)
        #expect(minimumMatchLength(#"J\s*(J\s*)?D\s*(?<S>([0-9]\s*){16})"#) == 18)
        #expect(minimumMatchLength(#"a(b|cd)e"#) == 3)
    }

    @Test func digitsCountOnlyWhereOnlyADigitMatches() {
        #expect(minimumDigitCount(#"\s*1\s*Z\s*(?<S>(?:[A-Z0-9]\s*){6,6})(?<C>[0-9]\s*)"#) == 2)  // 1 and the check digit
        #expect(minimumDigitCount(#"\b(?=[0-9]{3})(?<N>([0-9]\s*){9,10})\b"#) == 9)
        #expect(minimumDigitCount(#"(4\s*2\s*0\s*)?9\s*\d+"#) == 2)
        #expect(minimumDigitCount(#"[0-5][^0-9][0-9-][\d][1-9a]x."#) == 2)
        #expect(minimumDigitCount(#"(?:12|3)4"#) == 2)
    }

    @Test func unknownSyntaxGivesNoBound() {
        #expect(minimumMatchLength("a)") == nil)
        #expect(minimumMatchLength("(?P<x>a)") == nil)
    }

    @Test func everyBuiltInFormatHasABound() {
        for format in CarrierSpecs.builtIn().formats {
            #expect(format.minimumLength >= 8, "\(format.carrier) \(format.name): \(format.minimumLength)")
            #expect(format.minimumDigits <= format.minimumLength)
        }
    }
}
