import UTF8Text

/// The text of a message as format=flowed (RFC 3676) lines, and the transfer encoding its bytes
/// need.
enum FlowedWriting {
    static let width = 78

    /// `text` (any line ends) as flowed lines joined by LF: each line's trailing spaces
    /// removed (a trailing space means "continued"), "-- " (the signature's separator) kept,
    /// lines starting with ">" kept whole as quoted lines (as a plain-text mail composer reads
    /// them), lines starting with a space or "From " space-stuffed, and other lines longer than
    /// 78 characters broken after a space (a soft break) where they have one.
    static func encode(_ text: String) -> String {
        var lines: [String] = []
        let normalized = text.replacingCRLF
        var source = normalized.split(separator: "\n", omittingEmptySubsequences: false)
        if source.last == "" { source.removeLast() }
        for raw in source {
            if raw == "-- " {
                lines.append("-- ")
                continue
            }
            var line = Substring(raw)
            while line.last == " " || line.last == "\t" { line.removeLast() }
            if line.first == ">" {
                lines.append(String(line))  // a quoted line: its depth is its ">"s; kept whole
                continue
            }
            for piece in wrap(line) {
                let stuffed = piece.first == " " || piece.first == ">" || piece.hasPrefix("From ") ? " " + piece : piece
                lines.append(stuffed)
            }
        }
        return lines.joined(separator: "\n") + "\n"
    }

    /// A line cut after spaces into pieces of at most `width` characters (each but the last
    /// ending in the space that makes it flow on); a word longer than that stays whole.
    private static func wrap(_ line: Substring) -> [String] {
        guard line.count > width else { return [String(line)] }
        var pieces: [String] = []
        var rest = line
        while rest.count > width {
            // the last space within the width, else the first after it
            let limit = rest.index(rest.startIndex, offsetBy: width - 1)
            var cut = rest[...limit].lastIndex(of: " ")
            if cut == nil || cut == rest.startIndex { cut = rest[limit...].firstIndex(of: " ") }
            // "-- " alone is the signature's separator (RFC 3676 section 4.3), never a soft break
            if let c = cut, rest[...c] == "-- " { cut = rest[rest.index(after: c)...].firstIndex(of: " ") }
            guard let space = cut else { break }
            pieces.append(String(rest[...space]))
            rest = rest[rest.index(after: space)...]
        }
        pieces.append(String(rest))
        return pieces
    }

    /// What the lines need: "7bit" for ASCII, "8bit" for UTF-8, "quoted-printable" for a line
    /// past SMTP's 998 octets or a control character a transport may not carry.
    static func transferEncoding(_ bytes: [UInt8]) -> String {
        var lineLength = 0, high = false
        for b in bytes {
            if b == 0x0A {
                lineLength = 0
                continue
            }
            lineLength += 1
            if lineLength > 998 || b == 0 || b == 0x0D { return "quoted-printable" }
            if b >= 0x80 { high = true }
        }
        return high ? "8bit" : "7bit"
    }
}

/// Quoted-printable (RFC 2045 section 6.7): lines of at most 76 characters, spaces and tabs
/// before a line's end encoded so that no transport strips them.
enum QuotedPrintable {
    private static let hex = Array("0123456789ABCDEF".utf8)

    static func encode(_ bytes: [UInt8]) -> [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(bytes.count * 5 / 4)
        var line: [UInt8] = []
        func emit(_ token: [UInt8]) {
            if line.count + token.count > 75 {
                out += line + [UInt8(ascii: "="), 0x0A]
                line = []
            }
            line += token
        }
        var i = 0
        while i < bytes.count {
            let b = bytes[i]
            if b == 0x0A {
                out += line + [0x0A]
                line = []
            } else {
                let atLineEnd = i + 1 == bytes.count || bytes[i + 1] == 0x0A
                let literal = (b >= 33 && b <= 126 && b != UInt8(ascii: "=")) || ((b == 0x20 || b == 0x09) && !atLineEnd)
                emit(literal ? [b] : [UInt8(ascii: "="), hex[Int(b >> 4)], hex[Int(b & 15)]])
            }
            i += 1
        }
        out += line
        if !line.isEmpty { out.append(0x0A) }
        return out
    }
}

extension String {
    /// CRLF and lone CR as LF.
    var replacingCRLF: String { utf8.contains(0x0D) ? String(decoding: LineEnds.lf(Array(utf8)), as: UTF8.self) : self }
}
