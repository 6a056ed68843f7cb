#if canImport(Glibc)
import Glibc
#endif
import Hashing
import JSONLines
import MailParse
import SQLite
import Testing
@testable import MailStore

/// A message with one attachment `data` named `filename`, base64 encoded.
private func message(_ id: String, filename: String, data: [UInt8], gmailID: String? = nil) -> [UInt8] {
    let encoded = base64(data)
    let text = """
        From: Alex <alex@example.com>\r
        To: me@example.org\r
        Subject: files\r
        Date: Mon, 2 Mar 2026 10:00:00 +0000\r
        Message-ID: <\(id)>\r
        MIME-Version: 1.0\r
        Content-Type: multipart/mixed; boundary="b"\r
        \r
        --b\r
        Content-Type: text/plain\r
        \r
        Here it is.\r
        --b\r
        Content-Type: application/octet-stream\r
        Content-Disposition: attachment; filename="\(filename)"\r
        Content-Transfer-Encoding: base64\r
        \r
        \(encoded)\r
        --b--\r

        """
    return Array(text.utf8)
}

private func base64(_ data: [UInt8]) -> String {
    let digits = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/".utf8)
    var out: [UInt8] = []
    var i = 0
    while i < data.count {
        let n = min(3, data.count - i)
        let b = (Int(data[i]) << 16) | (n > 1 ? Int(data[i + 1]) << 8 : 0) | (n > 2 ? Int(data[i + 2]) : 0)
        out += [digits[b >> 18 & 63], digits[b >> 12 & 63], n > 1 ? digits[b >> 6 & 63] : 61, n > 2 ? digits[b & 63] : 61]
        i += 3
        if out.count % 77 == 76 { out += Array("\r\n".utf8) }
    }
    return String(decoding: out, as: UTF8.self)
}

/// The record the store's delivery makes of `bytes`: MailParse keeps its attachments in the
/// store's folder, as `mailstore deliver` has it do.
private func converted(_ bytes: [UInt8], keeper: AttachmentKeeper, gmailID: String? = nil) throws -> JSONRecord {
    let converter = MessageConverter()
    converter.attachmentSaver = keeper
    let raw = RawMessage(bytes: bytes, source: MessageSource(path: "test", offset: 0, length: bytes.count, format: "eml"))
    let record = try JSONRecord(converter.record(for: raw).json)
    guard let gmailID else { return record }
    return try JSONRecord(record.updated([("gmail_id", Array("\"\(gmailID)\"".utf8))]))
}

private func files(in folder: String) -> [String] {
    guard let dir = opendir(folder) else { return [] }
    defer { closedir(dir) }
    var names: [String] = []
    while let entry = readdir(dir) {
        let name = withUnsafeBytes(of: entry.pointee.d_name) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
        if name != "." && name != ".." { names.append(name) }
    }
    return names.sorted()
}

private func mode(_ path: String) -> mode_t {
    var st = stat()
    return stat(path, &st) == 0 ? st.st_mode & 0o7777 : 0
}

private func rows(_ tmp: TemporaryStore) throws -> [(part: String?, sha: String?, kept: Int)] {
    let db = try Database(path: tmp.path, mode: .readOnly)
    defer { db.close() }
    var out: [(String?, String?, Int)] = []
    try db.query("SELECT part, sha256, kept FROM attachments ORDER BY message, position") { out.append(($0.text(0), $0.text(1), $0.integer(2))) }
    return out
}

private func attachment(_ record: JSONRecord) -> JSONValue? { record.value("attachments")?.arrayValue?.first }

private let pdf = Array("%PDF-1.4 a trail map\n".utf8) + (0..<3000).map { UInt8(truncatingIfNeeded: $0 &* 7) }

@Test func theSameFileIsKeptOnceForTwoMessagesReadableByTheUserAlone() throws {
    let tmp = TemporaryStore()
    let store = try tmp.open()
    let first = try converted(message("a@x", filename: "trail.pdf", data: pdf), keeper: store.attachments)
    let second = try converted(message("b@x", filename: "copy.pdf", data: pdf), keeper: store.attachments)
    #expect(try store.batch { try store.add(first) } == .added)
    #expect(try store.batch { try store.add(second) } == .added)
    let sha = SHA256.hex(pdf)
    #expect(files(in: store.attachments.path) == [".lock", sha])
    #expect(mode(store.attachments.path) == 0o700)
    #expect(mode(store.attachments.file(sha)) == 0o600)
    #expect(attachment(first)?["saved_as"]?.stringValue == store.attachments.file(sha))
    #expect(store.attachments.path == tmp.path + ".attachments")
    let listed = try rows(tmp)
    #expect(listed.count == 2 && listed.allSatisfy { $0.part == "2" && $0.sha == sha && $0.kept == 1 })
    // the same record again: nothing changes, nothing is written
    #expect(try store.batch { try store.add(first) } == .unchanged)
    try store.close()
}

@Test func anAttachmentOverTheCapIsListedNotKept() throws {
    let tmp = TemporaryStore()
    let store = try tmp.open()
    store.attachments.maxBytes = 1000
    let r = try converted(message("a@x", filename: "big.pdf", data: pdf), keeper: store.attachments)
    #expect(attachment(r)?["saved_as"] == .null)
    #expect(try store.batch { try store.add(r) } == .added)
    #expect(try rows(tmp).map(\.kept) == [0])
    #expect(!files(in: store.attachments.path).contains(SHA256.hex(pdf)))
    guard case .found(let a) = try store.attachment(messageID: "a@x", part: "2") else { Issue.record("not listed"); return }
    #expect(!a.kept && a.file == nil && a.size == pdf.count)
    try store.close()
}

@Test func hostileNamesAndDigestsNeverBecomePaths() throws {
    let tmp = TemporaryStore()
    let store = try tmp.open()
    let r = try converted(message("a@x", filename: "../../../tmp/evil\u{01}.sh", data: pdf), keeper: store.attachments)
    _ = try store.batch { try store.add(r) }
    #expect(files(in: store.attachments.path) == [".lock", SHA256.hex(pdf)])
    // a digest that is a path is never written, nor copied in
    #expect(try store.attachments.keep(pdf, sha256: "../../x", suggestedName: "x", contentType: "text/plain") == nil)
    let forged = try JSONRecord(#"{"id":"f@x","date":"2026-03-02T01:00:00Z","from":{"name":null,"address":"alex@example.com"},"to":[],"cc":[],"subject":"s","text":"","attachments":[{"filename":"p","content_type":"text/plain","size":1,"sha256":"../../../etc/passwd","part":"2","saved_as":"/etc/passwd"}]}"#)
    _ = try store.batch { try store.add(forged) }
    #expect(files(in: store.attachments.path) == [".lock", SHA256.hex(pdf)])
    #expect(try rows(tmp).last?.kept == 0)
    try store.close()
}

@Test func aFileGoesWhenTheLastMessageThatCarriesItIsDeleted() throws {
    let tmp = TemporaryStore()
    let store = try tmp.open()
    let sha = SHA256.hex(pdf)
    for (id, gmail) in [("a@x", "g1"), ("b@x", "g2")] {
        let r = try converted(message(id, filename: "t.pdf", data: pdf), keeper: store.attachments, gmailID: gmail)
        _ = try store.batch { try store.add(r) }
    }
    func deleted(_ gmailID: String) throws {
        try store.applyGmailResponses([try JSONValue.parse(Array(#"{"history":[{"id":"10","messagesDeleted":[{"message":{"id":"\#(gmailID)"}}]}],"historyId":"10"}"#.utf8))], full: false)
    }
    try deleted("g1")
    #expect(files(in: store.attachments.path).contains(sha))
    try deleted("g2")
    #expect(!files(in: store.attachments.path).contains(sha))
    #expect(try rows(tmp).isEmpty)
    try store.close()
}

@Test func whatAKilledRunKeptIsSweptAndAKeeperHoldsRemovalOff() throws {
    let tmp = TemporaryStore()
    let store = try tmp.open()
    let orphan = Array("kept, never committed".utf8)
    #expect(try store.attachments.keep(orphan, sha256: SHA256.hex(orphan), suggestedName: nil, contentType: "text/plain") != nil)
    let stale = store.attachments.path + "/.tmp-1-2"
    close(open(stale, O_WRONLY | O_CREAT, 0o600))
    // another process keeping a file for its transaction holds removal off
    let other = AttachmentFolder(database: tmp.path)
    let held = Array("another writer's".utf8)
    _ = try other.keep(held, sha256: SHA256.hex(held), suggestedName: nil, contentType: "text/plain")
    store.attachments.release()
    #expect(try store.removeUnreferencedAttachments() == 0)
    other.release()
    #expect(try store.removeUnreferencedAttachments() == 3)
    #expect(files(in: store.attachments.path) == [".lock"])
    try store.close()
}

@Test func aFolderOthersCanWriteInIsRefused() throws {
    let tmp = TemporaryStore()
    let store = try tmp.open()
    let folder = store.attachments
    mkdir(folder.path, 0o700)
    chmod(folder.path, 0o777)
    #expect(throws: AttachmentFolder.Failed.self) { try AttachmentFolder(database: tmp.path).keep(pdf, sha256: SHA256.hex(pdf), suggestedName: nil, contentType: "x/y") }
    // a delivery that could not keep an attachment is tried again, not stored without it
    let r = try converted(message("a@x", filename: "t.pdf", data: pdf), keeper: folder)
    #expect(attachment(r)?["saved_as"] == .null)
    #expect(throws: StoreError.self) { try store.deliver(r, journal: nil, meAuto: false) }
    #expect(try rows(tmp).isEmpty)
    chmod(folder.path, 0o700)
    try store.close()
}

@Test func savedFilesAreCopiedInOnlyWhenTheyHoldTheirBytes() throws {
    let tmp = TemporaryStore()
    let store = try tmp.open()
    let saved = tmp.folder + "/trail.pdf", wrong = tmp.folder + "/other.pdf"
    for (path, bytes) in [(saved, pdf), (wrong, Array("not the bytes".utf8))] {
        let fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
        _ = bytes.withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
        close(fd)
    }
    defer { unlink(saved); unlink(wrong) }
    let other = Array("other attachment".utf8)
    func saving(_ id: String, _ data: [UInt8], at path: String) throws -> JSONRecord {
        try JSONRecord(#"{"id":"\#(id)","date":"2026-03-02T01:00:00Z","from":{"name":null,"address":"alex@example.com"},"to":[],"cc":[],"subject":"s","text":"","attachments":[{"filename":"t.pdf","content_type":"application/pdf","size":\#(data.count),"sha256":"\#(SHA256.hex(data))","part":"2","saved_as":"\#(path)"}]}"#)
    }
    _ = try store.batch { try store.add(try saving("a@x", pdf, at: saved)) }
    _ = try store.batch { try store.add(try saving("b@x", other, at: wrong)) }
    #expect(try rows(tmp).map(\.kept) == [1, 0])
    #expect(files(in: store.attachments.path) == [".lock", SHA256.hex(pdf)])
    guard case .found(let a) = try store.attachment(messageID: "a@x", part: "#0"), let file = a.file else { Issue.record("not kept"); return }
    #expect(file == store.attachments.file(SHA256.hex(pdf)))
    try store.close()
}

@Test func aStoreOfSchema7KeepsTheFilesItsRecordsStillHave() throws {
    let tmp = TemporaryStore()
    var store = try tmp.open()
    let saved = tmp.folder + "/trail.pdf"
    let fd = open(saved, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
    _ = pdf.withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
    close(fd)
    defer { unlink(saved) }
    // stored as schema 7 left it: a record naming mime-parse's file, no rows
    let line = #"{"id":"a@x","date":"2026-03-02T01:00:00Z","from":{"name":null,"address":"alex@example.com"},"to":[],"cc":[],"subject":"s","text":"","attachments":[{"filename":"t.pdf","content_type":"application/pdf","size":\#(pdf.count),"sha256":"\#(SHA256.hex(pdf))","part":"2","saved_as":"\#(saved)"},{"filename":"gone.txt","content_type":"text/plain","size":4,"sha256":"\#(SHA256.hex(Array("gone".utf8)))","part":"3","saved_as":"/nonexistent/gone.txt"}]}"#
    _ = try store.batch { try store.add(try JSONRecord(#"{"id":"a@x","date":"2026-03-02T01:00:00Z","from":{"name":null,"address":"alex@example.com"},"to":[],"cc":[],"subject":"s","text":""}"#)) }
    try store.close()
    let db = try Database(path: tmp.path, mode: .readWrite)
    try db.run("UPDATE messages SET record = ?, attachment_count = 2", .text(line))
    try db.execute("DROP TABLE attachments; PRAGMA user_version = 7")
    db.close()
    store = try tmp.open()
    #expect(try rows(tmp).map(\.kept) == [1, 0])
    let stored = try Database(path: tmp.path, mode: .readOnly)
    let record = try JSONRecord(stored.text("SELECT record FROM messages") ?? "{}")
    stored.close()
    let list = record.value("attachments")?.arrayValue ?? []
    #expect(list.first?["saved_as"]?.stringValue == store.attachments.file(SHA256.hex(pdf)))
    #expect(list.last?["saved_as"] == .null)
    try store.close()
}

@Test func theAttachmentsOfAForwardedMessageAreListedAfterTheOneThatHoldsThem() throws {
    let tmp = TemporaryStore()
    let store = try tmp.open()
    let inner = Array("the forwarded message's file".utf8)
    #expect(try store.attachments.keep(inner, sha256: SHA256.hex(inner), suggestedName: nil, contentType: "text/plain") != nil)
    let innerAttachment = #"{"filename":"a.txt","content_type":"text/plain","size":\#(inner.count),"sha256":"\#(SHA256.hex(inner))","part":"2.2","saved_as":"/elsewhere/a.txt"}"#
    let line = #"{"id":"fw@x","date":"2026-03-02T01:00:00Z","from":{"name":null,"address":"alex@example.com"},"to":[],"cc":[],"subject":"Fwd","text":"","attachments":[{"filename":null,"content_type":"message/rfc822","size":300,"sha256":"\#(SHA256.hex(Array("rfc822".utf8)))","part":"2","message":{"subject":"s","attachments":[\#(innerAttachment)]}},{"filename":"b.txt","content_type":"text/plain","size":1,"sha256":null,"part":"3"}],"forwarded_message":{"subject":"s","attachments":[\#(innerAttachment)],"source":"attachment"}}"#
    _ = try store.batch { try store.add(try JSONRecord(line)) }
    let stored = try Database(path: tmp.path, mode: .readOnly)
    let record = try JSONRecord(stored.text("SELECT record FROM messages") ?? "{}")
    stored.close()
    let path = JSONValue.string(store.attachments.file(SHA256.hex(inner)))
    #expect(record.value("attachments")?.arrayValue?.first?["message"]?["attachments"]?.arrayValue?.first?["saved_as"] == path)
    #expect(record.value("forwarded_message")?["attachments"]?.arrayValue?.first?["saved_as"] == path)
    let listed = try rows(tmp)
    #expect(listed.map(\.part) == ["2", "2.2", "3"])
    #expect(listed.map(\.kept) == [0, 1, 0])
    guard case .found(let a) = try store.attachment(messageID: "fw@x", part: "#1") else { Issue.record("not listed"); return }
    #expect(a.file == store.attachments.file(SHA256.hex(inner)))
    try store.close()
}
