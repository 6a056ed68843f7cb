/// RFC 3676 format=flowed undone: a line ending in a space is joined with the next line of
/// the same quote depth (without that space when DelSp=yes), space-stuffing is removed, and
/// the `-- ` signature line is never joined.
enum FlowedText {
    static func unflow(_ text: String, delSp: Bool) -> String {
        var out: [String] = []
        var paragraph = ""
        var paragraphDepth = -1
        var open = false  // the last line was soft-broken
        for raw in text.split(separator: "\n", omittingEmptySubsequences: false) {
            var line = raw.last == "\r" ? raw.dropLast() : raw
            var depth = 0
            while line.first == ">" {
                depth += 1
                line = line.dropFirst()
            }
            if line.first == " " { line = line.dropFirst() }  // space-stuffed
            let isSignature = line == "-- "
            let soft = !isSignature && line.last == " "
            if open, depth == paragraphDepth {
                paragraph += line
            } else {
                if open { out.append(quoted(paragraph, depth: paragraphDepth)) }
                paragraph = String(line)
                paragraphDepth = depth
            }
            if soft {
                if delSp { paragraph.removeLast() }
                open = true
            } else {
                out.append(quoted(paragraph, depth: depth))
                open = false
            }
        }
        if open { out.append(quoted(paragraph, depth: paragraphDepth)) }
        return out.joined(separator: "\n")
    }

    private static func quoted(_ line: String, depth: Int) -> String {
        depth == 0 ? line : String(repeating: ">", count: depth) + " " + line
    }
}
