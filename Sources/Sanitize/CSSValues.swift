#if canImport(Glibc)
import Glibc
#endif

/// What values each allowed property takes, as Roundcube's washtml checks them: a value is kept
/// only when every one of its parts is a valid part of that property's values (a `width` takes
/// a length, a percentage, `auto` or `calc()` of those; a `color` a colour). The check is by
/// part, not by the full grammar of each property: the order and number of parts are left to
/// the browser, which ignores a wrong one as it would have anyway; what cannot pass is a part
/// of the wrong kind, an unknown word, a function other than the few that draw, or junk.
struct CSSValueSpec: Sendable {
    var kinds: Kinds
    var keywords: Keywords

    struct Kinds: OptionSet, Sendable {
        let rawValue: UInt16
        static let length = Kinds(rawValue: 1 << 0)
        static let percentage = Kinds(rawValue: 1 << 1)
        static let number = Kinds(rawValue: 1 << 2)
        static let color = Kinds(rawValue: 1 << 3)
        static let angle = Kinds(rawValue: 1 << 4)
        static let string = Kinds(rawValue: 1 << 5)
        static let url = Kinds(rawValue: 1 << 6)
        static let gradient = Kinds(rawValue: 1 << 7)
        /// Any word: font families (`微軟正黑體`, `Segoe UI`), Outlook's own `mso-` values.
        static let anyWord = Kinds(rawValue: 1 << 8)
        /// Comma-separated lists (font-family, backgrounds, shadows).
        static let commas = Kinds(rawValue: 1 << 9)
        /// `/` between parts (font size/line-height, background position/size, radii, ratios).
        static let slash = Kinds(rawValue: 1 << 10)
        /// `+ - * /` between parts: inside calc() and its kin only.
        static let operators = Kinds(rawValue: 1 << 11)

        static let lengthOrPercentage: Kinds = [.length, .percentage]
    }

    /// Keyword groups, one bit each; a word is valid for a property when one of its groups is.
    struct Keywords: OptionSet, Sendable {
        let rawValue: UInt64
    }
}

enum CSSValues {
    /// The spec of every allowed property (lowercase); `mso-*` properties not listed take
    /// `msoAny`.
    static let specs: [String: CSSValueSpec] = {
        typealias K = CSSValueSpec.Kinds
        let box: K = [.length, .percentage]
        var s: [String: CSSValueSpec] = [:]
        func add(_ names: [String], _ kinds: K, _ groups: [String] = []) {
            let spec = CSSValueSpec(kinds: kinds, keywords: CSSValues.keywordMask(groups))
            for n in names { s[n] = spec }
        }
        let sides = ["top", "right", "bottom", "left"]
        add(["width", "height", "min-width", "min-height", "flex-basis"], box, ["auto", "sizing"])
        add(["max-width", "max-height"], box, ["none", "sizing"])
        add(["top", "right", "bottom", "left"], box, ["auto"])
        add(["margin"] + sides.map { "margin-" + $0 }, box, ["auto"])
        add(["padding"] + sides.map { "padding-" + $0 }, box)
        add(["color", "background-color", "border-color", "outline-color", "text-decoration-color"]
            + sides.map { "border-\($0)-color" }, [.color])
        add(["background"], [.color, .url, .gradient, .length, .percentage, .commas, .slash],
            ["none", "auto", "bgRepeat", "bgPosition", "bgSize", "box", "bgAttachment"])
        add(["background-image"], [.url, .gradient, .commas], ["none"])
        add(["background-position"], [.length, .percentage, .commas], ["bgPosition"])
        add(["background-repeat"], [.commas], ["bgRepeat"])
        add(["background-size"], [.length, .percentage, .commas], ["auto", "bgSize"])
        add(["background-clip", "background-origin"], [.commas], ["box"])
        add(["background-attachment"], [.commas], ["bgAttachment"])
        add(["border", "outline"] + sides.map { "border-" + $0 }, [.length, .color], ["borderStyle", "borderWidth", "auto"])
        add(["border-style", "outline-style"] + sides.map { "border-\($0)-style" }, [], ["borderStyle", "auto"])
        add(["border-width", "outline-width"] + sides.map { "border-\($0)-width" }, [.length], ["borderWidth"])
        add(["border-radius", "border-top-left-radius", "border-top-right-radius", "border-bottom-left-radius",
             "border-bottom-right-radius"], [.length, .percentage, .slash])
        add(["border-collapse"], [], ["borderCollapse"])
        add(["border-spacing"], [.length])
        add(["box-shadow", "text-shadow"], [.length, .color, .commas], ["none", "inset"])
        add(["box-sizing"], [], ["box"])
        add(["caption-side"], [], ["captionSide"])
        add(["clear", "float"], [], ["none", "floatSide"])
        add(["column-count"], [.number], ["auto"])
        add(["column-gap", "gap", "row-gap"], box, ["normal"])
        add(["columns"], [.length, .number], ["auto"])
        add(["direction"], [], ["direction"])
        add(["display"], [], ["display", "none"])
        add(["empty-cells"], [], ["emptyCells"])
        add(["font"], [.length, .percentage, .number, .string, .anyWord, .commas, .slash])
        add(["font-family"], [.string, .anyWord, .commas])
        add(["font-feature-settings"], [.string, .number, .commas], ["normal", "onOff"])
        add(["font-kerning"], [], ["auto", "normal", "none"])
        add(["font-size"], box, ["fontSize"])
        add(["font-stretch"], [.percentage], ["normal", "fontStretch"])
        add(["font-style"], [.angle], ["normal", "fontStyle"])
        add(["font-variant"], [], ["normal", "none", "fontVariant"])
        add(["font-weight"], [.number], ["normal", "fontWeight"])
        add(["hyphens"], [], ["none", "auto", "manual"])
        add(["letter-spacing", "word-spacing"], [.length, .percentage], ["normal"])
        add(["line-height"], [.length, .percentage, .number], ["normal"])
        add(["list-style"], [.url], ["none", "listStyle", "listPosition"])
        add(["list-style-position"], [], ["listPosition"])
        add(["list-style-type"], [.string], ["none", "listStyle"])
        add(["object-fit"], [], ["none", "objectFit"])
        add(["opacity"], [.number, .percentage])
        add(["overflow", "overflow-x", "overflow-y"], [], ["overflow", "auto"])
        add(["overflow-wrap", "word-wrap"], [], ["normal", "wrap"])
        add(["page-break-after", "page-break-before", "page-break-inside"], [], ["auto", "pageBreak"])
        add(["position"], [], ["position"])
        add(["tab-size"], [.length, .number])
        add(["table-layout"], [], ["auto", "fixed"])
        add(["text-align"], [], ["textAlign"])
        add(["text-decoration"], [.color, .length, .percentage], ["none", "decorationLine", "decorationStyle", "auto"])
        add(["text-decoration-line"], [], ["none", "decorationLine"])
        add(["text-decoration-style"], [], ["decorationStyle"])
        add(["text-indent"], box)
        add(["text-overflow"], [.string], ["textOverflow"])
        add(["text-transform"], [], ["none", "textTransform"])
        add(["text-size-adjust", "-webkit-text-size-adjust", "-ms-text-size-adjust"], [.percentage], ["none", "auto"])
        add(["-webkit-font-smoothing", "-moz-osx-font-smoothing"], [], ["auto", "none", "smoothing"])
        add(["unicode-bidi"], [], ["normal", "bidi"])
        add(["vertical-align"], [.length, .percentage], ["verticalAlign"])
        add(["visibility"], [], ["visibility"])
        add(["white-space"], [], ["normal", "whiteSpace"])
        add(["word-break"], [], ["normal", "wordBreak"])
        add(["writing-mode"], [], ["writingMode"])
        add(["flex"], [.number, .length, .percentage], ["auto", "none", "sizing"])
        add(["flex-direction"], [], ["flexDirection"])
        add(["flex-grow", "flex-shrink", "order", "line-clamp", "-webkit-line-clamp"], [.number], ["none"])
        add(["flex-wrap"], [], ["flexWrap"])
        add(["align-items", "align-content", "align-self", "justify-content"], [], ["auto", "normal", "alignment"])
        add(["-webkit-box-orient"], [], ["boxOrient"])
        add(["aspect-ratio"], [.number, .slash], ["auto"])
        return s
    }()

    /// Outlook's `mso-` properties: its own words, lengths, numbers and colours.
    static let msoAny = CSSValueSpec(kinds: [.length, .percentage, .number, .color, .string, .anyWord, .commas], keywords: [])

    /// Keyword groups by name, and the words of each. Every property also takes the CSS-wide
    /// keywords (`inherit`, `initial`, `unset`, `revert`).
    static let groups: [(name: String, words: [String])] = [
        ("global", ["inherit", "initial", "unset", "revert", "revert-layer"]),
        ("auto", ["auto"]), ("none", ["none"]), ("normal", ["normal"]), ("manual", ["manual"]), ("fixed", ["fixed"]),
        ("inset", ["inset"]),
        ("sizing", ["fit-content", "max-content", "min-content", "-webkit-fill-available", "-moz-available", "stretch", "content"]),
        ("display", ["block", "inline", "inline-block", "flex", "inline-flex", "grid", "inline-grid", "table", "inline-table",
                     "table-row", "table-cell", "table-caption", "table-column", "table-column-group", "table-header-group",
                     "table-footer-group", "table-row-group", "list-item", "contents", "flow-root", "run-in", "-webkit-box",
                     "-webkit-inline-box", "-ms-flexbox", "-ms-inline-flexbox", "-webkit-flex", "-webkit-inline-flex", "-moz-box"]),
        ("borderStyle", ["none", "hidden", "dotted", "dashed", "solid", "double", "groove", "ridge", "inset", "outset"]),
        ("borderWidth", ["thin", "medium", "thick"]),
        ("borderCollapse", ["collapse", "separate"]),
        ("bgRepeat", ["repeat", "repeat-x", "repeat-y", "no-repeat", "space", "round"]),
        ("bgPosition", ["left", "right", "top", "bottom", "center"]),
        ("bgSize", ["cover", "contain", "auto"]),
        ("box", ["border-box", "padding-box", "content-box", "text"]),
        ("bgAttachment", ["scroll", "fixed", "local"]),
        ("captionSide", ["top", "bottom"]),
        ("floatSide", ["left", "right", "both", "inline-start", "inline-end"]),
        ("direction", ["ltr", "rtl"]),
        ("emptyCells", ["show", "hide"]),
        ("onOff", ["on", "off"]),
        ("fontSize", ["xx-small", "x-small", "small", "medium", "large", "x-large", "xx-large", "xxx-large", "smaller", "larger"]),
        ("fontStretch", ["ultra-condensed", "extra-condensed", "condensed", "semi-condensed", "semi-expanded", "expanded",
                         "extra-expanded", "ultra-expanded"]),
        ("fontStyle", ["italic", "oblique"]),
        ("fontVariant", ["small-caps", "all-small-caps", "petite-caps", "all-petite-caps", "unicase", "titling-caps"]),
        ("fontWeight", ["bold", "bolder", "lighter"]),
        ("listStyle", ["disc", "circle", "square", "decimal", "decimal-leading-zero", "lower-roman", "upper-roman", "lower-alpha",
                       "upper-alpha", "lower-latin", "upper-latin", "lower-greek", "armenian", "georgian", "cjk-ideographic",
                       "cjk-decimal", "cjk-earthly-branch", "cjk-heavenly-stem", "hiragana", "katakana", "hiragana-iroha",
                       "katakana-iroha", "trad-chinese-informal", "simp-chinese-informal", "hebrew", "arabic-indic", "persian"]),
        ("listPosition", ["inside", "outside"]),
        ("objectFit", ["fill", "contain", "cover", "scale-down"]),
        ("overflow", ["visible", "hidden", "scroll", "clip"]),
        ("wrap", ["break-word", "anywhere"]),
        ("pageBreak", ["always", "avoid", "left", "right", "page"]),
        ("position", ["static", "relative"]),
        ("textAlign", ["left", "right", "center", "justify", "start", "end", "match-parent", "-webkit-center", "-moz-center",
                       "-webkit-left", "-webkit-right", "-khtml-center"]),
        ("decorationLine", ["underline", "overline", "line-through", "blink"]),
        ("decorationStyle", ["solid", "double", "dotted", "dashed", "wavy"]),
        ("textOverflow", ["clip", "ellipsis"]),
        ("textTransform", ["capitalize", "uppercase", "lowercase", "full-width"]),
        ("smoothing", ["antialiased", "subpixel-antialiased", "grayscale"]),
        ("bidi", ["embed", "isolate", "bidi-override", "isolate-override", "plaintext"]),
        ("verticalAlign", ["baseline", "sub", "super", "text-top", "text-bottom", "middle", "top", "bottom"]),
        ("visibility", ["visible", "hidden", "collapse"]),
        ("whiteSpace", ["nowrap", "pre", "pre-wrap", "pre-line", "break-spaces"]),
        ("wordBreak", ["break-all", "keep-all", "break-word"]),
        ("writingMode", ["horizontal-tb", "vertical-rl", "vertical-lr", "lr-tb", "tb-rl"]),
        ("flexDirection", ["row", "row-reverse", "column", "column-reverse"]),
        ("flexWrap", ["nowrap", "wrap", "wrap-reverse"]),
        ("alignment", ["flex-start", "flex-end", "center", "baseline", "stretch", "space-between", "space-around", "space-evenly",
                       "start", "end", "self-start", "self-end", "left", "right", "first", "last", "safe", "unsafe"]),
        ("boxOrient", ["horizontal", "vertical", "inline-axis", "block-axis"]),
        // inside gradients only
        ("gradient", ["to", "at", "left", "right", "top", "bottom", "center", "circle", "ellipse", "closest-side",
                      "closest-corner", "farthest-side", "farthest-corner", "in", "srgb", "oklab", "oklch", "hsl", "shorter",
                      "longer", "hue"]),
    ]

    static func keywordMask(_ names: [String]) -> CSSValueSpec.Keywords {
        var mask: UInt64 = 1  // global
        for name in names {
            guard let i = groups.firstIndex(where: { $0.name == name }) else { fatalError("CSS keyword group '\(name)'") }
            mask |= 1 << UInt64(i)
        }
        return CSSValueSpec.Keywords(rawValue: mask)
    }

    /// Every keyword, with the groups it is in.
    static let keywordTable: NameTable<UInt64> = {
        var masks: [String: UInt64] = [:]
        for (i, group) in groups.enumerated() {
            for word in group.words { masks[word, default: 0] |= 1 << UInt64(i) }
        }
        return NameTable(masks.map { ($0.key, $0.value) })
    }()

    static let gradientKeywords = keywordMask(["gradient"])
    static let noneKeyword = keywordMask(["none"])

    /// The functions a value may call, looked up without making a String.
    static let functions = NameTable([
        "rgb", "rgba", "hsl", "hsla", "calc", "min", "max", "clamp", "-webkit-calc", "linear-gradient", "radial-gradient",
        "repeating-linear-gradient", "repeating-radial-gradient", "-webkit-linear-gradient", "-webkit-radial-gradient",
        "-moz-linear-gradient", "-moz-radial-gradient", "-o-linear-gradient", "-ms-linear-gradient", "url",
    ].map { ($0, $0) })

    /// The colour words: CSS's named colours, `transparent` and `currentcolor`, and the system
    /// colours old mail still writes.
    static let colorNames = NameTable([
        "aliceblue", "antiquewhite", "aqua", "aquamarine", "azure", "beige", "bisque", "black", "blanchedalmond", "blue",
        "blueviolet", "brown", "burlywood", "cadetblue", "chartreuse", "chocolate", "coral", "cornflowerblue", "cornsilk",
        "crimson", "cyan", "darkblue", "darkcyan", "darkgoldenrod", "darkgray", "darkgreen", "darkgrey", "darkkhaki",
        "darkmagenta", "darkolivegreen", "darkorange", "darkorchid", "darkred", "darksalmon", "darkseagreen", "darkslateblue",
        "darkslategray", "darkslategrey", "darkturquoise", "darkviolet", "deeppink", "deepskyblue", "dimgray", "dimgrey",
        "dodgerblue", "firebrick", "floralwhite", "forestgreen", "fuchsia", "gainsboro", "ghostwhite", "gold", "goldenrod",
        "gray", "green", "greenyellow", "grey", "honeydew", "hotpink", "indianred", "indigo", "ivory", "khaki", "lavender",
        "lavenderblush", "lawngreen", "lemonchiffon", "lightblue", "lightcoral", "lightcyan", "lightgoldenrodyellow",
        "lightgray", "lightgreen", "lightgrey", "lightpink", "lightsalmon", "lightseagreen", "lightskyblue", "lightslategray",
        "lightslategrey", "lightsteelblue", "lightyellow", "lime", "limegreen", "linen", "magenta", "maroon",
        "mediumaquamarine", "mediumblue", "mediumorchid", "mediumpurple", "mediumseagreen", "mediumslateblue",
        "mediumspringgreen", "mediumturquoise", "mediumvioletred", "midnightblue", "mintcream", "mistyrose", "moccasin",
        "navajowhite", "navy", "oldlace", "olive", "olivedrab", "orange", "orangered", "orchid", "palegoldenrod", "palegreen",
        "paleturquoise", "palevioletred", "papayawhip", "peachpuff", "peru", "pink", "plum", "powderblue", "purple",
        "rebeccapurple", "red", "rosybrown", "royalblue", "saddlebrown", "salmon", "sandybrown", "seagreen", "seashell",
        "sienna", "silver", "skyblue", "slateblue", "slategray", "slategrey", "snow", "springgreen", "steelblue", "tan", "teal",
        "thistle", "tomato", "turquoise", "violet", "wheat", "white", "whitesmoke", "yellow", "yellowgreen",
        "transparent", "currentcolor", "windowtext", "window", "buttonface", "buttontext", "canvas", "canvastext", "linktext",
        "graytext", "highlight", "highlighttext",
    ].map { ($0, true) })

    static let lengthUnits = NameTable([
        "px", "em", "rem", "ex", "ch", "pt", "pc", "cm", "mm", "q", "in", "vw", "vh", "vmin", "vmax", "vi", "vb", "svh", "lvh",
        "dvh", "svw", "lvw", "dvw", "cap", "ic", "lh", "rlh",
    ].map { ($0, true) })
    static let angleUnits = NameTable(["deg", "rad", "grad", "turn"].map { ($0, true) })

    /// Whether a value (lowercase, `!important` removed, not empty) is valid for the spec.
    static func isValid(_ value: UnsafeBufferPointer<UInt8>, _ spec: CSSValueSpec) -> Bool {
        var reader = PartReader(bytes: value)
        return reader.parts(spec.kinds, spec.keywords, until: nil) && reader.i == value.count
    }
}

/// Reads a value's parts left to right, each checked against what the context allows.
private struct PartReader {
    let bytes: UnsafeBufferPointer<UInt8>
    var i = 0

    /// Reads parts until `close` (not consumed) or the end; false at the first invalid part.
    mutating func parts(_ kinds: CSSValueSpec.Kinds, _ keywords: CSSValueSpec.Keywords, until close: UInt8?) -> Bool {
        var parts = 0
        while i < bytes.count {
            let b = bytes[i]
            if b == close { return parts > 0 || close != nil }
            switch b {
            case 0x20, 0x09, 0x0A, 0x0D, 0x0C:
                i += 1
                continue
            case UInt8(ascii: ","):
                guard kinds.contains(.commas) else { return false }
                i += 1
                continue
            case UInt8(ascii: "/"):
                guard kinds.contains(.slash) || kinds.contains(.operators) else { return false }
                i += 1
                continue
            case UInt8(ascii: "*") where kinds.contains(.operators),
                 UInt8(ascii: "+") where kinds.contains(.operators) && isOperator(),
                 UInt8(ascii: "-") where kinds.contains(.operators) && isOperator():
                i += 1
                continue
            case UInt8(ascii: "#"):
                guard kinds.contains(.color), hexColor() else { return false }
            case UInt8(ascii: "\""), UInt8(ascii: "'"):
                guard kinds.contains(.string), string(b) else { return false }
            default:
                if startsNumber() {
                    guard number(kinds) else { return false }
                } else {
                    guard word(kinds, keywords) else { return false }
                }
            }
            parts += 1
        }
        return close == nil && parts > 0
    }

    /// A `+ - *` with space after it (or before a parenthesis): calc()'s operator, not a sign.
    private func isOperator() -> Bool {
        i + 1 >= bytes.count || bytes[i + 1] == 0x20 || bytes[i + 1] == 0x28 || bytes[i] == UInt8(ascii: "*")
    }

    private func startsNumber() -> Bool {
        var k = i
        if bytes[k] == UInt8(ascii: "+") || bytes[k] == UInt8(ascii: "-") { k += 1 }
        if k < bytes.count && bytes[k] == UInt8(ascii: ".") { k += 1 }
        return k < bytes.count && bytes[k] &- 0x30 < 10
    }

    private mutating func number(_ kinds: CSSValueSpec.Kinds) -> Bool {
        var digits = 0, zero = true
        if bytes[i] == UInt8(ascii: "+") || bytes[i] == UInt8(ascii: "-") { i += 1 }
        while i < bytes.count, bytes[i] &- 0x30 < 10 || bytes[i] == UInt8(ascii: ".") {
            if bytes[i] != UInt8(ascii: ".") {
                digits += 1
                if bytes[i] != 0x30 { zero = false }
            }
            i += 1
        }
        guard digits > 0 else { return false }
        if i + 1 < bytes.count, bytes[i] == UInt8(ascii: "e"), bytes[i + 1] &- 0x30 < 10 || bytes[i + 1] == UInt8(ascii: "-") {
            i += 1
            if bytes[i] == UInt8(ascii: "-") { i += 1 }
            while i < bytes.count, bytes[i] &- 0x30 < 10 { i += 1 }
        }
        if i < bytes.count, bytes[i] == UInt8(ascii: "%") {
            i += 1
            return kinds.contains(.percentage)
        }
        let unitStart = i
        while i < bytes.count, bytes[i] &- 0x61 < 26 { i += 1 }
        let unit = UnsafeBufferPointer(rebasing: bytes[unitStart..<i])
        if unit.isEmpty { return kinds.contains(.number) || zero && kinds.contains(.length) }
        if unit.count == 2, unit[0] == UInt8(ascii: "p"), unit[1] == UInt8(ascii: "x") { return kinds.contains(.length) }  // most of them
        if CSSValues.lengthUnits.value(for: unit) != nil { return kinds.contains(.length) }
        if CSSValues.angleUnits.value(for: unit) != nil { return kinds.contains(.angle) }
        return false
    }

    private mutating func hexColor() -> Bool {
        i += 1
        let start = i
        while i < bytes.count, bytes[i] &- 0x30 < 10 || bytes[i] &- 0x61 < 6 { i += 1 }
        let n = i - start
        return (n == 3 || n == 4 || n == 6 || n == 8) && (i == bytes.count || !isWordByte(bytes[i]))
    }

    private mutating func string(_ quote: UInt8) -> Bool {
        i += 1
        while i < bytes.count, bytes[i] != quote { i += 1 }
        guard i < bytes.count else { return false }
        i += 1
        return true
    }

    /// A keyword, a colour name, any word where the property takes one, or a function.
    private mutating func word(_ kinds: CSSValueSpec.Kinds, _ keywords: CSSValueSpec.Keywords) -> Bool {
        let start = i
        while i < bytes.count, isWordByte(bytes[i]) { i += 1 }
        guard i > start else { return false }
        let word = UnsafeBufferPointer(rebasing: bytes[start..<i])
        if i < bytes.count, bytes[i] == UInt8(ascii: "(") {
            i += 1
            return function(word, kinds)
        }
        if word.count >= 2, word[0] == UInt8(ascii: "-"), word[1] == UInt8(ascii: "-") { return false }  // custom properties' names
        if let groups = CSSValues.keywordTable.value(for: word), groups & keywords.rawValue != 0 { return true }
        if kinds.contains(.color), CSSValues.colorNames.value(for: word) != nil { return true }
        return kinds.contains(.anyWord) && !(word.first! &- 0x30 < 10)
    }

    /// The few functions that draw: colours, calc() and its kin, gradients, url().
    private mutating func function(_ name: UnsafeBufferPointer<UInt8>, _ kinds: CSSValueSpec.Kinds) -> Bool {
        let inner: CSSValueSpec.Kinds
        var keywords = CSSValueSpec.Keywords(rawValue: 0)
        switch CSSValues.functions.value(for: name) ?? "" {
        case "rgb", "rgba", "hsl", "hsla":
            guard kinds.contains(.color) else { return false }
            inner = [.number, .percentage, .angle, .commas, .slash]
            keywords = CSSValues.noneKeyword
        case "calc", "min", "max", "clamp", "-webkit-calc":
            guard !kinds.isDisjoint(with: [.length, .percentage, .number]) else { return false }
            inner = kinds.intersection([.length, .percentage, .number, .angle]).union([.number, .operators, .commas])
        case "linear-gradient", "radial-gradient", "repeating-linear-gradient", "repeating-radial-gradient",
             "-webkit-linear-gradient", "-webkit-radial-gradient", "-moz-linear-gradient", "-moz-radial-gradient",
             "-o-linear-gradient", "-ms-linear-gradient":
            guard kinds.contains(.gradient) else { return false }
            inner = [.length, .percentage, .angle, .color, .commas]
            keywords = CSSValues.gradientKeywords
        case "url":
            guard kinds.contains(.url) else { return false }
            return skipURL()
        default:
            return false
        }
        guard parts(inner, keywords, until: UInt8(ascii: ")")), i < bytes.count else { return false }
        i += 1
        return true
    }

    /// url(…) is checked and rewritten by the URL policy; here it only has to end.
    private mutating func skipURL() -> Bool {
        while i < bytes.count, bytes[i] == 0x20 { i += 1 }
        if i < bytes.count, bytes[i] == UInt8(ascii: "\"") || bytes[i] == UInt8(ascii: "'") {
            guard string(bytes[i]) else { return false }
            while i < bytes.count, bytes[i] == 0x20 { i += 1 }
            guard i < bytes.count, bytes[i] == UInt8(ascii: ")") else { return false }
        } else {
            while i < bytes.count, bytes[i] != UInt8(ascii: ")") { i += 1 }
            guard i < bytes.count else { return false }
        }
        i += 1
        return true
    }
}

/// Bytes of a word: letters, digits, `-`, `_`, and any non-ASCII byte (`微軟正黑體`).
@inline(__always) private func isWordByte(_ b: UInt8) -> Bool {
    b &- 0x61 < 26 || b &- 0x30 < 10 || b == UInt8(ascii: "-") || b == UInt8(ascii: "_") || b >= 0x80
}
