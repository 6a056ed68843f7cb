#if canImport(Glibc)
import Glibc
#endif

/// Part K of N of an input (`--shard K/N`), so that N processes can read one big mailbox in
/// parallel. A file is cut into N byte ranges and a message belongs to the range its first byte
/// (its From_ line, its JSON line) is in; a maildir's messages are cut into N runs. Written one
/// after the other, the N outputs are the output of reading the whole input.
public struct Shard: Sendable, Equatable, CustomStringConvertible {
    /// 1-based.
    public let index: Int
    public let count: Int

    public init?(_ text: String) {
        let parts = text.split(separator: "/", omittingEmptySubsequences: false)
        guard parts.count == 2, let k = Int(parts[0]), let n = Int(parts[1]), n >= 1, k >= 1, k <= n else { return nil }
        index = k
        count = n
    }

    public var description: String { "\(index)/\(count)" }

    /// This shard's part of `0..<size`.
    public func range(of size: Int) -> Range<Int> {
        size * (index - 1) / count ..< size * index / count
    }
}

/// Newlines in the first `length` bytes of `fd` (for line numbers of a shard that starts
/// in the middle of a JSON Lines file).
func countLines(fd: Int32, path: String, length: Int) throws -> Int {
    var lines = 0
    var done = 0
    var chunk = [UInt8](repeating: 0, count: 1 << 20)
    while done < length {
        let n = chunk.withUnsafeMutableBytes { pread(fd, $0.baseAddress!, min($0.count, length - done), off_t(done)) }
        if n < 0 {
            if errno == EINTR { continue }
            throw MailboxError.io(path: path, errno: errno)
        }
        if n == 0 { break }
        chunk.withUnsafeBytes { b in
            var p = b.baseAddress!
            let end = p + n
            while p < end, let hit = memchr(p, 0x0A, end - p) {
                lines += 1
                p = UnsafeRawPointer(hit) + 1
            }
        }
        done += n
    }
    return lines
}

/// Moves `fd` to `offset`.
func seek(fd: Int32, path: String, to offset: Int) throws {
    guard lseek(fd, off_t(offset), SEEK_SET) >= 0 else { throw MailboxError.io(path: path, errno: errno) }
}
