#if canImport(Glibc)
import Glibc
#endif
import BodyText
import CFuzzer
import Conversations
import Events
import JSONLines
import MailKind
import MailParse
import Parcels
import Sanitize
import UnixFilter

/// Every mailpipe filter as its program runs it, on one input file of fuzzed bytes, with
/// `--on-error=pass`. `MAILPIPE_FUZZ_TARGET` names the filter. Besides not crashing or hanging,
/// each run must keep these properties, else the target aborts with the input saved:
/// - every line out is a JSON object (mime-parse's records, or a filter's records);
/// - a per-message filter writes one line for every line in (N records in, N lines out:
///   a bad line is passed on as `invalid_line`, a record it cannot use with `errors`);
/// - a filter whose fields are its own rewrites them in place: run again on its own output
///   (when no record was passed on with errors), it gives the same bytes;
/// - `json-lines`: a record read, given one member, and written again keeps every other
///   member's bytes.
struct Target {
    enum Input { case mailbox(MailboxFormat?), records }
    var input: Input
    var oneLinePerRecord = false
    var idempotent = false
    var run: (FilterRun) throws -> Void
}

/// mime-parse with limits small enough that the fuzzer's inputs (65,536 bytes at most) reach
/// them: the records it cuts are checked as every other.
func limitedConverter() -> MessageConverter {
    let converter = MessageConverter()
    converter.limits.recipients = 8
    converter.limits.headerFields = 24
    converter.limits.textBytes = 2048
    return converter
}

nonisolated(unsafe) let targets: [String: Target] = [
    "mime-parse": Target(input: .mailbox(nil)) { try parseMail(run: $0, converter: limitedConverter(), format: nil) },
    "mime-parse-eml": Target(input: .mailbox(.eml)) { try parseMail(run: $0, converter: limitedConverter(), format: .eml) },
    "mime-parse-mbox": Target(input: .mailbox(.mbox)) { try parseMail(run: $0, converter: limitedConverter(), format: .mbox) },
    "mime-parse-gmail-api": Target(input: .mailbox(.gmailAPI)) {
        try parseMail(run: $0, converter: limitedConverter(), format: .gmailAPI)
    },
    // html-sanitize's counts of what it removed differ on a second run: its idempotence is the
    // sanitizer's own, checked by html-sanitize-fuzz.
    "html-sanitize": Target(input: .records, oneLinePerRecord: true) { try HTMLSanitize().run($0) },
    "text-extract": Target(input: .records, oneLinePerRecord: true, idempotent: true) { try TextExtract().run($0) },
    "newsletter-detect": Target(input: .records, oneLinePerRecord: true, idempotent: true) { try NewsletterDetect().run($0) },
    "carrier-detect": Target(input: .records, oneLinePerRecord: true, idempotent: true) { try CarrierDetect().run($0) },
    "participant-hash": Target(input: .records, oneLinePerRecord: true, idempotent: true) {
        var tool = ParticipantHash()
        tool.me = ["me@example.com"]
        try tool.run($0)
    },
    "event-extract": Target(input: .records, oneLinePerRecord: true, idempotent: true) { try EventExtract().run($0) },
    "conversation-group": Target(input: .records) { try ConversationGroup().run($0) },
    "event-group": Target(input: .records) { try EventGroup().run($0) },
    "parcel-group": Target(input: .records) { try ParcelGroup().run($0) },
    "json-lines": Target(input: .records) { _ in },
]

nonisolated(unsafe) let targetName: String = getenv("MAILPIPE_FUZZ_TARGET").map { String(cString: $0) } ?? ""
nonisolated(unsafe) let target: Target = {
    guard let t = targets[targetName] else {
        let names = targets.keys.sorted().joined(separator: ", ")
        fail("set MAILPIPE_FUZZ_TARGET to one of: \(names)")
    }
    return t
}()

/// The input file the filter reads, and the one its standard output is redirected to.
nonisolated(unsafe) let inputPath = scratchPath("in")
nonisolated(unsafe) let outputFD: Int32 = {
    let fd = open(scratchPath("out"), O_RDWR | O_CREAT | O_TRUNC, 0o600)
    if fd < 0 { fail("cannot open a scratch file in /dev/shm or /tmp") }
    return fd
}()

/// MAILPIPE_FUZZ_MESSAGES=1 lets the filters' messages through (to see why an input failed).
nonisolated(unsafe) let showMessages = getenv("MAILPIPE_FUZZ_MESSAGES") != nil

func scratchPath(_ what: String) -> String {
    let dir = access("/dev/shm", W_OK) == 0 ? "/dev/shm" : "/tmp"
    return "\(dir)/mailpipe-fuzz-\(getpid())-\(what)"
}

func fail(_ message: String) -> Never {
    let text = Array("mailpipe-fuzz: \(targetName): \(message)\n".utf8)
    _ = text.withUnsafeBytes { write(2, $0.baseAddress, $0.count) }
    abort()
}

/// Runs the target's filter on `data` and gives what it wrote to standard output.
func runFilter(_ data: [UInt8]) -> [UInt8] {
    let fd = open(inputPath, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
    _ = data.withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
    close(fd)
    ftruncate(outputFD, 0)
    lseek(outputFD, 0, SEEK_SET)
    let savedOut = dup(1), savedErr = dup(2)
    dup2(outputFD, 1)
    if !showMessages {  // the filters' own messages about bad input are expected
        let null = open("/dev/null", O_WRONLY)
        dup2(null, 2)
        close(null)
    }
    guard let options = try? CommonOptions.from(arguments: ["--on-error=pass", "--no-progress", inputPath]) else { fail("options") }
    let run = FilterRun(program: targetName, options: options)
    do { try target.run(run) } catch let e as Exit { run.raise(e.status) } catch { run.raise(.ioError) }
    _ = run.finish()
    dup2(savedOut, 1)
    dup2(savedErr, 2)
    close(savedOut)
    close(savedErr)
    let size = Int(lseek(outputFD, 0, SEEK_END))
    var out = [UInt8](repeating: 0, count: size)
    _ = out.withUnsafeMutableBytes { pread(outputFD, $0.baseAddress, size, 0) }
    return out
}

/// Lines as the filters read them: split at LF, a CR before it dropped, empty lines skipped.
func lines(_ bytes: [UInt8]) -> [ArraySlice<UInt8>] {
    bytes.split(separator: 0x0A, omittingEmptySubsequences: true)
        .map { $0.last == 0x0D ? $0.dropLast() : $0 }
        .filter { !$0.isEmpty }
}

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzOnce(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    let input = Array(UnsafeBufferPointer(start: data, count: size))
    if targetName == "json-lines" {
        checkRecordRewriting(input)
        return 0
    }
    let out = runFilter(input)
    let outLines = lines(out)
    var failed = false  // a record passed on with its errors is not the filter's to rewrite again
    for line in outLines {
        guard let record = try? JSONRecord(Array(line)) else {
            fail("wrote a line that is not a JSON object: \(String(decoding: line.prefix(300), as: UTF8.self))")
        }
        if record.member("errors") != nil { failed = true }
    }
    guard case .records = target.input else { return 0 }
    if target.oneLinePerRecord && outLines.count != lines(input).count {
        fail("\(lines(input).count) lines in, \(outLines.count) out")
    }
    if target.idempotent && !failed {
        let again = runFilter(out)
        if again != out {
            fail("not idempotent:\n--- once\n\(String(decoding: out.prefix(2000), as: UTF8.self))\n--- twice\n\(String(decoding: again.prefix(2000), as: UTF8.self))")
        }
    }
    return 0
}

/// Each line that is a record: one member replaced (or added) and one removed; every other
/// member keeps its bytes, and the result reads back as a record.
func checkRecordRewriting(_ input: [UInt8]) {
    for line in lines(input) {
        guard let record = try? JSONRecord(Array(line)) else { continue }
        let keys = record.members.map { String(decoding: record.bytes[$0.key].dropFirst().dropLast(), as: UTF8.self) }
        guard Set(keys).count == keys.count else { continue }  // which of two equal keys counts is JSON's open question
        let replaced = keys.first ?? "added", removed = keys.count > 1 ? keys[keys.count - 1] : "none"
        let rewritten = record.updated([(replaced, Array("[1,\"x\"]".utf8)), (removed, nil)])
        guard let back = try? JSONRecord(rewritten) else {
            fail("a rewritten record does not read back: \(String(decoding: rewritten.prefix(500), as: UTF8.self))")
        }
        guard back.rawValue(replaced).map(Array.init) == Array("[1,\"x\"]".utf8) else { fail("the replaced member is not there") }
        for key in keys where key != replaced && key != removed && !key.contains("\\") {
            if back.rawValue(key).map(Array.init) != record.rawValue(key).map(Array.init) {
                fail("member '\(key)' changed when another was rewritten")
            }
        }
    }
}

/// SwiftPM links an executable's main under this name, and libFuzzer brings a main of its own
/// (the link allows both): either way the command line goes to libFuzzer's driver.
@_cdecl("mailpipe_fuzz_main")
func fuzzMain(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> CInt {
    var argc = argc
    var argv = argv
    _ = target
    return LLVMFuzzerRunDriver(&argc, &argv) { data, size in fuzzOnce(data, size) }
}
