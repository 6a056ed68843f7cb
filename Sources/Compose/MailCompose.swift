#if canImport(Glibc)
import Glibc
#endif
import JSONLines
import MailParse
import UnixFilter
import UTF8Text

/// Where written messages go.
public enum ComposeOutput: Sendable {
    /// One message on standard output, for `sendmail -t -oi` or `msmtp -t`.
    case single
    /// An mbox (mboxrd) on standard output.
    case mbox
    /// Each message a file of the maildir, written in tmp/ and renamed into cur/ (seen: it is mine).
    case maildir(String)
    /// `{"raw", "threadId"}` lines for Gmail's users.messages.send.
    case gmail
}

/// mail-compose: requests in, messages out. A request that cannot be written is reported with
/// its line, counted, and leaves nothing behind; the others are written; the exit status is 65
/// when any failed.
public struct MailCompose {
    public var output = ComposeOutput.single
    /// Also write mime-parse's record of each message (beside the maildir's file, or as the
    /// Gmail line's `record`).
    public var record = false

    public init() {}

    public func run(_ run: FilterRun, composer: Composer) throws {
        let addresses = AddressListReader()
        var maildir: Maildir?
        if case .maildir(let path) = output {
            do { maildir = try Maildir(path) } catch {
                run.diagnostics.error("\(error)")
                throw Exit(.cannotCreate)
            }
        }
        var written = 0, failed = 0
        let converter = record ? MessageConverter() : nil
        try run.forEachInput { input in
            guard !input.isDirectory else {
                run.diagnostics.error("is a directory", file: input.name)
                run.raise(.noInput)
                return
            }
            try forEachLine(of: input, in: run) { line in
                guard line.bytes.contains(where: { $0 != 0x20 && $0 != 0x09 }) else { return true }
                let composed: Composer.Composed
                do {
                    let request = try ComposeRequest.parse(Array(line.bytes), addresses: addresses)
                    composed = try composer.compose(request)
                    if case .single = output, written == 1 {
                        throw ComposeRequest.Invalid("a second message: standard output takes one (use --mbox, --maildir or --gmail)")
                    }
                } catch let e as Exit {
                    throw e
                } catch {
                    run.diagnostics.error("\(error)", file: input.name, line: line.number)
                    failed += 1
                    return true
                }
                try emit(composed, run: run, maildir: maildir, converter: converter)
                written += 1
                return true
            }
        }
        if failed > 0 {
            run.diagnostics.note("\(failed) request\(failed == 1 ? "" : "s") not written")
            run.raise(.dataError)
        }
    }

    private func emit(_ c: Composer.Composed, run: FilterRun, maildir: Maildir?, converter: MessageConverter?) throws {
        switch output {
        case .single:
            try writeRaw(c.bytes, run)
        case .mbox:
            try writeRaw(Self.mboxEntry(c.bytes), run)
        case .maildir:
            let path: String
            do { path = try maildir!.deliver(c.bytes) } catch {
                run.diagnostics.error("\(error)")
                throw Exit(.ioError)
            }
            if let converter { try run.write(Self.record(c.bytes, path: path, format: "maildir", converter)) }
        case .gmail:
            var w = JSONWriter()
            w.beginObject()
            w.key("raw")
            w.string(utf8: Base64.encodeURL(LineEnds.crlf(c.bytes)))
            if let thread = c.threadID {
                w.key("threadId")
                w.string(thread)
            }
            if let converter {
                w.key("record")
                w.raw(Self.record(c.bytes, path: "-", format: "eml", converter))
            }
            w.endObject()
            try run.write(w.bytes)
        }
    }

    private func writeRaw(_ bytes: [UInt8], _ run: FilterRun) throws {
        do { try run.output.write(bytes) } catch {
            run.diagnostics.error("\(error)")
            throw Exit(.ioError)
        }
    }

    static func record(_ bytes: [UInt8], path: String, format: String, _ converter: MessageConverter) -> [UInt8] {
        converter.record(for: RawMessage(bytes: bytes, source: MessageSource(path: path, offset: 0, length: bytes.count, format: format))).json
    }

    /// A message as an mboxrd entry: a From_ line, ">From " quoting one level deeper, a blank line.
    static func mboxEntry(_ message: [UInt8]) -> [UInt8] {
        var out = Array("From MAILER-DAEMON \(asctime())\n".utf8)
        var lineStart = 0
        while lineStart < message.count {
            let end = message[lineStart...].firstIndex(of: 0x0A).map { $0 + 1 } ?? message.count
            let line = message[lineStart..<end]
            let quotes = line.prefix { $0 == UInt8(ascii: ">") }.count
            if line.dropFirst(quotes).starts(with: Array("From ".utf8)) { out.append(UInt8(ascii: ">")) }
            out += line
            lineStart = end
        }
        if out.last != 0x0A { out.append(0x0A) }
        out.append(0x0A)
        return out
    }

    private static func asctime() -> String {
        var t = time(nil)
        var parts = tm()
        gmtime_r(&t, &parts)
        var buffer = [CChar](repeating: 0, count: 32)
        strftime(&buffer, buffer.count, "%a %b %e %H:%M:%S %Y", &parts)
        return String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }
}

/// A maildir written to as Maildir's rules say: a file made in tmp/ under a name no other
/// delivery uses, synced, then renamed into cur/ (mail I wrote is seen), so a reader never sees
/// half a message.
final class Maildir {
    let path: String
    private var counter = 0

    struct Failure: Error, CustomStringConvertible {
        var description: String
    }

    init(_ path: String) throws {
        self.path = path
        try PrivateFolder.make(path, mode: 0o700)
        for sub in ["tmp", "new", "cur"] { try PrivateFolder.make(path + "/" + sub, mode: 0o700) }
    }

    func deliver(_ bytes: [UInt8]) throws -> String {
        let name = uniqueName(size: bytes.count)
        let temporary = "\(path)/tmp/\(name)", final = "\(path)/cur/\(name):2,S"
        let fd = open(temporary, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o600)
        guard fd >= 0 else { throw Failure(description: "\(temporary): \(String(cString: strerror(errno)))") }
        let ok = writeAll(fd: fd, bytes) && fsync(fd) == 0
        let closed = close(fd) == 0
        guard ok && closed, rename(temporary, final) == 0 else {
            let reason = String(cString: strerror(errno))
            unlink(temporary)
            throw Failure(description: "\(final): \(reason)")
        }
        return final
    }

    /// time.M<microseconds>P<pid>Q<count>.host,S=<size>
    private func uniqueName(size: Int) -> String {
        var now = timespec()
        clock_gettime(CLOCK_REALTIME, &now)
        counter += 1
        var host = [CChar](repeating: 0, count: 256)
        gethostname(&host, host.count - 1)
        let hostName = String(decoding: host.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
            .replacing("/", with: "\\057").replacing(":", with: "\\072")
        return "\(now.tv_sec).M\(now.tv_nsec / 1000)P\(getpid())Q\(counter).\(hostName),S=\(size)"
    }
}
