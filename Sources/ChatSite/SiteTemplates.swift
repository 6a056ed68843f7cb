#if canImport(Glibc)
import Glibc
#endif
import Hashing
import UnixFilter

public enum PageField: String, CaseIterable { case title, root, csp, nav, content, lang }
public enum ItemField: String, CaseIterable { case href, avatar, initials, title, sender, snippet, date, datetime, unread, count, messages }
public enum BubbleField: String, CaseIterable {
    case anchor, message_id, side, sender, subject, forwarded, text, lang, preview, forward, folded, folded_label, attachments, cards, time, datetime, unread, delivery, delivery_class, notes,
         pictures, pictures_layout, shape, reactions
}
public enum ParcelField: String, CaseIterable {
    case carrier, number, url, store, deadline, code, conversation, conversation_href, status, status_class, expected
    case address, duty, duty_by, cash_on_delivery, shop, order_number
}
public enum EventField: String, CaseIterable { case summary, when, datetime, location, url, status, cancelled, repeats, conversation, conversation_href }
public enum ForwardField: String, CaseIterable { case from, address, date, datetime, subject, to, text, lang, pictures, attachments }

/// The look of the site: six templates and a stylesheet. Built in; a folder given with
/// --templates replaces those of them it holds, by file name.
public struct SiteTemplates: Sendable {
    public var page: Template<PageField>
    public var item: Template<ItemField>
    public var bubble: Template<BubbleField>
    public var parcel: Template<ParcelField>
    public var event: Template<EventField>
    public var forward: Template<ForwardField>
    public var stylesheet: [UInt8]
    /// The hex SHA-256 of all seven files (and of the words, once localized): a site rendered
    /// with other templates or words is rendered whole.
    public var fingerprint: String
    /// The language of the words the templates show (`<html lang>`).
    public var language = "en"

    public static let fileNames = ["page.html", "item.html", "bubble.html", "parcel.html", "event.html", "forward.html", "style.css"]

    public struct LoadError: Error, CustomStringConvertible {
        public var description: String
    }

    public static let builtIn: SiteTemplates = {
        do {
            return try SiteTemplates(builtInFile)
        } catch {
            fatalError("built-in templates: \(error)")
        }
    }()

    /// `file` gives a template's bytes by name, `path` the name its errors show.
    init(_ file: (String) throws(LoadError) -> [UInt8], path: (String) -> String = { $0 }) throws(LoadError) {
        var all: [UInt8] = []
        func read(_ name: String) throws(LoadError) -> [UInt8] {
            let bytes = try file(name)
            all += Array("\(name) \(bytes.count)\n".utf8) + bytes
            return bytes
        }
        func parse<F>(_ name: String) throws(LoadError) -> Template<F> {
            do { return try Template<F>(name: path(name), text: try read(name)) } catch let e as Template<F>.SyntaxError {
                throw LoadError(description: e.description)
            } catch { throw error as! LoadError }
        }
        page = try parse("page.html")
        item = try parse("item.html")
        bubble = try parse("bubble.html")
        parcel = try parse("parcel.html")
        event = try parse("event.html")
        forward = try parse("forward.html")
        stylesheet = try read("style.css")
        fingerprint = SHA256.hex(all)
    }

    /// The templates with their words (`{{@key}}`) in `words`' language.
    public func localized(_ words: SiteWords) -> SiteTemplates {
        var t = self
        t.page = page.localized(words)
        t.item = item.localized(words)
        t.bubble = bubble.localized(words)
        t.parcel = parcel.localized(words)
        t.event = event.localized(words)
        t.forward = forward.localized(words)
        t.language = words.language
        t.fingerprint = SHA256.hex(Array((fingerprint + " " + words.fingerprint).utf8))
        return t
    }

    /// The built-in look with the files `directory` holds in place of their built-in ones.
    public static func load(directory: String) throws(LoadError) -> SiteTemplates {
        var found = 0
        let templates = try SiteTemplates { name throws(LoadError) in
            let path = directory + "/" + name
            let input: Input
            do throws(InputError) { input = try Input.open(path) } catch {
                if error.errno == 2 { return try builtInFile(name) }  // ENOENT: the built-in one
                throw LoadError(description: "\(path): \(error.description)")
            }
            defer { input.close() }
            found += 1
            do throws(InputError) { return try readWholeFile(fd: input.fd) } catch { throw LoadError(description: "\(path): \(error.description)") }
        } path: { name in
            var st = stat()
            return stat(directory + "/" + name, &st) == 0 ? directory + "/" + name : "(built-in) " + name
        }
        guard found > 0 else {
            throw LoadError(description: "\(directory): none of \(fileNames.joined(separator: ", ")) is there")
        }
        return templates
    }

    static func builtInFile(_ name: String) throws(LoadError) -> [UInt8] {
        switch name {
        case "page.html": PackageResources.page_html
        case "item.html": PackageResources.item_html
        case "bubble.html": PackageResources.bubble_html
        case "parcel.html": PackageResources.parcel_html
        case "event.html": PackageResources.event_html
        case "forward.html": PackageResources.forward_html
        case "style.css": PackageResources.style_css
        default: throw LoadError(description: "no template \(name)")
        }
    }
}
