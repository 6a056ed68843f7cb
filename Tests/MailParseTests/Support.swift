import Glibc
import JSONLines
@testable import MailParse

/// Parses one message given as text (LF line ends unless the text has CRLF) into its record.
func record(_ message: String) throws -> JSONValue {
    try record(bytes: Array(message.utf8))
}

func record(bytes: [UInt8]) throws -> JSONValue {
    let converter = MessageConverter()
    let raw = RawMessage(bytes: bytes, source: MessageSource(path: "test", offset: 0, length: bytes.count, format: "eml"))
    return try JSONValue.parse(converter.record(for: raw).json)
}

/// Reads `data` as a mailbox of the given format and returns every record.
func records(ofMailbox data: [UInt8], format: MailboxFormat? = nil) throws -> [JSONValue] {
    let path = try temporaryFile(data)
    defer { unlink(path) }
    let fd = open(path, O_RDONLY)
    defer { close(fd) }
    let converter = MessageConverter()
    var out: [JSONValue] = []
    try MailboxInput.read(fd: fd, path: path, isDirectory: false, format: format,
                          message: { out.append(try JSONValue.parse(converter.record(for: $0).json)) },
                          bad: { _ in out.append(.null) })
    return out
}

func temporaryFile(_ data: [UInt8]) throws -> String {
    var template = Array("/tmp/mailpipe-test-XXXXXX".utf8CString)
    let fd = template.withUnsafeMutableBufferPointer { mkstemp($0.baseAddress!) }
    _ = data.withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
    close(fd)
    return String(cString: template)
}

func temporaryDirectory() -> String {
    var template = Array("/tmp/mailpipe-dir-XXXXXX".utf8CString)
    _ = template.withUnsafeMutableBufferPointer { mkdtemp($0.baseAddress!) }
    return String(cString: template)
}

extension JSONValue {
    subscript(index: Int) -> JSONValue? { arrayValue.flatMap { index < $0.count ? $0[index] : nil } }
    var strings: [String] { arrayValue?.compactMap(\.stringValue) ?? [] }
    var count: Int { arrayValue?.count ?? 0 }
}
