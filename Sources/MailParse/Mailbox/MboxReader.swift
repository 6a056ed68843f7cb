#if canImport(Glibc)
import Glibc
#endif
import CLibcExtras

/// The mbox dialects (see mbox(5)): how `From ` lines in bodies were quoted, and whether a
/// Content-Length header says where each message ends.
public enum MboxVariant: String, CaseIterable, Sendable {
    /// `>From ` quoted; a run of `>` before `From ` loses one (the most common writer today).
    case mboxrd
    /// Only `>From ` is unquoted; `>>From ` stays.
    case mboxo
    /// Content-Length marks the end; `>From ` quoted as in mboxrd.
    case mboxcl
    /// Content-Length marks the end; nothing is quoted.
    case mboxcl2
}

/// Splits an mbox into messages as it reads, holding only the message being read: memory stays
/// flat whatever the size of the mailbox, and a huge message is read in one pass.
public struct MboxReader {
    private let fd: Int32
    private let path: String
    private let variant: MboxVariant?
    private var buffer: [UInt8]
    private var bufferOffset = 0  // file offset of buffer[0]
    private var eof = false
    private let chunk = 1 << 20
    /// Content-Length is looked for until a message without it shows that the mailbox's
    /// writer does not use it (mailboxes are written by one program).
    private var mayUseContentLength = true

    /// Only the messages whose From_ line starts in this range of the file (a shard).
    private var range: Range<Int>?

    /// `initial` holds bytes already read from `fd` (for format detection).
    /// A nil `variant` reads mboxrd quoting and trusts Content-Length when it lands on a From_ line.
    public init(fd: Int32, path: String, variant: MboxVariant?, initial: [UInt8] = []) {
        self.fd = fd
        self.path = path
        self.variant = variant
        self.buffer = initial
        buffer.reserveCapacity(chunk * 2)
    }

    /// Reads only the messages whose From_ line starts in `range` of the file; the last one
    /// read to its end, wherever that is. Messages are cut at From_ lines alone (Content-Length
    /// is not trusted), so that every shard agrees where messages begin.
    public init(fd: Int32, path: String, variant: MboxVariant?, initial: [UInt8] = [], range: Range<Int>) throws {
        self.init(fd: fd, path: path, variant: variant, initial: range.lowerBound == 0 ? initial : [])
        self.range = range
        mayUseContentLength = false
        if range.lowerBound > 0 {
            // from the byte before, so that a From_ line starting right at the cut is seen as one
            try seek(fd: fd, path: path, to: range.lowerBound - 1)
            bufferOffset = range.lowerBound - 1
        }
    }

    private func pastRange(_ pos: Int) -> Bool {
        guard let range else { return false }
        return bufferOffset + pos >= range.upperBound
    }

    public mutating func forEach(_ body: (RawMessage) throws -> Void) throws {
        var pos = 0  // start of the current message (its From_ line)
        var scan = 0
        if let range, range.lowerBound > 0 || range.isEmpty {
            if !range.isEmpty { try forEachInShard(body) }
            return
        }
        // skip blank lines before the first From_ line; the first line needs no date to count
        while true {
            if let first = findFromLine(from: 0, atStart: true) {
                pos = first
                // text before the first From_ line is kept as a message of its own
                if buffer[..<first].contains(where: { !Bytes.isWhitespace($0) && $0 < 0x80 }) {
                    let source = MessageSource(path: path, offset: 0, length: first, format: "mbox")
                    try body(RawMessage(bytes: Array(buffer[..<first]), source: source))
                }
                break
            }
            if eof {
                // no From_ line at all: the input is one message, not nothing
                if buffer.contains(where: { !Bytes.isWhitespace($0) }) { try emitWithoutEnvelope(body) }
                return
            }
            var keepAll = 0
            try fill(&keepAll, &scan)
        }
        if pastRange(pos) { return }
        try readMessages(from: pos, body)
    }

    /// A shard that starts in the middle: its first message is at the first From_ line
    /// at or after the cut; the text before it belongs to the shard before.
    private mutating func forEachInShard(_ body: (RawMessage) throws -> Void) throws {
        var skip = 0
        var scan = 0
        while true {
            if let first = findFromLine(from: skip, atStart: false) {
                if pastRange(first) { return }
                try readMessages(from: first, body)
                return
            }
            if eof { return }
            // keep only the lines a From_ line may still need; past the cut, none is ours
            skip = lastLineBreak(after: 0) ?? 0
            if pastRange(skip + 1) { return }
            try fill(&skip, &scan)
        }
    }

    private mutating func readMessages(from start: Int, _ body: (RawMessage) throws -> Void) throws {
        var pos = start
        var scan = pos + 1
        var contentLengthChecked = false
        while true {
            if !contentLengthChecked, mayUseContentLength, variant != .mboxo, variant != .mboxrd {
                switch contentLengthEnd(messageStart: pos) {
                case .needMore where !eof:
                    try fill(&pos, &scan)
                    continue
                case .end(let next):
                    try emit(pos..<next, body)
                    pos = next
                    scan = pos + 1
                    continue
                case .absent where variant == nil:
                    mayUseContentLength = false
                    contentLengthChecked = true
                default:
                    contentLengthChecked = true
                }
            }
            if let next = findFromLine(from: scan, atStart: false) {
                try emit(pos..<next, body)
                pos = next
                if pastRange(pos) { return }
                scan = pos + 1
                contentLengthChecked = false
                continue
            }
            if eof {
                if pos < buffer.count { try emit(pos..<buffer.count, body) }
                return
            }
            // resume at the last line break: a From_ line after it is not complete yet
            scan = max(pos + 1, lastLineBreak(after: pos) ?? pos + 1)
            try fill(&pos, &scan)
        }
    }

    /// The line break before the last complete line: a From_ line there may need the line
    /// after it, which is not read yet.
    private func lastLineBreak(after pos: Int) -> Int? {
        buffer.withUnsafeBytes { b -> Int? in
            guard b.count > pos, let p = mp_memrchr(b.baseAddress! + pos, Int32(Bytes.lf), b.count - pos) else { return nil }
            let last = b.baseAddress!.distance(to: UnsafeRawPointer(p))
            guard last > pos, let q = mp_memrchr(b.baseAddress! + pos, Int32(Bytes.lf), last - pos) else { return last }
            return b.baseAddress!.distance(to: UnsafeRawPointer(q))
        }
    }

    /// Reads the next chunk. The bytes before `pos` are done with: they are dropped in the
    /// same copy that makes room, and `pos` and `scan` move with the data.
    private mutating func fill(_ pos: inout Int, _ scan: inout Int) throws {
        let keep = buffer.count - pos
        var n = 0
        let old = buffer
        let want = max(chunk, keep)  // grow with a long message: copies stay linear in its size
        buffer = [UInt8](unsafeUninitializedCapacity: keep + want) { out, count in
            old.withUnsafeBytes { src in
                if keep > 0 { UnsafeMutableRawPointer(out.baseAddress!).copyMemory(from: src.baseAddress! + pos, byteCount: keep) }
            }
            repeat {
                n = read(fd, out.baseAddress! + keep, want)
            } while n < 0 && errno == EINTR
            count = keep + max(n, 0)
        }
        bufferOffset += pos
        scan -= pos
        pos = 0
        if n < 0 { throw MailboxError.io(path: path, errno: errno) }
        if n == 0 { eof = true }
    }

    /// Index of the next From_ line at or after `from` (which is itself a line start when
    /// `atStart`). nil when none is in the buffer yet, including a line not fully read.
    private func findFromLine(from: Int, atStart: Bool) -> Int? {
        buffer.withUnsafeBytes { b -> Int? in
            var i = from
            if atStart {
                // the very first line, possibly after blank lines or a byte order mark
                if Bytes.hasPrefix(b, at: i, [0xEF, 0xBB, 0xBF]) { i += 3 }
                while i < b.count, b[i] == Bytes.lf || b[i] == Bytes.cr { i += 1 }
                if Bytes.hasPrefix(b, at: i, Self.fromSpace) { return i }
                if !eof && b.count - i < 5 { return nil }
            }
            while let hit = Self.findNewlineFrom(b, from: max(i - 1, 0)) {
                let line = hit + 1
                if isFromLine(b, at: line) { return line }
                i = line + 1
            }
            return nil
        }
    }

    static let newlineFrom = Array("\nFrom ".utf8)
    static let fromSpace = Array("From ".utf8)

    /// The first "\nFrom " at or after `from`.
    static func findNewlineFrom(_ b: UnsafeRawBufferPointer, from: Int) -> Int? {
        var i = from
        while let k = Bytes.findLineBreak(before: UInt8(ascii: "F"), in: b, from: i) {
            if Bytes.hasPrefix(b, at: k, newlineFrom) { return k }
            i = k + 1
        }
        return nil
    }

    /// Whether the line at `i` starts a message. It must begin `From ` and then either carry a
    /// date with a time (`From sender Mon Jan  6 04:49:45 2020`), be Mozilla's `From -`, or
    /// name an address and be followed by a header line. So an unquoted "From here on, at
    /// 6:30…" or "From Russia with love" in a body does not split a message.
    private func isFromLine(_ b: UnsafeRawBufferPointer, at i: Int) -> Bool {
        guard Bytes.hasPrefix(b, at: i, Self.fromSpace) else { return false }
        guard let end = Bytes.find(byte: Bytes.lf, in: b, from: i) else { return eof }
        let line = UnsafeRawBufferPointer(rebasing: b[(i + 5)..<end])
        if line.contains(UInt8(ascii: ":")), Self.envelopeDate(line) != nil { return true }
        let sender = String(decoding: line.prefix { $0 != Bytes.space }, as: UTF8.self)
        if sender.trimmingSpaces == "-" || sender.trimmingSpaces.isEmpty {
            return String(decoding: line, as: UTF8.self).trimmingSpaces.hasPrefix("-")
        }
        guard sender.contains("@") || sender == "MAILER-DAEMON" else { return false }
        return Self.isHeaderLine(b, at: end + 1)
    }

    /// `Name: value` (a field name is printable ASCII without spaces).
    static func isHeaderLine(_ b: UnsafeRawBufferPointer, at start: Int) -> Bool {
        var k = start
        while k < b.count, b[k] > 0x20, b[k] < 0x7F, b[k] != UInt8(ascii: ":") { k += 1 }
        return k > start && k < b.count && b[k] == UInt8(ascii: ":")
    }

    private enum ContentLengthResult { case none, absent, needMore, end(Int) }

    /// Where the message starting at `start` ends by its Content-Length, if that lands on the
    /// next From_ line or the end of the file.
    private func contentLengthEnd(messageStart start: Int) -> ContentLengthResult {
        buffer.withUnsafeBytes { b -> ContentLengthResult in
            guard let lineEnd = Bytes.find(byte: Bytes.lf, in: b, from: start) else { return eof ? .none : .needMore }
            let headerStart = lineEnd + 1
            guard let headerEnd = Self.blankLine(b, from: lineEnd) else { return eof ? .none : .needMore }
            // most mailboxes have no Content-Length: look for it before parsing headers
            guard Bytes.find(Self.lengthLower, in: b, from: headerStart, to: headerEnd) != nil
                || Bytes.find(Self.lengthUpper, in: b, from: headerStart, to: headerEnd) != nil
            else { return .absent }
            let headers = HeaderBlock(b, from: headerStart, to: min(headerEnd + 3, b.count))
            guard let field = headers.first("content-length"),
                let length = Int(String(decoding: field.raw, as: UTF8.self).trimmingSpaces), length >= 0
            else { return .none }
            var target = headers.bodyStart + length
            if target + 7 > b.count && !eof { return .needMore }
            if target >= b.count { return target == b.count ? .end(b.count) : .none }
            // skip the blank line that separates messages
            if b[target] == Bytes.cr { target += 1 }
            if target < b.count, b[target] == Bytes.lf { target += 1 }
            if target == b.count { return .end(target) }
            return Bytes.hasPrefix(b, at: target, Self.fromSpace) ? .end(target) : .none
        }
    }

    /// The first empty line at or after `from` (the index of the LF before it). Searched in
    /// growing windows so that a message costs what its header block costs, not the buffer.
    static func blankLine(_ b: UnsafeRawBufferPointer, from: Int) -> Int? {
        var window = 16 * 1024
        while true {
            let end = min(b.count, from + window)
            let lf = Bytes.find(blankLF, in: b, from: from, to: end)
            let crlf = Bytes.find(blankCRLF, in: b, from: from, to: lf.map { $0 + 2 } ?? end)
            if let found = [lf, crlf].compactMap({ $0 }).min() { return found }
            if end == b.count { return nil }
            window *= 4
        }
    }

    static let blankLF = Array("\n\n".utf8)
    static let blankCRLF = Array("\n\r\n".utf8)
    static let lengthLower = Array("ength:".utf8)
    static let lengthUpper = Array("ENGTH:".utf8)

    private func emit(_ range: Range<Int>, _ body: (RawMessage) throws -> Void) throws {
        let (message, envelopeDate, gmailID, removals) = buffer.withUnsafeBytes { b -> (Range<Int>, Int?, String?, [Int]) in
            let (fromEnd, start) = Bytes.lineEnd(b, from: range.lowerBound, to: range.upperBound)
            let fromLine = UnsafeRawBufferPointer(rebasing: b[min(range.lowerBound + 5, fromEnd)..<fromEnd])
            var end = range.upperBound
            // the blank line before the next From_ line is the separator, not the message's
            if end - start >= 2, b[end - 1] == Bytes.lf {
                if b[end - 2] == Bytes.lf {
                    end -= 1
                } else if end - start >= 4, b[end - 2] == Bytes.cr, b[end - 3] == Bytes.lf {
                    end -= 2
                }
            }
            let message = start..<max(start, end)
            return (message, Self.envelopeDate(fromLine), Self.gmailID(fromLine), Self.quotingToRemove(UnsafeRawBufferPointer(rebasing: b[message]), variant: variant))
        }
        // most messages have no ">From " to unquote: they are handed over as a slice of the buffer
        let bytes = removals.isEmpty ? buffer[message] : Self.removing(removals, from: buffer[message])[...]
        let source = MessageSource(path: path, offset: bufferOffset + range.lowerBound, length: range.count, format: "mbox")
        var raw = RawMessage(bytes: bytes, source: source, envelopeDate: envelopeDate)
        raw.gmailID = gmailID
        try body(raw)
    }

    private func emitWithoutEnvelope(_ body: (RawMessage) throws -> Void) throws {
        let source = MessageSource(path: path, offset: bufferOffset, length: buffer.count, format: "mbox")
        try body(RawMessage(bytes: buffer, source: source))
    }

    /// Where a quoting `>` of a `>From ` line is to be removed, as the variant says.
    static func quotingToRemove(_ b: UnsafeRawBufferPointer, variant: MboxVariant?) -> [Int] {
        if variant == .mboxcl2 { return [] }
        var removals: [Int] = []
        func check(_ lineStart: Int) {
            var from = lineStart
            while from < b.count, b[from] == UInt8(ascii: ">") { from += 1 }
            if from > lineStart, Bytes.hasPrefix(b, at: from, fromSpace), variant != .mboxo || from == lineStart + 1 {
                removals.append(lineStart)
            }
        }
        check(0)
        var i = 0
        while let k = Bytes.findLineBreak(before: UInt8(ascii: ">"), in: b, from: i) {
            check(k + 1)
            i = k + 1
        }
        return removals
    }

    /// `bytes` without the bytes at `removals` (offsets from its start, ascending).
    static func removing(_ removals: [Int], from bytes: ArraySlice<UInt8>) -> [UInt8] {
        var out = [UInt8]()
        out.reserveCapacity(bytes.count)
        var start = bytes.startIndex
        for r in removals {
            out.append(contentsOf: bytes[start..<(bytes.startIndex + r)])
            start = bytes.startIndex + r + 1
        }
        out.append(contentsOf: bytes[start...])
        return out
    }

    /// The date of a From_ line: `sender Mon Jan  6 04:49:45 2020`, or Takeout's
    /// `sender Mon Jan 06 04:49:45 +0000 2020`.
    /// Takeout's From_ line names the message by its X-GM-MSGID, in decimal, `@xxx`
    /// (`From 1780000000000000001@xxx Mon Mar 02 …`); the Gmail API's id is that number in hex.
    static func gmailID(_ fromLine: UnsafeRawBufferPointer) -> String? {
        let suffix = Array("@xxx ".utf8)
        guard let at = fromLine.firstIndex(of: UInt8(ascii: "@")), at > 0, at <= 20,
              fromLine[..<at].allSatisfy(isDigit), fromLine.count >= at + suffix.count,
              Array(fromLine[at..<(at + suffix.count)]) == suffix,
              let id = UInt64(String(decoding: fromLine[..<at], as: UTF8.self)) else { return nil }
        return String(id, radix: 16)
    }

    static func envelopeDate(_ fromLine: UnsafeRawBufferPointer) -> Int? {
        guard let space = fromLine.firstIndex(of: Bytes.space) else { return nil }
        return MailDate.parse(bytes: UnsafeRawBufferPointer(rebasing: fromLine[space...]))
    }
}

@inline(__always) func isDigit(_ c: UInt8) -> Bool { c &- UInt8(ascii: "0") < 10 }

public enum MailboxError: Error, CustomStringConvertible {
    case io(path: String, errno: Int32)
    case notAMaildir(path: String)
    case cannotShard(path: String, reason: String)
    /// An input with no bytes (or only blank lines) where one message was expected.
    case empty(path: String)

    public var description: String {
        switch self {
        case .empty: "empty input, no message"
        case .io(_, let e): String(cString: strerror(e))
        case .notAMaildir: "a directory, but not a maildir (no cur/ or new/)"
        case .cannotShard(_, let reason): "cannot be read in shards: " + reason
        }
    }
}
