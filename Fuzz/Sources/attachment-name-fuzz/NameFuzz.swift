#if canImport(Glibc)
import Glibc
#endif
import CFuzzer
import JSONLines
import MailParse

/// mime-parse's parameter and filename reader (RFC 2231 continuations and charsets, RFC 2047
/// words, quoted strings) and AttachmentSaver's safe names. The first byte chooses:
/// - even: the rest is the parameters of a part's Content-Disposition (before the first 0xFF)
///   and of its Content-Type (after it). The record must be JSON with that one attachment, and
///   its filename, whatever it is, must give a safe name that saves inside the folder.
/// - odd: the rest, as UTF-8 text, is a name; written as RFC 2231 pieces (cut where the bytes
///   say, percent-encoded or quoted by turns), it must read back as itself.
/// A crash, a hang (libFuzzer's -timeout) or a broken property aborts with the input saved.

nonisolated(unsafe) let converter = MessageConverter()
nonisolated(unsafe) let folder: String = {
    var template = Array("/tmp/attachment-name-fuzz-XXXXXX".utf8CString)
    return template.withUnsafeMutableBufferPointer { String(cString: mkdtemp($0.baseAddress!)) }
}()
nonisolated(unsafe) let saver = try! AttachmentSaver(directory: folder)

func fail(_ message: String) -> Never {
    let text = Array("attachment-name-fuzz: \(message)\n".utf8)
    _ = text.withUnsafeBytes { write(2, $0.baseAddress, $0.count) }
    abort()
}

/// The record's attachments of a message whose one part has these header lines.
func attachments(_ headerLines: [UInt8]) -> [JSONValue] {
    let message = Array("Content-Type: multipart/mixed; boundary=zz\n\n--zz\n".utf8) + headerLines + Array("\n\nxyz\n--zz--\n".utf8)
    let raw = RawMessage(bytes: message, source: MessageSource(path: "-", offset: 0, length: message.count, format: "eml"))
    guard case .object(let members)? = try? JSONValue.parse(converter.record(for: raw).json) else { fail("the record is not a JSON object") }
    guard case .array(let list)? = members.first(where: { $0.0 == "attachments" })?.1 else { fail("no attachments array") }
    return list
}

func member(_ value: JSONValue, _ name: String) -> JSONValue? {
    guard case .object(let members) = value else { return nil }
    return members.first { $0.0 == name }?.1
}

/// Header bytes cannot hold a line break that does not fold: one becomes a space.
func oneLine(_ bytes: ArraySlice<UInt8>) -> [UInt8] {
    bytes.map { $0 == 0x0A || $0 == 0x0D ? 0x20 : $0 }
}

func readParameters(_ input: ArraySlice<UInt8>) {
    let cut = input.firstIndex(of: 0xFF) ?? input.endIndex
    let disposition = oneLine(input[..<cut])
    let type = cut < input.endIndex ? oneLine(input[(cut + 1)...]) : []
    let lines = Array("Content-Type: application/x-fuzz; ".utf8) + type + Array("\nContent-Disposition: attachment; ".utf8) + disposition
    let list = attachments(lines)
    guard list.count == 1 else { fail("\(list.count) attachments, not 1") }
    let name = member(list[0], "filename")?.stringValue
    let safe = AttachmentSaver.safeName(name, contentType: "application/x-fuzz")
    if safe.isEmpty || safe.contains("/") || safe.hasPrefix(".") || safe.utf8.count > 200
        || safe.unicodeScalars.contains(where: { $0.value < 0x20 || (0x7F...0x9F).contains($0.value) }) {
        fail("unsafe name \(safe.debugDescription) of \(name.debugDescription ?? "nil")")
    }
    guard let path = try? saver.save([], suggestedName: name, contentType: "application/x-fuzz") else { fail("cannot save \(safe.debugDescription)") }
    let prefix = Array((folder + "/").utf8)
    if Array(path.utf8.prefix(prefix.count)) != prefix || path.utf8.dropFirst(prefix.count).contains(UInt8(ascii: "/")) {
        fail("saved outside the folder: \(path.debugDescription)")
    }
    unlink(path)
}

/// `name` as RFC 2231 pieces: cut at the lengths `cuts` gives, each piece percent-encoded or
/// quoted by turns (a quoted piece holds only what a quoted string can), charset UTF-8.
func roundTrip(_ input: ArraySlice<UInt8>) {
    guard let split = input.firstIndex(of: 0xFF) else { return }
    let text = String(decoding: input[(split + 1)...], as: UTF8.self)
    // what a name cannot say: white space at its ends is trimmed, an encoded word is decoded
    let name = String(text.unicodeScalars.filter { $0.value >= 0x20 && $0.value != 0x7F }.map(Character.init))
    let bytes = Array(name.utf8)
    guard !bytes.isEmpty, bytes.first != 0x20, bytes.last != 0x20, !name.contains("=?") else { return }
    var cuts = Array(input[input.startIndex..<split]).map { Int($0 % 16) + 1 }
    if cuts.isEmpty { cuts = [bytes.count] }
    var pieces: [String] = []
    var start = 0
    var k = 0
    while start < bytes.count {
        let end = min(bytes.count, start + cuts[k % cuts.count])
        let piece = bytes[start..<end]
        let printable = piece.allSatisfy { $0 >= 0x20 && $0 < 0x7F }
        if k % 2 == 1 && printable {
            let quoted = piece.flatMap { $0 == UInt8(ascii: "\"") || $0 == UInt8(ascii: "\\") ? [UInt8(ascii: "\\"), $0] : [$0] }
            pieces.append("filename*\(k)=\"\(String(decoding: quoted, as: UTF8.self))\"")
        } else {
            let encoded = piece.map { b -> String in
                let hex = Array("0123456789ABCDEF".utf8)
                return "%" + String(decoding: [hex[Int(b >> 4)], hex[Int(b & 15)]], as: UTF8.self)
            }.joined()
            pieces.append("filename*\(k)*=\(k == 0 ? "UTF-8''" : "")\(encoded)")
        }
        start = end
        k += 1
    }
    let lines = Array("Content-Type: application/x-fuzz\nContent-Disposition: attachment;\n ".utf8) + Array(pieces.joined(separator: ";\n ").utf8)
    let list = attachments(lines)
    guard list.count == 1 else { fail("\(list.count) attachments, not 1") }
    let got = member(list[0], "filename")?.stringValue
    if got != name { fail("\(name.debugDescription) written as\n\(pieces.joined(separator: ";\n"))\nread back as \(got.debugDescription ?? "nil")") }
}

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzOnce(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    let input = Array(UnsafeBufferPointer(start: data, count: size))
    guard let first = input.first else { return 0 }
    if first % 2 == 0 { readParameters(input[1...]) } else { roundTrip(input[1...]) }
    return 0
}

/// SwiftPM links an executable's main under this name, and libFuzzer brings a main of its own
/// (the link allows both): either way the command line goes to libFuzzer's driver.
@_cdecl("attachment_name_fuzz_main")
func fuzzMain(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> CInt {
    var argc = argc
    var argv = argv
    return LLVMFuzzerRunDriver(&argc, &argv) { data, size in fuzzOnce(data, size) }
}
