import HTMLDOM
#if canImport(Glibc)
import Glibc
#endif

/// What html-sanitize does with remote images.
public enum RemoteImages: Sendable, Equatable {
    case keep
    /// Not loaded; the URL kept in `data-remote-src` so a client can offer to show them.
    case block
    /// Loaded through a proxy: `{url}` in the template is replaced by the percent-encoded URL.
    case proxy(template: String)
}

public struct SanitizeOptions: Sendable {
    public var remoteImages: RemoteImages = .block
    public var trackers: Trackers = .builtIn
    /// The class of the `div` the message is wrapped in; its `<style>` rules apply only inside it.
    public var wrapperClass = "mailpipe-body"
    public init() {}
}

/// What sanitizing removed from one message.
public struct SanitizeReport: Equatable, Sendable {
    public var elementsRemoved = 0
    public var attributesRemoved = 0
    public var stylesRemoved = 0  // CSS declarations and rules
    public var trackersRemoved = 0
    public var trackerHosts: Set<String> = []
    public var remoteImages = 0
    public var linkParametersRemoved = 0
}

/// HTML made safe to show: parsed by libxml2, every element, attribute, URL and style checked
/// against an allowlist, and written out once, well-formed, with every text and attribute
/// escaped, so what a browser parses is what was checked. The message comes out as one
/// `<div class="mailpipe-body">` holding its (scoped) styles and its body.
public struct HTMLSanitizer: Sendable {
    public var options: SanitizeOptions

    public init(options: SanitizeOptions = SanitizeOptions()) { self.options = options }

    public func sanitize(_ html: [UInt8]) -> (html: [UInt8], report: SanitizeReport) {
        let writer = HTMLStream.parse(html) { SanitizingWriter(options: options) }
        return (writer.finish(), writer.report)
    }

    public func sanitize(_ html: String) -> (html: String, report: SanitizeReport) {
        let (bytes, report) = sanitize(Array(html.utf8))
        return (String(decoding: bytes, as: UTF8.self), report)
    }
}

/// Each distinct style attribute's result in one document, found by the value's bytes: a table
/// of its own, as Dictionary would copy each value to look it up and hash it twice. Its hash is
/// not keyed, so a search gives up after a few slots (the value is then checked again, and not
/// kept): a document made to collide costs no more than one without the table.
struct CheckedStyles {
    private var bytes: [UInt8] = []  // every value kept, one after another
    private var entries: [(start: Int, count: Int, hash: Int, style: CheckedStyle)] = []
    private var slots = [Int32](repeating: -1, count: 64)  // an index into entries, -1 when empty
    private static let probes = 16

    /// A hash of the value, 8 bytes at a time.
    static func hash(_ value: UnsafeBufferPointer<UInt8>) -> Int {
        var h: UInt64 = 0x9E37_79B9_7F4A_7C15 ^ UInt64(value.count)
        let raw = UnsafeRawBufferPointer(value)
        var i = 0
        while i &+ 8 <= raw.count {
            h = (h ^ raw.loadUnaligned(fromByteOffset: i, as: UInt64.self)) &* 0xFF51_AFD7_ED55_8CCD
            h ^= h >> 32
            i &+= 8
        }
        var tail: UInt64 = 0
        var shift: UInt64 = 0
        while i < raw.count {
            tail |= UInt64(raw[i]) << shift
            shift &+= 8
            i &+= 1
        }
        h = (h ^ tail) &* 0xC4CE_B9FE_1A85_EC53
        return Int(truncatingIfNeeded: h ^ (h >> 29))
    }

    func style(for value: UnsafeBufferPointer<UInt8>, hash: Int) -> CheckedStyle? {
        let mask = slots.count - 1
        var slot = hash & mask
        for _ in 0..<Self.probes {
            let index = Int(slots[slot])
            if index < 0 { return nil }
            let entry = entries[index]
            if entry.hash == hash, entry.count == value.count,
               bytes.withUnsafeBufferPointer({ memcmp($0.baseAddress! + entry.start, value.baseAddress!, value.count) == 0 }) {
                return entry.style
            }
            slot = (slot + 1) & mask
        }
        return nil
    }

    mutating func keep(_ style: CheckedStyle, for value: UnsafeBufferPointer<UInt8>, hash: Int) {
        if 2 * (entries.count + 1) > slots.count { grow() }
        guard let slot = freeSlot(hash) else { return }
        slots[slot] = Int32(entries.count)
        entries.append((bytes.count, value.count, hash, style))
        bytes.append(contentsOf: value)
    }

    private func freeSlot(_ hash: Int) -> Int? {
        let mask = slots.count - 1
        var slot = hash & mask
        for _ in 0..<Self.probes {
            if slots[slot] < 0 { return slot }
            slot = (slot + 1) & mask
        }
        return nil
    }

    private mutating func grow() {
        slots = [Int32](repeating: -1, count: 2 * slots.count)
        var kept: [(start: Int, count: Int, hash: Int, style: CheckedStyle)] = []
        kept.reserveCapacity(entries.count)
        for entry in entries {
            guard let slot = freeSlot(entry.hash) else { continue }
            slots[slot] = Int32(kept.count)
            kept.append(entry)
        }
        entries = kept
    }
}

/// What checking a style value gave, and its effects on the report, to repeat them.
struct CheckedStyle {
    let safe: [UInt8]
    let removed: Int
    let remoteImages: Int
}

final class SanitizingWriter: HTMLStreamHandler {
    private let options: SanitizeOptions
    private(set) var report = SanitizeReport()
    private var body: [UInt8] = []
    private var styles: [UInt8] = []
    private var wrapperStyle: [UInt8] = []
    private var css: CSSPolicy!
    /// Each distinct style attribute's result, by its value: newsletters repeat a few values on
    /// hundreds of elements. Kept for one document, so it grows no larger than the document.
    private var checkedStyles = CheckedStyles()

    private enum Frame { case kept(endTag: [UInt8]), silent, dropped, style, structure, wrapper }
    private var frames: [Frame] = []
    private var dropDepth = 0
    private var inHead = false
    private var styleText: [UInt8] = []
    private var inStyle = false
    private var wrapperPossible = false  // the next element may be a wrapper from an earlier run
    private var afterWrapper = false  // an earlier run's wrapper has ended

    init(options: SanitizeOptions) {
        self.options = options
        super.init()
        body.reserveCapacity(1 << 16)
        css = CSSPolicy(resolveImage: { [unowned self] url in self.resolveCSSImage(url) },
                        scope: Array(("." + options.wrapperClass).utf8))
    }

    func finish() -> [UInt8] {
        report.stylesRemoved += css.removed
        var out: [UInt8] = []
        out.reserveCapacity(body.count + styles.count + 64)
        out += "<div class=\"".utf8
        out += options.wrapperClass.utf8
        out += "\"".utf8
        if !wrapperStyle.isEmpty {
            out += " style=\"".utf8
            Escape.attribute(wrapperStyle, into: &out)
            out += "\"".utf8
        }
        out += ">".utf8
        if !styles.isEmpty {
            out += "<style>".utf8
            out += styles
            out += "</style>".utf8
        }
        out += body
        out += "</div>".utf8
        return out
    }

    // MARK: events

    override func startElement(_ nameBytes: UnsafeBufferPointer<UInt8>, _ attributes: HTMLAttributes) {
        if dropDepth > 0 {
            dropDepth += 1
            report.elementsRemoved += 1
            frames.append(.dropped)
            return
        }
        let info = ElementPolicy.element(nameBytes)
        let name = info.name
        var rule = info.rule
        if case .rename = rule {
            report.elementsRemoved += 1
            rule = .keep
        }
        if wrapperPossible, rule != .structure {
            wrapperPossible = false
            if name == "div", isWrapper(attributes) {
                addWrapperStyle(attributes)
                frames.append(.wrapper)
                return
            }
        }
        switch rule {
        case .structure:
            frames.append(.structure)
            if name == "head" { inHead = true }
            if name == "body" {
                inHead = false
                wrapperPossible = true
                addWrapperStyle(attributes)
            }
        case .style:
            frames.append(.style)
            inStyle = true
            styleText.removeAll(keepingCapacity: true)
        case .drop:
            dropDepth = 1
            report.elementsRemoved += 1
            frames.append(.dropped)
        case .keep, .void, .rename:
            if inHead {  // libxml2 keeps what it sees in head there; a browser would not show it
                report.elementsRemoved += 1
                frames.append(.silent)
                return
            }
            if name == "img", let tracker = trackingPixel(attributes) {
                report.trackersRemoved += 1
                if let host = tracker { report.trackerHosts.insert(host) }
                dropDepth = 1
                frames.append(.dropped)
                return
            }
            body += info.startTag
            writeAttributes(attributes, element: name)
            body.append(UInt8(ascii: ">"))
            frames.append(rule == .void ? .silent : .kept(endTag: info.endTag))
        }
    }

    override func endElement(_ name: UnsafeBufferPointer<UInt8>) {
        guard let frame = frames.popLast() else { return }
        switch frame {
        case .kept(let endTag):
            body += endTag
        case .dropped:
            dropDepth -= 1
        case .style:
            inStyle = false
            styles += css.stylesheet(styleText)
        case .structure:
            if String(decoding: name, as: UTF8.self) == "head" { inHead = false }
        case .wrapper:
            afterWrapper = true
        case .silent:
            break
        }
    }

    override func text(_ bytes: UnsafeBufferPointer<UInt8>) {
        if inStyle {
            styleText += bytes
            return
        }
        guard dropDepth == 0, !inHead else { return }
        let blank = bytes.allSatisfy(CSSPolicy.isSpace)
        if wrapperPossible, !blank { wrapperPossible = false }
        if afterWrapper, blank, frames.count <= 2 { return }  // the newline after an earlier run's output
        Escape.text(bytes, into: &body)
    }

    // MARK: attributes

    private func writeAttributes(_ attributes: HTMLAttributes, element: String) {
        var hasLink = false
        for (nameBytes, value) in attributes {
            guard let info = ElementPolicy.attribute(nameBytes, on: element) else {
                report.attributesRemoved += 1
                continue
            }
            let opening = info.opening, rule = info.rule
            guard let value else {
                if rule == .plain { writeAttribute(opening, []) } else { report.attributesRemoved += 1 }
                continue
            }
            switch rule {
            case .plain:
                writeAttribute(opening, value)
            case .style:
                let safe = checkedStyle(value)
                if !safe.isEmpty { writeAttribute(opening, safe) }
            case .id:
                writeAttribute(opening, Self.prefixedId(Array(value)))
            case .idList:
                let ids = value.split(whereSeparator: CSSPolicy.isSpace).map { Self.prefixedId(Array($0)) }
                writeAttribute(opening, Array(ids.joined(separator: [UInt8(ascii: " ")])))
            case .fragment:
                guard value.first == UInt8(ascii: "#") else { report.attributesRemoved += 1; continue }
                writeAttribute(opening, [UInt8(ascii: "#")] + Self.prefixedId(Array(value.dropFirst())))
            case .link:
                switch URLPolicy.link(URLPolicy.cleaned(value)) {
                case .allowed(var url):
                    if URLPolicy.scheme(url)?.hasPrefix("http") == true {
                        let stripped = URLPolicy.withoutParameters(url, isTracking: options.trackers.isTrackingParameter)
                        url = stripped.url
                        report.linkParametersRemoved += stripped.removed
                    }
                    writeAttribute(opening, url)
                    hasLink = true
                case .fragment(let id):
                    writeAttribute(opening, [UInt8(ascii: "#")] + Self.prefixedId(id))
                case .refused:
                    report.attributesRemoved += 1
                }
            case .image:
                writeImage(URLPolicy.cleaned(value), load: "src", blocked: "data-remote-src")
            case .background:
                writeImage(URLPolicy.cleaned(value), load: "background", blocked: "data-remote-background")
            case .citation:
                let url = URLPolicy.cleaned(value)
                if case .allowed = URLPolicy.link(url) { writeAttribute(opening, url) } else { report.attributesRemoved += 1 }
            }
        }
        if hasLink {
            body += " target=\"_blank\" rel=\"noopener noreferrer\"".utf8
        }
    }

    /// The sanitized declarations of a style attribute, checked once per distinct value; a
    /// repeat counts what the first check removed and the remote images it saw again.
    private func checkedStyle(_ value: UnsafeBufferPointer<UInt8>) -> [UInt8] {
        guard value.count > 0 else { return css.declarations(value) }
        let hash = CheckedStyles.hash(value)
        if let known = checkedStyles.style(for: value, hash: hash) {
            css.removed += known.removed
            report.remoteImages += known.remoteImages
            return known.safe
        }
        let removedBefore = css.removed, remoteImagesBefore = report.remoteImages
        let safe = css.declarations(value)
        checkedStyles.keep(CheckedStyle(safe: safe, removed: css.removed - removedBefore,
                                        remoteImages: report.remoteImages - remoteImagesBefore), for: value, hash: hash)
        return safe
    }

    /// An image URL: written as `load`, proxied, or (when blocked) kept in `blocked`, which is
    /// read back the same way when sanitized again.
    private func writeImage(_ url: [UInt8], load: String, blocked: String) {
        switch URLPolicy.image(url) {
        case .local(let url):
            writeAttribute(load, url)
        case .remote(let url):
            report.remoteImages += 1
            switch options.remoteImages {
            case .keep: writeAttribute(load, url)
            case .block: writeAttribute(blocked, url)
            case .proxy(let template): writeAttribute(load, Self.proxied(url, template))
            }
        case .refused:
            report.attributesRemoved += 1
        }
    }

    private func writeAttribute(_ name: String, _ value: [UInt8]) {
        writeAttribute(Array(" \(name)=\"".utf8), value)
    }

    /// An attribute from its opening (` name="`) and value.
    private func writeAttribute(_ opening: [UInt8], _ value: [UInt8]) {
        value.withUnsafeBufferPointer { writeAttribute(opening, $0) }
    }

    private func writeAttribute(_ opening: [UInt8], _ value: UnsafeBufferPointer<UInt8>) {
        body += opening
        Escape.attribute(value, into: &body)
        body.append(UInt8(ascii: "\""))
    }

    private func resolveCSSImage(_ url: [UInt8]) -> [UInt8]? {
        switch URLPolicy.image(url) {
        case .local(let url): return url
        case .remote(let url):
            report.remoteImages += 1
            switch options.remoteImages {
            case .keep: return url
            case .block: return nil
            case .proxy(let template): return Self.proxied(url, template)
            }
        case .refused: return nil
        }
    }

    static func proxied(_ url: [UInt8], _ template: String) -> [UInt8] {
        var out = ""
        var rest = Substring(template)
        while let r = rest.firstRange(of: "{url}") {
            out += rest[..<r.lowerBound]
            out += URLPolicy.percentEncoded(url)
            rest = rest[r.upperBound...]
        }
        return Array((out + rest).utf8)
    }

    static func prefixedId(_ id: [UInt8]) -> [UInt8] {
        id.starts(with: ElementPolicy.linkIdPrefix.utf8) ? id : Array(ElementPolicy.linkIdPrefix.utf8) + id
    }

    // MARK: the wrapper

    private func isWrapper(_ attributes: HTMLAttributes) -> Bool {
        attributes.contains { name, value in
            name.elementsEqual("class".utf8) && value.map { $0.elementsEqual(options.wrapperClass.utf8) } == true
        }
    }

    /// The body's colours and style (or an earlier wrapper's) go on the wrapper.
    private func addWrapperStyle(_ attributes: HTMLAttributes) {
        for (nameBytes, value) in attributes {
            guard let value else { continue }
            var declarations: [UInt8]
            switch String(decoding: nameBytes, as: UTF8.self) {
            case "style": declarations = css.declarations(value)
            case "bgcolor": declarations = css.declarations(Array("background-color:".utf8) + value)
            case "text": declarations = css.declarations(Array("color:".utf8) + value)
            case "background":
                declarations = css.declarations(Array("background-image:url(\"".utf8) + value.filter { $0 != UInt8(ascii: "\"") } + Array("\")".utf8))
            case "class": continue
            default:
                report.attributesRemoved += 1
                continue
            }
            if declarations.isEmpty { continue }
            if !wrapperStyle.isEmpty { wrapperStyle.append(UInt8(ascii: ";")) }
            wrapperStyle += declarations
        }
    }

    // MARK: trackers

    /// nil when the image is not a tracker; else the tracker's host when it is a known one.
    private func trackingPixel(_ attributes: HTMLAttributes) -> String?? {
        var src: [UInt8]?
        var width: Int?, height: Int?
        var hidden = false
        for (name, value) in attributes {
            guard let value else { continue }
            if Self.isName(name, "src") {
                src = URLPolicy.cleaned(value)
            } else if Self.isName(name, "width") {
                width = Self.pixels(value[...])
            } else if Self.isName(name, "height") {
                height = Self.pixels(value[...])
            } else if Self.isName(name, "style") {
                CSSPolicy.withoutComments(value).withUnsafeBufferPointer { css in
                    CSSPolicy.forEachPiece(of: css, at: UInt8(ascii: ";")) { d in
                        guard let colon = d.firstIndex(of: UInt8(ascii: ":")) else { return }
                        let property = CSSPolicy.trimmed(UnsafeBufferPointer(rebasing: d[..<colon]))
                        guard let check = Self.pixelCheck(property) else { return }
                        let v = CSSPolicy.trimmed(UnsafeBufferPointer(rebasing: d[(colon + 1)...])).map(CSSPolicy.lower)
                        switch check {
                        case .width: width = min(width ?? Int.max, Self.pixels(v) ?? Int.max)
                        case .height: height = min(height ?? Int.max, Self.pixels(v) ?? Int.max)
                        case .display: hidden = hidden || v.starts(with: "none".utf8)
                        case .visibility: hidden = hidden || v.starts(with: "hidden".utf8)
                        case .opacity:
                            hidden = hidden || Double(String(decoding: v.prefix { $0 != 0x20 && $0 != 0x21 }, as: UTF8.self)) == 0
                        }
                    }
                }
            }
        }
        guard let src, case .remote(let url) = URLPolicy.image(src) else { return nil }
        let host = URLPolicy.host(url)
        if let host, let tracker = options.trackers.trackerHost(host) { return .some(String(decoding: tracker, as: UTF8.self)) }
        let tiny = (width ?? 2) <= 1 && (height ?? 1) <= 1 || (height ?? 2) <= 1 && (width ?? 1) <= 1
        if hidden || tiny || options.trackers.isTrackingImageURL(url) { return .some(host.map { String(decoding: $0, as: UTF8.self) }) }
        return nil
    }

    private enum PixelCheck { case width, height, display, visibility, opacity }

    /// What a style property (in any case) says about an image being a tracking pixel, if anything.
    private static func pixelCheck(_ property: UnsafeBufferPointer<UInt8>) -> PixelCheck? {
        switch property.count {
        case 5: return isLowercase(property, "width") ? .width : nil
        case 6: return isLowercase(property, "height") ? .height : nil
        case 7: return isLowercase(property, "display") ? .display : isLowercase(property, "opacity") ? .opacity : nil
        case 9: return isLowercase(property, "max-width") ? .width : nil
        case 10: return isLowercase(property, "max-height") ? .height : isLowercase(property, "visibility") ? .visibility : nil
        default: return nil
        }
    }

    /// Whether `bytes`, lowercased, are `name` (lowercase).
    private static func isLowercase(_ bytes: UnsafeBufferPointer<UInt8>, _ name: StaticString) -> Bool {
        guard bytes.count == name.utf8CodeUnitCount else { return false }
        for k in 0..<bytes.count where CSSPolicy.lower(bytes[k]) != name.utf8Start[k] { return false }
        return true
    }

    /// Whether an attribute's name (from the parser: lowercase) is `name`.
    private static func isName(_ bytes: UnsafeBufferPointer<UInt8>, _ name: StaticString) -> Bool {
        bytes.count == name.utf8CodeUnitCount && (bytes.count == 0 || memcmp(bytes.baseAddress!, name.utf8Start, bytes.count) == 0)
    }

    /// A length in CSS pixels ("1", "1px", "0", " 1.5PX "), nil for anything else.
    private static func pixels<C: Collection<UInt8>>(_ value: C) -> Int? {
        // the usual "1", "600" or "1px" read from the bytes; anything else as a Double reads it
        var digits = CSSPolicy.trimmed(ArraySlice(value))
        if digits.count > 2, CSSPolicy.lower(digits[digits.endIndex - 1]) == UInt8(ascii: "x"),
           CSSPolicy.lower(digits[digits.endIndex - 2]) == UInt8(ascii: "p") {
            digits = digits.dropLast(2)
        }
        if (1...9).contains(digits.count), digits.allSatisfy({ $0 &- 0x30 < 10 }) {
            return digits.reduce(0) { $0 * 10 + Int($1 &- 0x30) }
        }
        let text = String(decoding: CSSPolicy.trimmed(ArraySlice(value)).map(CSSPolicy.lower), as: UTF8.self)
        let number = text.hasSuffix("px") ? String(text.dropLast(2)) : text
        guard let n = Double(number), n >= 0 else { return nil }
        // "1e400" or "inf" is big, not a reason to trap
        return n < 1e9 ? Int(n.rounded(.up)) : Int.max
    }
}
