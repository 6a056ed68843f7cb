/// What happens to an element of each name. The allowlist is what real mail uses for layout;
/// everything that runs, navigates, loads or takes input is dropped with its content, and any
/// other element (Office's `o:p`, custom tags, form, button) becomes a `<mailpipe-span>`, an
/// element no parser knows: its content and checked attributes stay, and the tree keeps its
/// shape. (Unwrapping would hang its children on a parent that may not take them, such as a
/// <li> in a <li>; a known element such as span would be closed by a <th> inside it. Either
/// way a parser reading the output again would rearrange it, and libxml2 treats every
/// unknown element alike.)
enum ElementRule: Equatable, Sendable {
    case keep
    case void  // kept, and has no end tag
    case drop  // removed with everything inside it
    case rename(String)
    case style  // its CSS is sanitized, scoped and moved to the top
    case structure  // html, head, body: the message's own frame, replaced by the wrapper
}

/// What an attribute's value is, so it can be checked as such. An attribute not listed is dropped.
enum AttributeRule: Sendable {
    case plain
    case style
    case id  // prefixed, so the message cannot clobber names in the page around it
    case idList  // td headers: ids separated by spaces
    case fragment  // img usemap: "#name"
    case link  // a and area href
    case image  // img src, and data-remote-src: where a blocked image was
    case background  // the old background="image" attribute, and data-remote-background
    case citation  // blockquote cite: a URL never loaded, kept when http(s)
}

/// An element's rule, and the name it is written under (a class: one reference to pass around
/// for each element, not four).
final class ElementInfo: Sendable {
    let name: String
    let rule: ElementRule
    /// "<name" and "</name>", written for every element kept: one append each, not three.
    let startTag: [UInt8]
    let endTag: [UInt8]

    init(name: String, rule: ElementRule) {
        self.name = name
        self.rule = rule
        startTag = Array("<\(name)".utf8)
        endTag = Array("</\(name)>".utf8)
    }
}

/// An attribute's rule, its name, and the elements it belongs to (any when empty).
final class AttributeInfo: Sendable {
    let name: String
    let rule: AttributeRule
    let only: [String]
    /// ` name="`, written before every value kept: one append, not three.
    let opening: [UInt8]

    init(name: String, rule: AttributeRule, only: [String]) {
        self.name = name
        self.rule = rule
        self.only = only
        opening = Array(" \(name)=\"".utf8)
    }
}

enum ElementPolicy {
    static func element(_ name: UnsafeBufferPointer<UInt8>) -> ElementInfo {
        elementTable.value(for: name) ?? neutral
    }

    static func attribute(_ name: UnsafeBufferPointer<UInt8>, on element: String) -> AttributeInfo? {
        if let info = attributeTable.value(for: name) {
            return info.only.isEmpty || info.only.contains(element) ? info : nil
        }
        guard name.starts(with: "aria-".utf8) else { return nil }
        return AttributeInfo(name: String(decoding: name, as: UTF8.self), rule: .plain, only: [])
    }

    private static let neutral = ElementInfo(name: neutralElement, rule: .rename(neutralElement))

    private static let elementTable = NameTable(elements.map { ($0.key, ElementInfo(name: $0.key, rule: $0.value)) }
        + [("image", ElementInfo(name: "img", rule: .void))])  // what a browser calls <image>

    private static let attributeTable = NameTable(attributes.map { ($0.key, AttributeInfo(name: $0.key, rule: $0.value, only: [])) } + [
        ("href", AttributeInfo(name: "href", rule: .link, only: ["a", "area"])),
        ("src", AttributeInfo(name: "src", rule: .image, only: ["img"])),
        ("name", AttributeInfo(name: "name", rule: .id, only: ["a", "map"])),
        ("usemap", AttributeInfo(name: "usemap", rule: .fragment, only: ["img"])),
        ("cite", AttributeInfo(name: "cite", rule: .citation, only: ["blockquote", "q", "del", "ins"])),
        ("data-remote-src", AttributeInfo(name: "data-remote-src", rule: .image, only: ["img"])),
        ("value", AttributeInfo(name: "value", rule: .plain, only: ["li"])),
    ])

    static let linkIdPrefix = "mp-"
    static let neutralElement = "mailpipe-span"

    private static let elements: [String: ElementRule] = {
        var rules: [String: ElementRule] = [:]
        for name in ["a", "abbr", "acronym", "address", "article", "aside", "b", "bdi", "bdo", "big", "blockquote",
                     "caption", "center", "cite", "code", "colgroup", "dd", "del", "details", "dfn", "div", "dl",
                     "dt", "em", "figcaption", "figure", "font", "footer", "h1", "h2", "h3", "h4", "h5", "h6",
                     "header", "hgroup", "i", "ins", "kbd", "li", "main", "map", "mark", "nav", "ol", "p", "pre",
                     "q", "rp", "rt", "ruby", "s", "samp", "section", "small", "span", "strike", "strong", "sub",
                     "summary", "sup", "table", "tbody", "td", "tfoot", "th", "thead", "time", "tr", "tt", "u",
                     "ul", "var"] {
            rules[name] = .keep
        }
        for name in ["area", "br", "col", "hr", "img", "wbr"] { rules[name] = .void }
        // Elements that are void in HTML5 but unknown to libxml2 (source, track, keygen…) are not
        // dropped with their "content": libxml2 nests what follows them inside, a browser does not.
        // They become neutral elements like any unknown one, which keeps what follows them.
        for name in ["script", "title", "iframe", "frame", "frameset", "object", "applet", "noscript", "noembed",
                     "noframes", "template", "svg", "math", "textarea", "select", "option", "optgroup", "datalist",
                     "xmp", "plaintext", "listing", "canvas", "audio", "video", "portal", "fencedframe", "xml",
                     "comment"] {
            rules[name] = .drop
        }
        rules["style"] = .style
        for name in ["html", "head", "body"] { rules[name] = .structure }
        return rules
    }()

    private static let attributes: [String: AttributeRule] = {
        var rules: [String: AttributeRule] = [:]
        for name in ["abbr", "align", "alt", "axis", "bgcolor", "border", "bordercolor", "cellpadding",
                     "cellspacing", "char", "charoff", "class", "clear", "color", "cols", "colspan", "compact",
                     "coords", "datetime", "dir", "face", "frame", "height", "hspace", "lang", "nowrap", "noshade",
                     "open", "reversed", "rows", "rowspan", "rules", "scope", "shape", "size", "span", "start",
                     "summary", "title", "type", "valign", "vspace", "width"] {
            rules[name] = .plain
        }
        rules["style"] = .style
        rules["id"] = .id
        rules["headers"] = .idList
        for name in ["aria-labelledby", "aria-describedby", "aria-controls", "aria-owns"] { rules[name] = .idList }
        rules["role"] = .plain
        rules["background"] = .background
        rules["data-remote-background"] = .background
        return rules
    }()
}
