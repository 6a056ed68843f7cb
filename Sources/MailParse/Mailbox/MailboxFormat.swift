#if canImport(Glibc)
import Glibc
#endif

/// What an input holds. Detected from its first bytes unless the user says.
public enum MailboxFormat: String, CaseIterable, Sendable {
    case mbox, mboxrd, mboxo, mboxcl, mboxcl2
    /// One RFC 5322 message (an .eml file, or what procmail and fetchmail hand over on stdin).
    case eml
    case maildir
    /// Gmail API message resources, one JSON object per line (`format=raw` or `format=full`).
    case gmailAPI = "gmail-api"

    /// mbox for a first line `From …`, Gmail API JSON for a `{`, else one message.
    public static func detect(_ head: [UInt8]) -> MailboxFormat {
        var i = 0
        while i < head.count, head[i] == 0x20 || head[i] == 0x09 || head[i] == 0x0A || head[i] == 0x0D || head[i] == 0xEF || head[i] == 0xBB || head[i] == 0xBF { i += 1 }
        if i < head.count, head[i] == UInt8(ascii: "{") { return .gmailAPI }
        if head.count - i >= 5, Array(head[i..<(i + 5)]) == Array("From ".utf8) {
            // a single message handed over with its From_ line is also an mbox of one
            return .mbox
        }
        return .eml
    }

    var mboxVariant: MboxVariant? {
        switch self {
        case .mboxrd: .mboxrd
        case .mboxo: .mboxo
        case .mboxcl: .mboxcl
        case .mboxcl2: .mboxcl2
        default: nil
        }
    }
}

/// Reads every message of one input, whatever its format.
public enum MailboxInput {
    /// A record that could not be read at all (a Gmail API line that is not JSON, say).
    public struct BadRecord: Error {
        public var message: String
        public var line: Int?
    }

    /// Calls `message` for each message and `bad` for each unreadable record of the input.
    /// `fd` is ignored for a directory. With a `shard`, only that part of the input is read
    /// (a single message belongs to the first shard).
    public static func read(fd: Int32, path: String, isDirectory: Bool, format: MailboxFormat?, shard: Shard? = nil,
                            message: (RawMessage) throws -> Void, bad: (BadRecord) throws -> Void) throws {
        if isDirectory || format == .maildir {
            try MaildirReader(path: path).forEach(shard: shard, message)
            return
        }
        var head: [UInt8] = []
        if format == nil {
            head = try readPrefix(fd: fd, path: path, count: 4096)
        }
        let kind = format ?? MailboxFormat.detect(head)
        let range = try shard.map { try byteRange(of: $0, fd: fd, path: path, format: kind) }
        switch kind {
        case .eml:
            if let shard, shard.index > 1 { return }
            let bytes = try readAll(fd: fd, path: path, initial: head)
            // procmail or a script handing over nothing is an error to see, not a record of nothing
            guard bytes.contains(where: { $0 != 0x20 && $0 != 0x09 && $0 != Bytes.lf && $0 != Bytes.cr }) else {
                throw MailboxError.empty(path: path)
            }
            try message(RawMessage(bytes: bytes, source: MessageSource(path: path, offset: 0, length: bytes.count, format: "eml")))
        case .gmailAPI:
            try GmailAPIReader(fd: fd, path: path, initial: head).forEach(range: range, message: message, bad: bad)
        case .maildir:
            try MaildirReader(path: path).forEach(shard: shard, message)
        case .mbox, .mboxrd, .mboxo, .mboxcl, .mboxcl2:
            if let range {
                var reader = try MboxReader(fd: fd, path: path, variant: kind.mboxVariant, initial: head, range: range)
                try reader.forEach(message)
            } else {
                var reader = MboxReader(fd: fd, path: path, variant: kind.mboxVariant, initial: head)
                try reader.forEach(message)
            }
        }
    }

    /// The shard's bytes of a file. Shards need a file to seek in, and mbox dialects whose
    /// messages end where Content-Length says cannot be cut at From_ lines. An mbox is cut
    /// after its leading blank lines and byte order mark, where its first From_ line stands,
    /// so that whatever comes before the first message goes with it.
    private static func byteRange(of shard: Shard, fd: Int32, path: String, format: MailboxFormat) throws -> Range<Int> {
        if format == .mboxcl || format == .mboxcl2 { throw MailboxError.cannotShard(path: path, reason: "\(format.rawValue) messages end where Content-Length says, not at From_ lines") }
        var st = stat()
        guard fstat(fd, &st) == 0 else { throw MailboxError.io(path: path, errno: errno) }
        guard (st.st_mode & S_IFMT) == S_IFREG else { throw MailboxError.cannotShard(path: path, reason: "not a regular file") }
        let size = Int(st.st_size)
        guard format != .gmailAPI, format != .eml else { return shard.range(of: size) }
        var head = [UInt8](repeating: 0, count: min(size, 4096))
        let n = head.withUnsafeMutableBytes { pread(fd, $0.baseAddress!, $0.count, 0) }
        guard n >= 0 else { throw MailboxError.io(path: path, errno: errno) }
        var lead = head.starts(with: [0xEF, 0xBB, 0xBF]) ? 3 : 0
        while lead < n, head[lead] == Bytes.lf || head[lead] == Bytes.cr { lead += 1 }
        let part = shard.range(of: size - lead)
        if part.isEmpty { return lead..<lead }
        // the shard that holds the first message also reads what comes before it
        return (part.lowerBound == 0 ? 0 : lead + part.lowerBound) ..< lead + part.upperBound
    }

    private static func readPrefix(fd: Int32, path: String, count: Int) throws -> [UInt8] {
        var out = [UInt8](repeating: 0, count: count)
        var filled = 0
        while filled < count {
            let n = out.withUnsafeMutableBytes { Glibc.read(fd, $0.baseAddress! + filled, count - filled) }
            if n < 0 {
                if errno == EINTR { continue }
                throw MailboxError.io(path: path, errno: errno)
            }
            if n == 0 { break }
            filled += n
        }
        out.removeLast(count - filled)
        return out
    }
}
