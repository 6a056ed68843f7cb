import Testing
import Glibc
@testable import JSONLines

@Suite struct LineReaderTests {
    func lines(of data: [UInt8], chunk: Int) throws -> [(String, Int, Int)] {
        var fds: [Int32] = [0, 0]
        #expect(pipe(&fds) == 0)
        let writer = data
        _ = writer.withUnsafeBytes { write(fds[1], $0.baseAddress, $0.count) }
        close(fds[1])
        var reader = LineReader(fd: fds[0], chunkSize: chunk)
        defer {
            reader.close()
            close(fds[0])
        }
        var out: [(String, Int, Int)] = []
        try reader.forEachLine { l in
            out.append((String(decoding: l.bytes, as: UTF8.self), l.number, l.offset))
            return true
        }
        return out
    }

    @Test func splitsLFAndCRLFAndKeepsALastLineWithoutNewline() throws {
        let got = try lines(of: Array("a\r\nbb\n\nccc".utf8), chunk: 2)
        #expect(got.map(\.0) == ["a", "bb", "", "ccc"])
        #expect(got.map(\.1) == [1, 2, 3, 4])
        #expect(got.map(\.2) == [0, 3, 6, 7])
    }

    @Test func growsForLinesLongerThanTheBuffer() throws {
        let long = String(repeating: "x", count: 10_000)
        let got = try lines(of: Array((long + "\nshort\n").utf8), chunk: 16)
        #expect(got.map(\.0) == [long, "short"])
    }
}
