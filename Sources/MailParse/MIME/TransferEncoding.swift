#if canImport(Glibc)
import Glibc
import UTF8Text
#endif

/// Content-Transfer-Encoding decoders, tolerant the way mail readers must be.
enum TransferEncoding: Equatable {
    case identity  // 7bit, 8bit, binary, or missing
    case base64
    case quotedPrintable
    case uuencode
    case unknown(String)

    init(header: String?) {
        guard let h = header.map(ASCII.lowercased)?.trimmingSpaces, !h.isEmpty else {
            self = .identity
            return
        }
        switch h {
        case "7bit", "8bit", "binary", "7-bit", "8-bit": self = .identity
        case "base64": self = .base64
        case "quoted-printable", "quotedprintable": self = .quotedPrintable
        case "x-uuencode", "uuencode", "x-uue", "uue": self = .uuencode
        default: self = .unknown(h)
        }
    }

    /// Whether decoding changes the bytes (base64, quoted-printable, uuencode).
    var transformsContent: Bool {
        switch self {
        case .base64, .quotedPrintable, .uuencode: true
        case .identity, .unknown: false
        }
    }

    /// Decodes `b`; `defects` gets a name for anything malformed.
    func decode(_ b: UnsafeRawBufferPointer, defects: inout [String]) -> [UInt8] {
        switch self {
        case .identity, .unknown:
            return Array(b)
        case .base64:
            if Base64.looksLikeText(b) {
                defects.append("invalid_base64")
                return Array(b)
            }
            let (out, sawInvalid) = Base64.decode(b)
            if sawInvalid { defects.append("invalid_base64") }
            return out
        case .quotedPrintable:
            return QuotedPrintable.decode(b)
        case .uuencode:
            if let file = UUEncode.decodeFirst(b) { return file.data }
            defects.append("invalid_uuencode")
            return Array(b)
        }
    }

    /// The bytes `decode` gives, handed to `body` a piece at a time, each decoded from about
    /// `pieceSize` bytes of `b`: the memory of a piece, not of the whole. (uuencode, rare in a
    /// part of its own, is decoded whole.)
    func decode(_ b: UnsafeRawBufferPointer, inPiecesOf pieceSize: Int, defects: inout [String],
                _ body: (UnsafeRawBufferPointer) throws -> Void) rethrows {
        switch self {
        case .identity, .unknown:
            try Self.forEachPiece(of: b, size: pieceSize, body)
        case .base64:
            if Base64.looksLikeText(b) {
                defects.append("invalid_base64")
                try Self.forEachPiece(of: b, size: pieceSize, body)
                return
            }
            var decoder = Base64.Decoder()
            let out = UnsafeMutablePointer<UInt8>.allocate(capacity: Base64.Decoder.room(for: pieceSize))
            defer { out.deallocate() }
            try Self.forEachPiece(of: b, size: pieceSize) { piece in
                try body(UnsafeRawBufferPointer(start: out, count: decoder.decode(piece, into: out)))
            }
            if decoder.finish() { defects.append("invalid_base64") }
        case .quotedPrintable:
            var i = 0
            while i < b.count {
                let end = QuotedPrintable.pieceEnd(b, from: i, size: pieceSize)
                try QuotedPrintable.decode(UnsafeRawBufferPointer(rebasing: b[i..<end])).withUnsafeBytes(body)
                i = end
            }
        case .uuencode:
            try decode(b, defects: &defects).withUnsafeBytes(body)
        }
    }

    private static func forEachPiece(of b: UnsafeRawBufferPointer, size: Int, _ body: (UnsafeRawBufferPointer) throws -> Void) rethrows {
        var i = 0
        while i < b.count {
            let end = min(b.count, i + size)
            try body(UnsafeRawBufferPointer(rebasing: b[i..<end]))
            i = end
        }
    }
}

extension String {
    var trimmingSpaces: String {
        var s = Substring(self)
        while let f = s.first, f == " " || f == "\t" || f == "\r" || f == "\n" || f == "\"" { s.removeFirst() }
        while let l = s.last, l == " " || l == "\t" || l == "\r" || l == "\n" || l == "\"" { s.removeLast() }
        return String(s)
    }
}

/// Base64 that skips line breaks and garbage, stops at padding, and keeps what a short final
/// group holds. Whole groups of four are decoded on a fast path.
enum Base64 {
    static let table: [UInt8] = {
        var t = [UInt8](repeating: 0xFF, count: 256)
        for (i, c) in "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/".utf8.enumerated() { t[Int(c)] = UInt8(i) }
        t[Int(UInt8(ascii: "-"))] = 62  // base64url, as in the Gmail API
        t[Int(UInt8(ascii: "_"))] = 63
        return t
    }()

    /// The table shifted into place for each of a group's four characters; anything outside
    /// the alphabet sets the top byte.
    static let shifted: [UInt32] = {
        var t = [UInt32](repeating: 0xFF00_0000, count: 4 * 256)
        for c in 0..<256 where table[c] != 0xFF {
            let v = UInt32(table[c])
            t[c] = v << 18
            t[256 + c] = v << 12
            t[512 + c] = v << 6
            t[768 + c] = v
        }
        return t
    }()

    /// The decoded bytes, and whether anything but the alphabet, whitespace and padding was seen.
    static func decode(_ b: UnsafeRawBufferPointer) -> (bytes: [UInt8], sawInvalid: Bool) {
        var decoder = Decoder()
        let out = [UInt8](unsafeUninitializedCapacity: Decoder.room(for: b.count)) { buffer, count in
            count = decoder.decode(b, into: buffer.baseAddress!)
        }
        return (out, decoder.finish())
    }

    /// The decoder's state between pieces of one body: `decode` of the whole is this decoder
    /// given the whole, so pieces cut anywhere (inside a group of four, a line break, padding)
    /// decode to the same bytes.
    struct Decoder {
        private var acc: UInt32 = 0
        private var bits = 0
        private var ended = false
        private(set) var sawInvalid = false

        /// The room `decode` needs for `count` bytes of input.
        static func room(for count: Int) -> Int { count / 4 * 3 + 16 }

        /// Decodes the next piece into `out` (room(for: b.count) bytes); the number of bytes written.
        mutating func decode(_ b: UnsafeRawBufferPointer, into out: UnsafeMutablePointer<UInt8>) -> Int {
            // the state in locals while the loop runs
            var acc = acc, bits = bits, ended = ended, sawInvalid = sawInvalid
            defer { (self.acc, self.bits, self.ended, self.sawInvalid) = (acc, bits, ended, sawInvalid) }
            let n = b.count
            return table.withUnsafeBufferPointer { t in
                shifted.withUnsafeBufferPointer { d in
                    var o = 0
                    var i = 0
                    while i < n {
                        // whole groups: two at a time, then one
                        if bits == 0 {
                            // wrapping arithmetic: the overflow checks were a third of this loop
                            let raw = UnsafeMutableRawPointer(out)
                            while i &+ 8 <= n {
                                let w = b.loadUnaligned(fromByteOffset: i, as: UInt64.self)
                                let v0 = d[Int(w & 0xFF)] | d[256 &+ Int((w >> 8) & 0xFF)] | d[512 &+ Int((w >> 16) & 0xFF)] | d[768 &+ Int((w >> 24) & 0xFF)]
                                let v1 = d[Int((w >> 32) & 0xFF)] | d[256 &+ Int((w >> 40) & 0xFF)] | d[512 &+ Int((w >> 48) & 0xFF)] | d[768 &+ Int(w >> 56)]
                                guard (v0 | v1) & 0xFF00_0000 == 0 else { break }
                                // the two groups' six bytes in order, in one store
                                raw.storeBytes(of: (UInt64(v0) << 40 | UInt64(v1) << 16).bigEndian, toByteOffset: o, as: UInt64.self)
                                o &+= 6
                                i &+= 8
                                ended = false
                            }
                            if i + 4 <= n {
                                let v = d[Int(b[i])] | d[256 + Int(b[i + 1])] | d[512 + Int(b[i + 2])] | d[768 + Int(b[i + 3])]
                                if v & 0xFF00_0000 == 0 {
                                    out[o] = UInt8(truncatingIfNeeded: v >> 16)
                                    out[o + 1] = UInt8(truncatingIfNeeded: v >> 8)
                                    out[o + 2] = UInt8(truncatingIfNeeded: v)
                                    o += 3
                                    i += 4
                                    ended = false
                                    continue
                                }
                            }
                            guard i < n else { break }
                        }
                        let c = b[i]
                        i += 1
                        let v = t[Int(c)]
                        if v == 0xFF {
                            if c == UInt8(ascii: "=") {
                                ended = true
                            } else if !Bytes.isWhitespace(c) {
                                sawInvalid = true
                            }
                            continue
                        }
                        if ended {  // data after padding: a second base64 stream glued on
                            ended = false
                            acc = 0
                            bits = 0
                        }
                        acc = acc << 6 | UInt32(v)
                        bits += 6
                        if bits >= 8 {
                            bits -= 8
                            out[o] = UInt8(truncatingIfNeeded: acc >> UInt32(bits))
                            o += 1
                            acc &= (1 << UInt32(bits)) - 1
                        }
                    }
                    return o
                }
            }
        }

        /// Whether anything but the alphabet, whitespace and padding was seen, once the last
        /// piece is decoded.
        mutating func finish() -> Bool {
            if bits >= 6 { sawInvalid = true }  // a lone character at the end carries no whole byte
            bits = 0
            return sawInvalid
        }
    }

    /// Text labelled base64 by mistake: encoders never put a space inside a line, and words
    /// separated by spaces are what text is made of. Looks at the first 2 KB.
    static func looksLikeText(_ b: UnsafeRawBufferPointer) -> Bool {
        let n = min(b.count, 2048)
        var i = 1
        var spaces = 0
        while i + 1 < n {
            if b[i] == Bytes.space, table[Int(b[i - 1])] != 0xFF, table[Int(b[i + 1])] != 0xFF { spaces += 1 }
            i += 1
        }
        return spaces >= 2
    }
}

enum QuotedPrintable {
    /// Decodes `=XX`, removes soft line breaks (`=` at the end of a line) and the whitespace
    /// that transport added at line ends; a malformed `=` stays as it is. Works a line at a
    /// time, copying the runs between `=` signs whole.
    static func decode(_ b: UnsafeRawBufferPointer) -> [UInt8] {
        let n = b.count
        guard let base = b.baseAddress else { return [] }
        return [UInt8](unsafeUninitializedCapacity: n) { out, count in
            let o0 = out.baseAddress!
            var o = 0
            var i = 0
            while i < n {
                let lineEnd = memchr(base + i, Int32(Bytes.lf), n - i).map { base.distance(to: UnsafeRawPointer($0)) } ?? n
                var contentEnd = lineEnd
                if contentEnd > i, b[contentEnd - 1] == Bytes.cr { contentEnd -= 1 }
                while contentEnd > i, b[contentEnd - 1] == Bytes.space || b[contentEnd - 1] == Bytes.tab { contentEnd -= 1 }
                var softBreak = false
                var k = i
                while k < contentEnd {
                    let eq: Int
                    if b[k] == UInt8(ascii: "=") {
                        eq = k  // text that is mostly escapes (CJK, say): no search, no copy
                    } else {
                        guard let p = memchr(base + k, Int32(UInt8(ascii: "=")), contentEnd - k) else {
                            (o0 + o).update(from: (base + k).assumingMemoryBound(to: UInt8.self), count: contentEnd - k)
                            o += contentEnd - k
                            break
                        }
                        eq = base.distance(to: UnsafeRawPointer(p))
                        (o0 + o).update(from: (base + k).assumingMemoryBound(to: UInt8.self), count: eq - k)
                        o += eq - k
                    }
                    if eq + 2 < contentEnd, let h = hexDigit(b[eq + 1]), let l = hexDigit(b[eq + 2]) {
                        o0[o] = h << 4 | l
                        o += 1
                        k = eq + 3
                    } else if eq == contentEnd - 1 {
                        softBreak = true
                        k = contentEnd
                    } else {
                        o0[o] = UInt8(ascii: "=")
                        o += 1
                        k = eq + 1
                    }
                }
                if lineEnd < n && !softBreak {
                    // keep the line break as written
                    let breakStart = lineEnd > i && b[lineEnd - 1] == Bytes.cr ? lineEnd - 1 : lineEnd
                    for j in breakStart...lineEnd {
                        o0[o] = b[j]
                        o += 1
                    }
                }
                i = lineEnd + 1
            }
            count = o
        }
    }
}

extension QuotedPrintable {
    /// Where a piece of about `size` bytes from `start` may end so that it decodes alone to the
    /// bytes it gives inside the whole (decoding works a line at a time): after the last line
    /// break, or in a longer line after a byte that is neither white space, a CR, nor part of an
    /// `=XX` escape or a soft break. A line with no such place (only spaces and `=`) is read to
    /// its end.
    static func pieceEnd(_ b: UnsafeRawBufferPointer, from start: Int, size: Int) -> Int {
        let n = b.count
        let limit = start + size
        guard limit < n else { return n }
        var k = limit
        while k > start {
            if b[k - 1] == Bytes.lf { return k }
            k -= 1
        }
        k = limit
        while k > start {
            let c = b[k - 1]
            if c != Bytes.space, c != Bytes.tab, c != Bytes.cr, c != UInt8(ascii: "="), k < 2 || b[k - 2] != UInt8(ascii: "=") { return k }
            k -= 1
        }
        guard let base = b.baseAddress, let lf = memchr(base + limit, Int32(Bytes.lf), n - limit) else { return n }
        return base.distance(to: UnsafeRawPointer(lf)) + 1
    }
}

/// uuencoded files: a `begin MODE NAME` line, encoded lines, `end`.
enum UUEncode {
    struct File {
        var name: String
        var data: [UInt8]
        /// The lines the block spans in the input, begin through end.
        var range: Range<Int>
    }

    /// Whether a line starts with `begin ` (searched by its line break: "b" is everywhere in text).
    static func mayHoldFiles(_ b: UnsafeRawBufferPointer) -> Bool {
        Bytes.hasPrefix(b, at: 0, beginWord) || Bytes.find(lineBeginWord, in: b, from: 0) != nil
    }

    private static let beginWord = Array("begin ".utf8)
    private static let lineBeginWord = Array("\nbegin ".utf8)

    static func decodeFirst(_ b: UnsafeRawBufferPointer) -> File? {
        findAll(b, limit: 1).first
    }

    /// Every uuencoded block in `b`.
    static func findAll(_ b: UnsafeRawBufferPointer, limit: Int = .max) -> [File] {
        var files: [File] = []
        var i = 0
        while i < b.count, files.count < limit {
            let (lineEnd, next) = Bytes.lineEnd(b, from: i, to: b.count)
            if Bytes.hasPrefix(b, at: i, beginWord), let name = beginLineName(b, i..<lineEnd),
                next < b.count, isUUEncodedLine(b, at: next)
            {
                var data = [UInt8]()
                var j = next
                var closed = false
                while j < b.count {
                    let (e, n) = Bytes.lineEnd(b, from: j, to: b.count)
                    if e - j >= 3, Bytes.hasPrefix(b, at: j, Array("end".utf8)), e - j == 3 || Bytes.isWhitespace(b[j + 3]) {
                        closed = true
                        j = n
                        break
                    }
                    decodeLine(b, j..<e, into: &data)
                    j = n
                }
                if closed {
                    files.append(File(name: name, data: data, range: i..<j))
                    i = j
                    continue
                }
            }
            i = next
        }
        return files
    }

    /// `begin 644 name`: the mode must be octal digits.
    private static func beginLineName(_ b: UnsafeRawBufferPointer, _ r: Range<Int>) -> String? {
        var i = r.lowerBound + 6
        let modeStart = i
        while i < r.upperBound, b[i] >= UInt8(ascii: "0"), b[i] <= UInt8(ascii: "7") { i += 1 }
        guard i > modeStart, i - modeStart <= 4, i < r.upperBound, b[i] == Bytes.space else { return nil }
        return String(decoding: b[(i + 1)..<r.upperBound], as: UTF8.self).trimmingSpaces  // may be empty
    }

    /// The first line of the data: its length character says how many bytes it holds, and
    /// the line is as long as that needs.
    private static func isUUEncodedLine(_ b: UnsafeRawBufferPointer, at i: Int) -> Bool {
        let (end, _) = Bytes.lineEnd(b, from: i, to: b.count)
        guard end > i else { return false }
        let count = Int((b[i] &- 0x20) & 0x3F)
        let needed = (count + 2) / 3 * 4
        return end - i - 1 >= needed && end - i - 1 <= needed + 2
    }

    private static func decodeLine(_ b: UnsafeRawBufferPointer, _ r: Range<Int>, into out: inout [UInt8]) {
        guard !r.isEmpty else { return }
        let count = Int((b[r.lowerBound] &- 0x20) & 0x3F)
        guard count > 0 else { return }
        var produced = 0
        var i = r.lowerBound + 1
        while produced < count, i < r.upperBound {
            var group: [UInt32] = [0, 0, 0, 0]
            for k in 0..<4 { group[k] = i + k < r.upperBound ? UInt32((b[i + k] &- 0x20) & 0x3F) : 0 }
            let v = group[0] << 18 | group[1] << 12 | group[2] << 6 | group[3]
            for shift in [16, 8, 0] where produced < count {
                out.append(UInt8(truncatingIfNeeded: v >> UInt32(shift)))
                produced += 1
            }
            i += 4
        }
    }
}
