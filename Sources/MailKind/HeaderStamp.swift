import UTF8Text

/// Adds header fields to a raw message the way spamassassin does: at the end of the header
/// block, replacing any fields of the same names already there (a sender could forge them),
/// every other byte left as it was. A leading mbox `From ` line stays first.
public func stampHeaders(_ message: [UInt8], _ fields: [(name: String, value: String)]) -> [UInt8] {
    let names = Set(fields.map { ASCII.lowercased($0.name) })
    var out = [UInt8]()
    out.reserveCapacity(message.count + 128)
    var i = 0
    var crlf = false
    var firstLine = true
    var dropping = false
    // Walk the header block line by line.
    while i < message.count {
        var end = i
        while end < message.count && message[end] != 0x0A { end += 1 }
        let lineEnd = end < message.count ? end + 1 : end
        var content = end
        if content > i && message[content - 1] == 0x0D { content -= 1 }
        if firstLine {
            crlf = content < end
            firstLine = false
            if message[i..<content].starts(with: Array("From ".utf8)) {
                out += message[i..<lineEnd]
                i = lineEnd
                continue
            }
        }
        if content == i { break }  // the blank line before the body
        let isContinuation = message[i] == 0x20 || message[i] == 0x09
        if !isContinuation {
            let colon = message[i..<content].firstIndex(of: UInt8(ascii: ":")) ?? content
            dropping = names.contains(ASCII.lowercased(String(decoding: message[i..<colon], as: UTF8.self)))
        }
        if !dropping { out += message[i..<lineEnd] }
        i = lineEnd
    }
    if let last = out.last, last != 0x0A { out += crlf ? [0x0D, 0x0A] : [0x0A] }
    for field in fields {
        out += Array("\(field.name): \(field.value)".utf8)
        out += crlf ? [0x0D, 0x0A] : [0x0A]
    }
    if i >= message.count { out += crlf ? [0x0D, 0x0A] : [0x0A] }  // headers only: end the block
    out += message[i...]
    return out
}
