import UTF8Text
#if canImport(Glibc)
import Glibc
#endif

/// CSS from `style` attributes and `<style>` blocks, rebuilt from what passes: each declaration
/// checked by property (an allowlist of what mail uses for layout and type) and by value
/// (nothing that runs, binds, imports, escapes or loads from elsewhere unless allowed); rules
/// kept only inside `@media`, their selectors scoped under the message's wrapper so they
/// cannot restyle the page around it. The output never contains '<' or '\\'.
struct CSSPolicy {
    /// What to do with a `url(…)`: the URL to write instead, or nil to drop the declaration.
    var resolveImage: ([UInt8]) -> [UInt8]?
    /// The wrapper's selector, e.g. ".mailpipe-body".
    var scope: [UInt8]
    var removed = 0
    /// A value lowercased for its check, kept to save an allocation per declaration.
    var lowered: [UInt8] = []

    /// Sanitized declarations, "prop:value;prop:value".
    mutating func declarations(_ css: UnsafeBufferPointer<UInt8>) -> [UInt8] {
        guard Self.hasComment(css) else { return uncommentedDeclarations(css) }
        return Self.withoutComments(css).withUnsafeBufferPointer { uncommentedDeclarations($0) }
    }

    mutating func declarations(_ css: [UInt8]) -> [UInt8] { css.withUnsafeBufferPointer { declarations($0) } }

    mutating func declarations(_ css: ArraySlice<UInt8>) -> [UInt8] { css.withUnsafeBufferPointer { declarations($0) } }

    /// Each declaration between top-level ';'s (as `forEachPiece` cuts them) checked, read from
    /// the bytes in place: a style attribute's declarations are most of the CSS mail holds.
    private mutating func uncommentedDeclarations(_ text: UnsafeBufferPointer<UInt8>) -> [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(text.count)
        Self.forEachPiece(of: text, at: UInt8(ascii: ";")) { appendDeclaration($0, to: &out) }
        return out
    }

    private mutating func appendDeclaration(_ declaration: UnsafeBufferPointer<UInt8>, to out: inout [UInt8]) {
        guard let colon = declaration.firstIndex(of: UInt8(ascii: ":")) else {
            if !Self.trimmed(declaration).isEmpty { removed += 1 }
            return
        }
        let name = Self.trimmed(UnsafeBufferPointer(rebasing: declaration[..<colon]))
        let value = Self.trimmed(UnsafeBufferPointer(rebasing: declaration[(colon + 1)...]))
        let mark = out.count
        if !out.isEmpty { out.append(UInt8(ascii: ";")) }
        let propertyStart = out.count
        out.append(contentsOf: name)
        Self.lowercase(&out, from: propertyStart)
        out.append(UInt8(ascii: ":"))
        let property = out.withUnsafeBufferPointer { PropertyName(UnsafeBufferPointer(rebasing: $0[propertyStart..<(out.count - 1)])) }
        if !appendCheckedValue(property: property, value, to: &out) {
            out.removeSubrange(mark...)
            removed += 1
        }
    }

    /// A sanitized style sheet: allowed rules with scoped selectors, `@media` kept around them,
    /// every other at-rule (`@import`, `@font-face`, `@keyframes`…) dropped.
    mutating func stylesheet(_ css: [UInt8]) -> [UInt8] {
        let text = Self.withoutComments(css[...])
        var out: [UInt8] = []
        text.withUnsafeBufferPointer { rules($0, into: &out) }
        return out
    }

    private mutating func rules(_ css: UnsafeBufferPointer<UInt8>, into out: inout [UInt8]) {
        var i = 0
        while i < css.count {
            let b = css[i]
            if Self.isSpace(b) || b == UInt8(ascii: ";") || b == UInt8(ascii: "}") { i += 1; continue }
            if b == UInt8(ascii: "<"), i + 3 < css.count, css[i + 1] == UInt8(ascii: "!"), css[i + 2] == UInt8(ascii: "-"),
               css[i + 3] == UInt8(ascii: "-") { i += 4; continue }  // "<!--"
            if b == UInt8(ascii: "-"), i + 2 < css.count, css[i + 1] == UInt8(ascii: "-"), css[i + 2] == UInt8(ascii: ">") {
                i += 3  // "-->"
                continue
            }
            // a prelude (selectors or at-rule) runs to '{' or, for statements like @import, ';'
            var j = i
            while j < css.count, css[j] != UInt8(ascii: "{"), css[j] != UInt8(ascii: ";") {
                j = Self.skipString(css, j)
            }
            let prelude = Self.trimmed(UnsafeBufferPointer(rebasing: css[i..<j]))
            guard j < css.count, css[j] == UInt8(ascii: "{") else {
                removed += 1  // a statement at-rule (@import, @charset) or garbage
                i = min(j + 1, css.count)
                continue
            }
            let close = Self.matchingBrace(css, j)
            let block = UnsafeBufferPointer(rebasing: css[(j + 1)..<close])
            i = min(close + 1, css.count)
            if prelude.first == UInt8(ascii: "@") {
                let lower = prelude.map(Self.lower)
                guard lower.starts(with: "@media".utf8), lower.allSatisfy(Self.isMediaQueryByte), Self.isBalanced(prelude) else {
                    removed += 1
                    continue
                }
                var inner: [UInt8] = []
                rules(block, into: &inner)
                if !inner.isEmpty {
                    Self.appendCollapsedSpaces(prelude, to: &out)
                    out.append(UInt8(ascii: "{"))
                    out += inner
                    out.append(UInt8(ascii: "}"))
                }
                continue
            }
            guard let selectors = scopedSelectors(prelude) else {
                removed += 1
                continue
            }
            let body = declarations(block)
            if body.isEmpty { continue }
            out += selectors
            out.append(UInt8(ascii: "{"))
            out += body
            out.append(UInt8(ascii: "}"))
        }
    }

    /// Each selector of a list under the wrapper: `body`, `html` and `:root` become the wrapper
    /// itself, ids get the prefix the message's ids get. nil when a selector holds something
    /// no selector needs ('<', '\\', '@', braces).
    func scopedSelectors(_ list: UnsafeBufferPointer<UInt8>) -> [UInt8]? {
        var out: [UInt8] = []
        out.reserveCapacity(list.count + 2 * scope.count)
        var s: [UInt8] = []  // each selector in turn, its spaces collapsed
        var refused = false
        Self.forEachPiece(of: list, at: UInt8(ascii: ",")) { selector in
            guard !refused else { return }
            s.removeAll(keepingCapacity: true)
            Self.appendCollapsedSpaces(Self.trimmed(selector), to: &s)
            if s.isEmpty { return }
            var nesting = false
            for b in s {
                switch b {
                case UInt8(ascii: "<"), UInt8(ascii: "\\"), UInt8(ascii: "@"), UInt8(ascii: "{"), UInt8(ascii: "}"):
                    refused = true
                    return
                case UInt8(ascii: "\""), UInt8(ascii: "'"), UInt8(ascii: "("), UInt8(ascii: ")"), UInt8(ascii: "["), UInt8(ascii: "]"):
                    nesting = true
                default: break
                }
            }
            if nesting, !Self.isBalanced(s[...]) {
                refused = true
                return
            }
            if !out.isEmpty { out.append(UInt8(ascii: ",")) }
            s.withUnsafeBufferPointer { appendScoped($0, to: &out) }
        }
        return refused || out.isEmpty ? nil : out
    }

    /// A selector (checked) under the wrapper, its ids prefixed. (Prefixing inserts after a '#'
    /// only, so the scope and the roots are found the same before it as after.)
    private func appendScoped(_ s: UnsafeBufferPointer<UInt8>, to out: inout [UInt8]) {
        if s.starts(with: scope) && (s.count == scope.count || !Self.isNameByte(s[scope.count])) {
            Self.appendPrefixedIds(s, to: &out)  // already scoped (sanitized before)
            return
        }
        var rest = s
        var replaced = false
        var descendant = false  // "body .a", not "body.a"
        while let root = Self.leadingRoot(rest) {
            let after = UnsafeBufferPointer(rebasing: rest[root...])
            descendant = after.first.map(Self.isSpace) ?? false
            rest = Self.trimmed(after)
            replaced = true
        }
        out += scope
        if replaced {
            if descendant, !rest.isEmpty { out.append(UInt8(ascii: " ")) }
            Self.appendPrefixedIds(rest, to: &out)  // what follows a root holds no bracket or string it began
        } else {
            out.append(UInt8(ascii: " "))
            Self.appendPrefixedIds(s, to: &out)
        }
    }

    /// `s` with each `#name` as `#mp-name` outside strings and attribute selectors (once:
    /// `#mp-…` stays), appended to `out`.
    static func appendPrefixedIds(_ s: UnsafeBufferPointer<UInt8>, to out: inout [UInt8]) {
        guard let base = s.baseAddress, memchr(base, Int32(UInt8(ascii: "#")), s.count) != nil else {
            return out.append(contentsOf: s)
        }
        var i = 0, run = 0  // s[run..<i] is still to copy
        var bracket = false
        while i < s.count {
            let b = s[i]
            if b == UInt8(ascii: "\"") || b == UInt8(ascii: "'") {
                i = skipString(s, i)
                continue
            }
            if b == UInt8(ascii: "[") { bracket = true } else if b == UInt8(ascii: "]") { bracket = false }
            i += 1
            if b == UInt8(ascii: "#"), !bracket, !UnsafeBufferPointer(rebasing: s[i...]).starts(with: idPrefix) {
                out.append(contentsOf: UnsafeBufferPointer(rebasing: s[run..<i]))
                out += idPrefix
                run = i
            }
        }
        out.append(contentsOf: UnsafeBufferPointer(rebasing: s[run...]))
    }

    private static let idPrefix = Array(ElementPolicy.linkIdPrefix.utf8)

    /// The length of a leading `html`, `body` or `:root` type selector, if there is one.
    private static func leadingRoot(_ s: UnsafeBufferPointer<UInt8>) -> Int? {
        for root in roots where s.count >= root.count {
            if zip(root, s).allSatisfy({ $0 == lower($1) }), s.count == root.count || !isNameByte(s[root.count]) {
                return root.count
            }
        }
        return nil
    }

    private static let roots = ["html", "body", ":root"].map { Array($0.utf8) }

    // MARK: values

    /// The allowed properties (what mail uses for layout and type) and the values each takes.
    private static let propertyTable = NameTable(CSSValues.specs.map { ($0.key, $0.value) })

    private static let urlFunction = Array("url(".utf8)

    /// Substrings (lowercase) that make a value unsafe wherever they appear.
    private static let forbidden: [[UInt8]] = [
        "expression", "javascript:", "vbscript:", "livescript:", "behavior", "binding", "@import", "image-set",
        "image(", "element(", "cross-fade", "paint(", "src(", "attr(",
    ].map { Array($0.utf8) }

    /// What decides a declaration's fate about its property's (lowercased) name.
    private struct PropertyName {
        /// The values it takes; nil when the property is not allowed.
        var spec: CSSValueSpec?

        init(_ name: UnsafeBufferPointer<UInt8>) {
            spec = CSSPolicy.propertyTable.value(for: name)
                ?? (name.count >= 4 && name[0] == UInt8(ascii: "m") && name[1] == UInt8(ascii: "s") && name[2] == UInt8(ascii: "o")
                    && name[3] == UInt8(ascii: "-") && name.allSatisfy(CSSPolicy.isNameByte) ? CSSValues.msoAny : nil)
        }
    }

    /// Appends the value to write for `property`; false to drop the declaration.
    private mutating func appendCheckedValue(property: PropertyName, _ value: UnsafeBufferPointer<UInt8>, to out: inout [UInt8]) -> Bool {
        guard !value.isEmpty, let spec = property.spec else { return false }
        // one pass over the value says which of the checks and rewrites below it needs
        var seen: UInt8 = 0
        var previous: UInt8 = 0
        var doubleSpace = false
        Self.valueBytes.withUnsafeBufferPointer { table in
            for b in value {
                seen |= table[Int(b)]
                doubleSpace = doubleSpace || b == 0x20 && previous == 0x20
                previous = b
            }
        }
        if seen & Self.refusedByte != 0 { return false }
        if seen & Self.nestingByte != 0, !Self.isBalanced(value) { return false }
        guard isValid(value, spec, lowercase: seen & Self.upperByte != 0, important: seen & Self.bang != 0) else { return false }
        // every forbidden word needs a function call to do harm in a value
        guard seen & Self.openParenthesis != 0 else {
            if seen & Self.otherSpace == 0, !doubleSpace {
                out.append(contentsOf: value)  // trimmed already: nothing to collapse
            } else {
                Self.appendCollapsedSpaces(value, to: &out)
            }
            return true
        }
        let lower = value.map(Self.lower)
        for word in Self.forbidden where ByteSearch.contains(lower, word) { return false }
        var collapsed: [UInt8] = []
        Self.appendCollapsedSpaces(value, to: &collapsed)
        if ByteSearch.contains(lower, Self.urlFunction) {
            guard let rewritten = rewritingURLs(collapsed) else { return false }
            collapsed = rewritten
        }
        out += collapsed
        return true
    }

    // What a byte of a value calls for, as bits of `valueBytes`.
    private static let refusedByte: UInt8 = 1  // '\\', '<', '>', a control other than tab, LF, CR
    private static let nestingByte: UInt8 = 2  // quotes, parentheses, brackets, braces: isBalanced checks them
    private static let openParenthesis: UInt8 = 4
    private static let upperByte: UInt8 = 8
    private static let otherSpace: UInt8 = 16  // tab, LF, CR: collapsed to a space
    private static let bang: UInt8 = 32  // '!', of `!important`

    private static let valueBytes: [UInt8] = (0..<256).map { i in
        let b = UInt8(i)
        var bits: UInt8 = 0
        if b == UInt8(ascii: "\\") || b == UInt8(ascii: "<") || b == UInt8(ascii: ">") || b < 0x20 && b != 0x09 && b != 0x0A && b != 0x0D || b == 0x7F {
            bits |= refusedByte
        }
        if b == UInt8(ascii: "\"") || b == UInt8(ascii: "'") || b == UInt8(ascii: "(") || b == UInt8(ascii: ")") || b == UInt8(ascii: "[")
            || b == UInt8(ascii: "]") || b == UInt8(ascii: "{") || b == UInt8(ascii: "}") {
            bits |= nestingByte
        }
        if b == UInt8(ascii: "(") { bits |= openParenthesis }
        if b >= 0x41 && b <= 0x5A { bits |= upperByte }
        if b == 0x09 || b == 0x0A || b == 0x0D { bits |= otherSpace }
        if b == UInt8(ascii: "!") { bits |= bang }
        return bits
    }

    private static let importantWord: StaticString = "important"

    /// Whether the value, in any case and with or without `!important`, is one the property takes.
    /// (`lowercase`: the value holds capitals; `important`: a '!'.)
    private mutating func isValid(_ value: UnsafeBufferPointer<UInt8>, _ spec: CSSValueSpec, lowercase: Bool, important: Bool) -> Bool {
        guard lowercase else { return Self.isValidLowercase(value, spec, important: important) }
        lowered.removeAll(keepingCapacity: true)
        lowered.append(contentsOf: value)
        return lowered.withUnsafeMutableBufferPointer { p in
            for k in 0..<p.count { p[k] = Self.lower(p[k]) }
            return Self.isValidLowercase(UnsafeBufferPointer(p), spec, important: important)
        }
    }

    private static func isValidLowercase(_ all: UnsafeBufferPointer<UInt8>, _ spec: CSSValueSpec, important: Bool) -> Bool {
        var end = all.count
        if important, let bang = all.lastIndex(of: UInt8(ascii: "!")) {
            let word = trimmed(UnsafeBufferPointer(rebasing: all[(bang + 1)...]))
            guard word.count == 9, memcmp(word.baseAddress!, Self.importantWord.utf8Start, 9) == 0 else { return false }
            end = bang
            while end > 0, isSpace(all[end - 1]) { end -= 1 }
        }
        return end > 0 && CSSValues.isValid(UnsafeBufferPointer(rebasing: all[..<end]), spec)
    }

    /// Each `url(…)` in a value replaced by what `resolveImage` says; nil when one is refused.
    private func rewritingURLs(_ value: [UInt8]) -> [UInt8]? {
        var out: [UInt8] = []
        var i = 0
        while i < value.count {
            let lowerRest = value[i...].prefix(4).map(Self.lower)
            guard lowerRest.elementsEqual("url(".utf8) else {
                if value[i] == UInt8(ascii: "\"") || value[i] == UInt8(ascii: "'") {
                    let end = Self.skipString(value[...], i)
                    out += value[i..<end]
                    i = end
                } else {
                    out.append(value[i])
                    i += 1
                }
                continue
            }
            var j = i + 4
            while j < value.count, Self.isSpace(value[j]) { j += 1 }
            var url: ArraySlice<UInt8>
            if j < value.count, value[j] == UInt8(ascii: "\"") || value[j] == UInt8(ascii: "'") {
                let end = Self.skipString(value[...], j)
                url = value[(j + 1)..<max(j + 1, end - 1)]
                j = end
                while j < value.count, Self.isSpace(value[j]) { j += 1 }
                guard j < value.count, value[j] == UInt8(ascii: ")") else { return nil }
            } else {
                guard let close = value[j...].firstIndex(of: UInt8(ascii: ")")) else { return nil }
                url = Self.trimmed(value[j..<close])
                j = close
            }
            guard let resolved = url.withContiguousStorageIfAvailable({ resolveImage(URLPolicy.cleaned($0)) }) ?? nil else { return nil }
            out += "url(\"".utf8
            for b in resolved {
                switch b {
                case UInt8(ascii: "\""): out += "%22".utf8
                case UInt8(ascii: "'"): out += "%27".utf8
                case UInt8(ascii: "("): out += "%28".utf8
                case UInt8(ascii: ")"): out += "%29".utf8
                default: out.append(b)
                }
            }
            out += "\")".utf8
            i = j + 1
        }
        return out
    }

    // MARK: scanning

    static func withoutComments(_ css: ArraySlice<UInt8>) -> [UInt8] {
        css.withUnsafeBufferPointer { withoutComments($0) }
    }

    /// Each comment (outside strings) as one space. CSS with no "/*" at all comes back as it is.
    static func withoutComments(_ css: UnsafeBufferPointer<UInt8>) -> [UInt8] {
        guard hasComment(css) else { return Array(css) }
        var out: [UInt8] = []
        out.reserveCapacity(css.count)
        var i = 0, run = 0  // bytes from run to i are copied as they are
        while i < css.count {
            if css[i] == UInt8(ascii: "/"), i + 1 < css.count, css[i + 1] == UInt8(ascii: "*") {
                out.append(contentsOf: UnsafeBufferPointer(rebasing: css[run..<i]))
                var j = i + 2
                while j + 1 < css.count, !(css[j] == UInt8(ascii: "*") && css[j + 1] == UInt8(ascii: "/")) { j += 1 }
                i = min(j + 2, css.count)
                run = i
                out.append(UInt8(ascii: " "))
                continue
            }
            if css[i] == UInt8(ascii: "\"") || css[i] == UInt8(ascii: "'") {
                i = skipString(css, i)
                continue
            }
            i += 1
        }
        out.append(contentsOf: UnsafeBufferPointer(rebasing: css[run..<css.count]))
        return out
    }

    /// Whether "/*" appears anywhere (in a string or not): where it does not, there is no comment.
    private static func hasComment(_ css: UnsafeBufferPointer<UInt8>) -> Bool {
        guard let base = css.baseAddress else { return false }
        var from = 0
        while from < css.count, let slash = memchr(base + from, Int32(UInt8(ascii: "/")), css.count - from) {
            let at = UnsafePointer<UInt8>(slash.assumingMemoryBound(to: UInt8.self)) - base
            if at + 1 < css.count, css[at + 1] == UInt8(ascii: "*") { return true }
            from = at + 1
        }
        return false
    }

    /// Each piece of `s` between separators outside strings, parentheses and brackets.
    @inline(__always)
    static func forEachPiece(of s: UnsafeBufferPointer<UInt8>, at separator: UInt8, _ body: (UnsafeBufferPointer<UInt8>) -> Void) {
        var start = 0, i = 0, depth = 0
        // the bytes below 64 that stop the skip below: quotes, parentheses, and the separator if it is one
        let stops: UInt64 = 1 << 0x22 | 1 << 0x27 | 1 << 0x28 | 1 << 0x29 | (separator < 64 ? 1 << UInt64(separator) : 0)
        while true {
            while i < s.count {
                let b = s[i]
                if b < 64 ? stops >> UInt64(b) & 1 != 0 : b == UInt8(ascii: "[") || b == UInt8(ascii: "]") || b == separator { break }
                i += 1
            }
            if i < s.count {
                let b = s[i]
                if b == UInt8(ascii: "\"") || b == UInt8(ascii: "'") { i = skipString(s, i); continue }
                if b == UInt8(ascii: "(") || b == UInt8(ascii: "[") { depth += 1 }
                if (b == UInt8(ascii: ")") || b == UInt8(ascii: "]")) && depth > 0 { depth -= 1 }
                if b != separator || depth != 0 { i += 1; continue }
            }
            body(UnsafeBufferPointer(rebasing: s[start..<i]))
            guard i < s.count else { return }
            i += 1
            start = i
        }
    }

    /// The index after a quoted string starting at `i` (or after the byte at `i` if it is no quote).
    static func skipString<Bytes: RandomAccessCollection<UInt8>>(_ s: Bytes, _ i: Int) -> Int where Bytes.Index == Int {
        let quote = s[i]
        guard quote == UInt8(ascii: "\"") || quote == UInt8(ascii: "'") else { return i + 1 }
        var j = i + 1
        while j < s.endIndex, s[j] != quote, s[j] != 0x0A { j += 1 }
        return min(j + 1, s.endIndex)
    }

    /// Whether every string in `s` ends and every parenthesis and bracket closes, with no brace:
    /// what is written out must split the same way when it is read again.
    static func isBalanced(_ s: ArraySlice<UInt8>) -> Bool { s.withUnsafeBufferPointer { isBalanced($0) } }

    static func isBalanced(_ s: UnsafeBufferPointer<UInt8>) -> Bool {
        var depth = SmallStack()
        var i = 0
        while i < s.count {
            switch s[i] {
            case UInt8(ascii: "\""), UInt8(ascii: "'"):
                let end = skipString(s, i)
                guard end - i >= 2, s[end - 1] == s[i] else { return false }
                i = end
                continue
            case UInt8(ascii: "("): guard depth.push(false) else { return false }
            case UInt8(ascii: "["): guard depth.push(true) else { return false }
            case UInt8(ascii: ")"), UInt8(ascii: "]"):
                guard depth.pop() == (s[i] == UInt8(ascii: "]")) else { return false }
            case UInt8(ascii: "{"), UInt8(ascii: "}"): return false
            default: break
            }
            i += 1
        }
        return depth.isEmpty
    }

    /// Up to 64 open brackets, each a bit (true for '['), without an allocation.
    private struct SmallStack {
        private var bits: UInt64 = 0
        private var count = 0
        var isEmpty: Bool { count == 0 }
        mutating func push(_ square: Bool) -> Bool {
            guard count < 64 else { return false }
            bits = bits << 1 | (square ? 1 : 0)
            count += 1
            return true
        }
        mutating func pop() -> Bool? {
            guard count > 0 else { return nil }
            defer { bits >>= 1; count -= 1 }
            return bits & 1 == 1
        }
    }

    /// The index of the '}' closing the '{' at `open` (or the end).
    static func matchingBrace(_ s: UnsafeBufferPointer<UInt8>, _ open: Int) -> Int {
        var depth = 0
        var i = open
        while i < s.count {
            switch s[i] {
            case UInt8(ascii: "{"): depth += 1
            case UInt8(ascii: "}"):
                depth -= 1
                if depth == 0 { return i }
            case UInt8(ascii: "\""), UInt8(ascii: "'"):
                i = skipString(s, i)
                continue
            default: break
            }
            i += 1
        }
        return s.count
    }

    static func trimmed(_ s: ArraySlice<UInt8>) -> ArraySlice<UInt8> {
        var lo = s.startIndex, hi = s.endIndex
        while lo < hi, isSpace(s[lo]) { lo += 1 }
        while hi > lo, isSpace(s[hi - 1]) { hi -= 1 }
        return s[lo..<hi]
    }

    static func trimmed(_ s: UnsafeBufferPointer<UInt8>) -> UnsafeBufferPointer<UInt8> {
        var lo = 0, hi = s.count
        while lo < hi, isSpace(s[lo]) { lo += 1 }
        while hi > lo, isSpace(s[hi - 1]) { hi -= 1 }
        return UnsafeBufferPointer(rebasing: s[lo..<hi])
    }

    /// `s` (trimmed) with runs of whitespace as one space, appended to `out`.
    static func appendCollapsedSpaces(_ s: UnsafeBufferPointer<UInt8>, to out: inout [UInt8]) {
        if let first = s.first, let last = s.last, !isSpace(first), !isSpace(last), !hasSpaceToCollapse(s) {
            out.append(contentsOf: s)  // most values: nothing to collapse
            return
        }
        var space = false
        var first = true
        for b in s {
            if isSpace(b) { space = true; continue }
            if space, !first { out.append(UInt8(ascii: " ")) }
            space = false
            first = false
            out.append(b)
        }
    }

    /// Whether `s` holds whitespace other than single spaces.
    private static func hasSpaceToCollapse(_ s: UnsafeBufferPointer<UInt8>) -> Bool {
        var previousSpace = false
        for b in s {
            if b == 0x20 {
                if previousSpace { return true }
                previousSpace = true
            } else {
                if b == 0x09 || b == 0x0A || b == 0x0D || b == 0x0C { return true }
                previousSpace = false
            }
        }
        return false
    }

    /// ASCII letters of `bytes[from...]` made lowercase in place.
    static func lowercase(_ bytes: inout [UInt8], from start: Int) {
        bytes.withUnsafeMutableBufferPointer { p in
            for k in start..<p.count { p[k] = lower(p[k]) }
        }
    }

    static func isSpace(_ b: UInt8) -> Bool { b == 0x20 || b == 0x09 || b == 0x0A || b == 0x0D || b == 0x0C }
    static func lower(_ b: UInt8) -> UInt8 { b >= 0x41 && b <= 0x5A ? b | 0x20 : b }
    static func isNameByte(_ b: UInt8) -> Bool {
        (b | 0x20) >= 0x61 && (b | 0x20) <= 0x7A || b >= 0x30 && b <= 0x39 || b == UInt8(ascii: "-") || b == UInt8(ascii: "_") || b >= 0x80
    }
    private static func isMediaQueryByte(_ b: UInt8) -> Bool {
        isNameByte(b) || isSpace(b) || b == UInt8(ascii: "@") || b == UInt8(ascii: "(") || b == UInt8(ascii: ")") || b == UInt8(ascii: ":") || b == UInt8(ascii: ",") || b == UInt8(ascii: ".") || b == UInt8(ascii: "/")
    }
}
