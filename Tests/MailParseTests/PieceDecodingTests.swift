import Hashing
import JSONLines
import Testing
import UTF8Text
@testable import MailParse

/// A small generator with a seed, so that a failure can be run again.
private struct SplitMix: RandomNumberGenerator {
    var state: UInt64
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}

private let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/".utf8)

/// Base64 as mail carries it, well and badly: lines of any length ending in LF, CRLF or a lone
/// CR, spaces, padding in the middle (two streams glued), characters outside the alphabet.
private func messyBase64(_ rng: inout SplitMix, count: Int) -> [UInt8] {
    var out: [UInt8] = []
    var line = 0
    let width = [76, 72, 64, 4, 1, 200][Int.random(in: 0..<6, using: &rng)]
    while out.count < count {
        switch Int.random(in: 0..<100, using: &rng) {
        case 0: out += Array("=".utf8)
        case 1: out += Array("==".utf8)
        case 2: out.append(UInt8(ascii: " "))
        case 3: out.append(UInt8(ascii: "*"))
        case 4: out.append(0xE9)
        default: out.append(alphabet[Int.random(in: 0..<64, using: &rng)])
        }
        line += 1
        if line >= width {
            out += [[10], [13, 10], [13], [13, 13, 10]][Int.random(in: 0..<4, using: &rng)]
            line = 0
        }
    }
    return out
}

/// Quoted-printable with escapes (upper and lower case), soft breaks, malformed `=`, white space
/// before line ends, CRLF, LF and lone CRs, long lines.
private func messyQuotedPrintable(_ rng: inout SplitMix, count: Int) -> [UInt8] {
    let pieces: [[UInt8]] = ["=3D", "=C3=A9", "=e9", "=\r\n", "=\n", "=", "=G1", "=4", " ", "\t", " \r\n", "\t\n",
                             "\r\n", "\n", "\r", "x", "hello ", "==41", "= \r\n", "=\r"].map { Array($0.utf8) }
    var out: [UInt8] = []
    while out.count < count {
        if Int.random(in: 0..<3, using: &rng) == 0 {
            out += pieces[Int.random(in: 0..<pieces.count, using: &rng)]
        } else {
            out.append(UInt8.random(in: 0x21...0x7E, using: &rng))
        }
    }
    if Bool.random(using: &rng) { out += Array(String(repeating: " ", count: Int.random(in: 0..<300, using: &rng)).utf8) }
    return out
}

private func wholeAndPieces(_ encoding: TransferEncoding, _ input: [UInt8], pieceSize: Int) -> (whole: [UInt8], wholeDefects: [String], pieces: [UInt8], pieceDefects: [String]) {
    input.withUnsafeBytes { b in
        var wholeDefects: [String] = []
        let whole = encoding.decode(b, defects: &wholeDefects)
        var pieceDefects: [String] = []
        var pieces: [UInt8] = []
        encoding.decode(b, inPiecesOf: pieceSize, defects: &pieceDefects) { pieces += $0 }
        return (whole, wholeDefects, pieces, pieceDefects)
    }
}

/// Whether the bytes are equal; when not, where they first differ (the arrays are too long to print).
private func same(_ a: [UInt8], _ b: [UInt8]) -> Bool {
    guard a != b else { return true }
    let at = zip(a, b).enumerated().first { $0.element.0 != $0.element.1 }?.offset ?? min(a.count, b.count)
    Issue.record("\(a.count) and \(b.count) bytes, first different at \(at)")
    return false
}

@Suite struct PieceDecodingTests {
    @Test(arguments: [1, 2, 3, 4, 5, 7, 8, 9, 13, 64, 77, 1000])
    func base64InPiecesIsBase64Whole(pieceSize: Int) {
        var rng = SplitMix(state: UInt64(pieceSize))
        for round in 0..<60 {
            let input = messyBase64(&rng, count: Int.random(in: 0..<3000, using: &rng))
            let r = wholeAndPieces(.base64, input, pieceSize: pieceSize)
            #expect(same(r.pieces, r.whole), "round \(round)")
            #expect(r.pieceDefects == r.wholeDefects, "round \(round)")
        }
    }

    @Test(arguments: [1, 2, 3, 4, 5, 7, 8, 9, 13, 64, 77, 1000])
    func quotedPrintableInPiecesIsQuotedPrintableWhole(pieceSize: Int) {
        var rng = SplitMix(state: UInt64(pieceSize) << 8)
        for round in 0..<60 {
            let input = messyQuotedPrintable(&rng, count: Int.random(in: 0..<3000, using: &rng))
            let r = wholeAndPieces(.quotedPrintable, input, pieceSize: pieceSize)
            #expect(same(r.pieces, r.whole), "round \(round)")
        }
    }

    @Test func identityAndTextLabelledBase64InPieces() {
        var rng = SplitMix(state: 99)
        let bytes = (0..<5000).map { _ in UInt8.random(in: 0...255, using: &rng) }
        let identity = wholeAndPieces(.identity, bytes, pieceSize: 333)
        #expect(identity.pieces == bytes)
        // text labelled base64 by mistake stays as it is, with the same defect
        let text = Array(String(repeating: "not base64 at all, just words ", count: 200).utf8)
        let mislabelled = wholeAndPieces(.base64, text, pieceSize: 100)
        #expect(mislabelled.pieces == text)
        #expect(mislabelled.pieceDefects == ["invalid_base64"])
        #expect(mislabelled.wholeDefects == ["invalid_base64"])
    }

    /// A line longer than a piece with nowhere to cut but its end (spaces and `=` only) is one piece.
    @Test func quotedPrintableLineWithNoPlaceToCut() {
        let input = Array((String(repeating: " =", count: 500) + "  \r\nabc=\r\ndef").utf8)
        let r = wholeAndPieces(.quotedPrintable, input, pieceSize: 10)
        #expect(r.pieces == r.whole)
        var ends: [Int] = []
        input.withUnsafeBytes { b in
            var i = 0
            while i < b.count {
                i = QuotedPrintable.pieceEnd(b, from: i, size: 10)
                ends.append(i)
            }
        }
        #expect(ends.first == 1004)  // past the CRLF
    }
}

/// Keeps what it is given, up to a size.
private final class TestKeeper: AttachmentKeeper {
    let largestKept: Int?
    var kept: [[UInt8]] = []
    init(largestKept: Int?) { self.largestKept = largestKept }
    func keep(_ data: [UInt8], sha256: String, suggestedName: String?, contentType: String) throws -> String? {
        if let largestKept, data.count > largestKept { return nil }
        kept.append(data)
        return "/kept/\(kept.count)"
    }
}

@Suite struct LargeAttachmentTests {
    /// A PDF's start, so that the detected type says something, then random bytes past a piece.
    private static func content(seed: UInt64) -> [UInt8] {
        var rng = SplitMix(state: seed)
        return Array("%PDF-1.4\n".utf8) + (0..<(BodyWriter.pieceSize + 300_000)).map { _ in UInt8.random(in: 0...255, using: &rng) }
    }

    private static func base64(_ data: [UInt8], lineEnd: String, width: Int) -> String {
        let text = Array(UTF8Text.Base64.encode(data).utf8)
        var out: [UInt8] = []
        var i = 0
        while i < text.count {
            let end = width >= text.count - i ? text.count : i + width
            out += text[i..<end] + Array(lineEnd.utf8)
            i = end
        }
        return String(decoding: out, as: UTF8.self)
    }

    private static func quotedPrintable(_ data: [UInt8], lineEnd: String) -> String {
        var out: [UInt8] = []
        var line = 0
        for c in data {
            let literal = (c >= 33 && c <= 126 && c != UInt8(ascii: "=")) || c == 32
            let piece: [UInt8] = literal ? [c] : Array("=\(String(c, radix: 16, uppercase: true).count == 1 ? "0" : "")\(String(c, radix: 16, uppercase: true))".utf8)
            if line + piece.count > 75 {
                out += Array("=\(lineEnd)".utf8)
                line = 0
            }
            out += piece
            line += piece.count
        }
        return String(decoding: out, as: UTF8.self)
    }

    private static func message(_ encoding: String, _ body: String, lineEnd: String) -> [UInt8] {
        let head = ["From: a@example.com", "To: b@example.com", "Subject: big", "MIME-Version: 1.0",
                    "Content-Type: multipart/mixed; boundary=XX", "", "--XX", "Content-Type: text/plain", "", "hi",
                    "--XX", "Content-Type: application/octet-stream", "Content-Disposition: attachment; filename=big.pdf",
                    "Content-Transfer-Encoding: \(encoding)", "", ""].joined(separator: lineEnd)
        return Array((head + body + lineEnd + "--XX--" + lineEnd).utf8)
    }

    private static func attachment(_ message: [UInt8], keeper: TestKeeper) throws -> JSONValue {
        let converter = MessageConverter()
        converter.attachmentSaver = keeper
        let raw = RawMessage(bytes: message, source: MessageSource(path: "test", offset: 0, length: message.count, format: "eml"))
        let record = try JSONValue.parse(converter.record(for: raw).json)
        #expect(record["attachments"]?.count == 1)
        return record["attachments"]?[0] ?? .null
    }

    static let messages: [(String, [UInt8])] = {
        let data = content(seed: 45)
        return [
            ("base64 CRLF 76", message("base64", base64(data, lineEnd: "\r\n", width: 76), lineEnd: "\r\n")),
            ("base64 LF 64", message("base64", base64(data, lineEnd: "\n", width: 64), lineEnd: "\n")),
            ("base64 one line", message("base64", base64(data, lineEnd: "\n", width: .max), lineEnd: "\n")),
            ("quoted-printable CRLF", message("quoted-printable", quotedPrintable(data, lineEnd: "\r\n"), lineEnd: "\r\n")),
            ("quoted-printable LF", message("quoted-printable", quotedPrintable(data, lineEnd: "\n"), lineEnd: "\n")),
            ("binary", Array(message("binary", "", lineEnd: "\r\n").dropLast(10)) + data + Array("\r\n--XX--\r\n".utf8)),
        ]
    }()

    /// Read in pieces (the keeper keeps nothing that large), the attachment's record says what
    /// the whole bytes say; a keeper whose limit the bytes fit still gets them all.
    @Test(arguments: 0..<6)
    func pieceByPieceRecordIsTheWholeRecord(index: Int) throws {
        let (name, message) = Self.messages[index]
        let keepsAll = TestKeeper(largestKept: nil)
        let whole = try Self.attachment(message, keeper: keepsAll)
        #expect(keepsAll.kept.count == 1, "\(name)")
        let data = keepsAll.kept.first ?? []
        #expect(data.count > BodyWriter.pieceSize)
        #expect(whole["sha256"] == .string(SHA256.hex(data)), "\(name)")

        let keepsLittle = TestKeeper(largestKept: 1000)
        let pieces = try Self.attachment(message, keeper: keepsLittle)
        #expect(keepsLittle.kept.isEmpty)
        #expect(pieces["saved_as"] == .null, "\(name)")
        for field in ["sha256", "size", "detected_type", "filename", "content_type"] {
            #expect(pieces[field] == whole[field], "\(name): \(field)")
        }
        #expect(pieces["detected_type"] == .string("application/pdf"), "\(name)")

        let keepsEnough = TestKeeper(largestKept: data.count)
        let fits = try Self.attachment(message, keeper: keepsEnough)
        #expect(keepsEnough.kept == [data], "\(name)")
        #expect(fits["saved_as"] == .string("/kept/1"), "\(name)")
        #expect(fits["sha256"] == whole["sha256"], "\(name)")
    }
}
