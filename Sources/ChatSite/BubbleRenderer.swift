#if canImport(Glibc)
import Glibc
#endif
import CivilTime
import Conversations
import Events
import Hashing
import JSONLines
import MailSubject
import Parcels
import Sanitize

/// One message as a bubble: its new text (or its HTML in a sandboxed frame), what it quotes
/// folded away, its attachments, and cards for its parcels and events.
struct BubbleRenderer {
    let templates: SiteTemplates
    let words: SiteWords
    let remoteImages: Bool
    let site: SiteWriter
    let sanitizer: HTMLSanitizer
    /// The site's copies of the attachments.
    var pictures: SitePictures
    /// A reply's subject repeats the one it answers: its bubble shows none.
    let subjectPrefixes: SubjectPrefixes
    /// The record of the parcel a shipment of a message is about (its latest status), when known.
    var parcelOf: (_ shipment: JSONValue) -> JSONValue? = { _ in nil }

    init(templates: SiteTemplates, words: SiteWords = .english, remoteImages: Bool, site: SiteWriter, subjectPrefixes: SubjectPrefixes) {
        self.templates = templates
        self.words = words
        self.remoteImages = remoteImages
        self.site = site
        self.subjectPrefixes = subjectPrefixes
        var options = SanitizeOptions()
        options.remoteImages = remoteImages ? .keep : .block
        sanitizer = HTMLSanitizer(options: options)
        pictures = SitePictures(root: site.root)
    }

    /// A message's element id: stable, from its id, safe in a URL fragment.
    static func anchor(_ id: String) -> String { "m-" + SHA256.hex(Array(id.utf8)).prefix(20) }

    /// `c`'s read receipts and bounces about the message are lines under it. An auto-reply
    /// (newsletter-detect's `automated`) is a note, never unread. `documents`: the documents of
    /// a message shown in a frame are written (they are the record's alone: a render of what
    /// changed writes those of the messages that changed). `sending`: the state of mail I sent
    /// from the store (sending, sent, failed) and why it failed, shown under it as a chat app
    /// marks a message on its way or not sent.
    func bubble(_ r: JSONRecord, id: String, epoch: Int?, unread: Bool, fromMe: Bool, sending: (state: String, error: String?)? = nil,
                in c: ConversationSummary, conversationFile: String, documents: Bool = true, clock: inout LocalClock) throws -> [UInt8] {
        var f = Fields<BubbleField>()
        let anchor = Self.anchor(id)
        let automated = r.string("mail_kind") == "automated"
        f.set(.anchor, anchor)
        f.set(.message_id, id)
        f.set(.side, automated ? "automated" : fromMe ? "mine" : "theirs")
        let from = r.value("from")
        var senderName: String {
            from?["name"]?.stringValue.flatMap { $0.isEmpty ? nil : TextFacts.displayName($0) } ?? from?["address"]?.stringValue ?? ""
        }
        if (c.isGroup || automated) && !fromMe { f.set(.sender, senderName) }
        if let subject = r.string("subject"), !subject.isEmpty, !subjectPrefixes.isReply(subject) { f.set(.subject, subject) }
        if r.value("forwarded") == .bool(true) { f.set(.forwarded, "forwarded") }

        let text = r.stringBytes("reply_text") ?? r.stringBytes("text") ?? []
        let html = r.stringBytes("html")
        let attachments = r.value("attachments")?.arrayValue ?? []
        var shownInFrame = Set<String>()
        if let html, !html.isEmpty, r.value("is_newsletter") == .bool(true) || Self.isBlank(text) {
            shownInFrame = Self.contentIDs(in: html, of: attachments)
            // the message's HTML is written once, in a document of its own that both the preview
            // in the conversation and the message's full page show in a sandboxed frame
            let page = "m/" + anchor + ".html", document = anchor + ".frame.html"
            let title = r.string("subject").flatMap { $0.isEmpty ? nil : $0 } ?? words.text(.message_from, ["name": senderName])
            if documents {
                try site.write("m/" + document, frameDocument(html, sanitized: r.value("sanitize").map { $0 != .null } ?? false,
                                                              attachments: attachments, title: title))
                try site.write(page, fullPage(document: document, title: title, back: "c/\(conversationFile).html#\(anchor)"))
            }
            var preview = Array("<div class=\"preview\"><iframe class=\"preview-frame\" title=\"".utf8)
            HTMLEscape.text(title.utf8, into: &preview)
            preview += Array("\" sandbox=\"\(Self.sandbox)\" tabindex=\"-1\" loading=\"lazy\" src=\"../m/".utf8)
            HTMLEscape.text(document.utf8, into: &preview)
            preview += Array("\"></iframe></div><p class=\"open-full\"><a href=\"../\(page)\">\(words.html(.open_whole_message))</a></p>".utf8)
            f[.preview] = preview
        } else if !Self.isBlank(text) {
            // lines a program cut at a width flow again; format=flowed was undone by text-extract
            // and the breaks it left are the sender's
            let format = r.string("text_format")
            let shown = format == "flowed" || format == "flowed_delsp" ? text : Reflow.paragraphs(text)
            var body: [UInt8] = []
            body.reserveCapacity(shown.count + shown.count / 8)
            LinkedText.html(shown, into: &body)
            f[.text] = body
            if let lang = TextFacts.cjkLanguage(text) { f.set(.lang, lang) }
        }

        f[.forward] = forwardCard(r, clock: &clock)

        var folded: [UInt8] = []
        var quotes = false, signs = false
        if let quoted = r.stringBytes("quoted_text"), !Self.isBlank(quoted) {
            LinkedText.html(quoted, into: &folded)
            quotes = true
        }
        if let signature = r.stringBytes("signature"), !Self.isBlank(signature) {
            if !folded.isEmpty { folded += Array("\n\n".utf8) }
            LinkedText.html(signature, into: &folded)
            signs = true
        }
        if !folded.isEmpty {
            f[.folded] = folded
            f.set(.folded_label, words.text(quotes && signs ? .show_quoted_text_and_signature : quotes ? .show_quoted_text : .show_signature))
        }
        let blocks = attachmentBlocks(attachments, shownInFrame: shownInFrame)
        f[.pictures] = blocks.pictures
        if blocks.pictureCount > 1 { f.set(.pictures_layout, "grid") }
        if blocks.pictureCount > 0 && f[.text].isEmpty && f[.preview].isEmpty && folded.isEmpty { f.set(.shape, "photo") }
        f[.attachments] = blocks.files
        var cards: [UInt8] = []
        for s in r.value("shipments")?.arrayValue ?? [] { parcelCard(parcelOf(s) ?? s, into: &cards) }
        for v in r.value("events")?.arrayValue ?? [] {
            if let e = Event(json: v) { eventCard(e, into: &cards, clock: &clock) }
        }
        f[.cards] = cards
        var day: Int?
        if let epoch {
            let (days, seconds) = clock.local(epoch)
            day = days
            f.set(.time, words.clock(seconds))
            f.set(.datetime, CivilDate.rfc3339(epoch))
        }
        if unread && !automated { f.set(.unread, words.text(.unread)) }
        switch sending?.state {
        case "sending":
            f.set(.delivery, words.text(.sending))
            f.set(.delivery_class, "sending")
        case "failed":
            f.set(.delivery, words.text(.not_sent) + (sending?.error.map { ": " + $0 } ?? ""))
            f.set(.delivery_class, "failed")
        default:
            break
        }
        f[.reactions] = c.reactionRow(for: id, words: words)
        f[.notes] = c.notes(for: id, day: day, clock: &clock, words: words)
        var out: [UInt8] = []
        out.reserveCapacity(1024 + f.values.reduce(0) { $0 + $1.count })
        templates.bubble.render(f.values, into: &out)
        return out
    }

    static func isBlank(_ text: [UInt8]) -> Bool { text.allSatisfy { $0 == 0x20 || $0 == 0x0A || $0 == 0x0D || $0 == 0x09 } }

    // MARK: HTML in a frame

    /// What a frame showing a message's HTML may do: open links in a new tab, nothing else
    /// (no script, no form, no same origin as the site).
    static let sandbox = "allow-popups allow-popups-to-escape-sandbox"

    /// The document the frames show (`m/ANCHOR.frame.html`): the message's HTML sanitized (by
    /// html-sanitize, or here when it was not), its inline images pointed at the saved
    /// attachments, remote ones held back. A document loaded from a file does not take the
    /// policy of the page that frames it, as a srcdoc one did: it carries the pages' own.
    func frameDocument(_ html: [UInt8], sanitized: Bool, attachments: [JSONValue], title: String) -> [UInt8] {
        let clean = sanitized ? html : sanitizer.sanitize(html).html
        var out = Array("<!DOCTYPE html><html><head><meta charset=\"utf-8\"><meta http-equiv=\"Content-Security-Policy\" content=\"".utf8)
        out.reserveCapacity(clean.count + 512)
        HTMLEscape.text(PageWriter.contentSecurityPolicy(remoteImages: remoteImages, frames: false).utf8, into: &out)
        out += Array("\"><meta name=\"referrer\" content=\"no-referrer\"><title>".utf8)
        HTMLEscape.text(title.utf8, into: &out)
        out += Array("</title><base target=\"_blank\"><style>html,body{margin:0;padding:0}</style></head><body>".utf8)
        rewriteImages(clean, attachments: attachments, into: &out)
        out += Array("</body></html>".utf8)
        return out
    }

    private static let cidSource = Array(" src=\"cid:".utf8)
    private static let remoteSources = [" src=\"http:", " src=\"https:", " background=\"http:", " background=\"https:"].map { Array($0.utf8) }

    /// html-sanitize writes attributes one way (a space, the name, `="`), so these are found
    /// by their bytes: `src="cid:…"` becomes the saved file's path or nothing, and without
    /// --remote-images a remote `src` or `background` becomes `data-remote-…`, not loaded.
    func rewriteImages(_ html: [UInt8], attachments: [JSONValue], into out: inout [UInt8]) {
        var i = 0, copied = 0
        while let lt = Self.indexOf(UInt8(ascii: " "), in: html, from: i) {
            i = lt + 1
            guard i < html.count, html[i] == UInt8(ascii: "s") || html[i] == UInt8(ascii: "b") else { continue }
            if Self.has(Self.cidSource, in: html, at: lt) {
                let valueStart = lt + Self.cidSource.count
                guard let end = Self.indexOf(UInt8(ascii: "\""), in: html, from: valueStart) else { break }
                let cid = String(decoding: html[valueStart..<end], as: UTF8.self)
                out += html[copied..<lt]
                if let saved = savedFile(contentID: cid, attachments) {
                    out += Array(" src=\"".utf8)
                    HTMLEscape.text(Array(saved.utf8), into: &out)
                    out += Array("\"".utf8)
                } else {
                    out += Array(" data-cid=\"".utf8) + html[valueStart..<end] + Array("\"".utf8)
                }
                copied = end + 1
                i = copied
            } else if !remoteImages, let prefix = Self.remoteSources.first(where: { Self.has($0, in: html, at: lt) }) {
                out += html[copied..<lt]
                out += Array(" data-remote-".utf8)
                copied = lt + 1
                i = lt + 1 + prefix.count - 1
            }
        }
        out += html[copied...]
    }

    private static func indexOf(_ b: UInt8, in bytes: [UInt8], from: Int) -> Int? {
        guard from < bytes.count else { return nil }
        return bytes.withUnsafeBytes { p in
            memchr(p.baseAddress! + from, Int32(b), p.count - from).map { UnsafeRawPointer($0) - p.baseAddress! }
        }
    }

    private static func has(_ prefix: [UInt8], in bytes: [UInt8], at i: Int) -> Bool {
        guard i + prefix.count <= bytes.count else { return false }
        for k in 0..<prefix.count where bytes[i + k] != prefix[k] { return false }
        return true
    }

    /// The image with this Content-ID, when it is one, as a data: URL of the site's display copy
    /// (never the kept file itself: it may be anything, and keeps its metadata). A frame is
    /// sandboxed: a browser lets it load no file from disk.
    func savedFile(contentID: String, _ attachments: [JSONValue]) -> String? {
        for a in attachments where a["content_id"]?.stringValue == contentID {
            if let source = pictures.dataURL(a) { return source }
        }
        return nil
    }

    /// A page of its own for an HTML message, full width: its `document` (in m/) in a frame.
    func fullPage(document: String, title: String, back: String) -> [UInt8] {
        var content = Array("<p class=\"back\"><a href=\"../".utf8)
        HTMLEscape.text(Array(back.utf8), into: &content)
        content += Array("\">\(words.html(.back_to_conversation))</a></p><iframe class=\"full-frame\" title=\"".utf8)
        HTMLEscape.text(Array(title.utf8), into: &content)
        content += Array("\" sandbox=\"\(Self.sandbox)\" src=\"".utf8)
        HTMLEscape.text(document.utf8, into: &content)
        content += Array("\"></iframe>".utf8)
        return PageWriter.page(templates, title: title, root: "../", nav: [], content: content, remoteImages: remoteImages)
    }

    // MARK: attachments and cards

    /// "application/pdf" → "PDF", "image/png" → "PNG image".
    static func typeName(_ type: String, words: SiteWords) -> String {
        let parts = type.split(separator: "/", maxSplits: 1)
        guard parts.count == 2 else { return type }
        var sub = String(parts[1])
        if let plus = sub.firstIndex(of: "+") { sub = String(sub[..<plus]) }
        if sub.hasPrefix("x-") || sub.hasPrefix("vnd.") { sub = String(sub.split(separator: ".").last ?? Substring(sub)) }
        let name = sub.count <= 5 ? sub.uppercased() : sub
        return parts[0] == "image" ? words.text(.image_type, ["type": name]) : name
    }

    static func sizeText(_ bytes: Int) -> String {
        if bytes < 1000 { return "\(bytes) B" }
        if bytes < 1_000_000 { return "\((bytes + 500) / 1000) kB" }
        let tenths = (bytes + 50_000) / 100_000
        return "\(tenths / 10).\(tenths % 10) MB"
    }

    /// A parcel's card, from a shipment or from parcel-group's record of the parcel (the same
    /// members, and its latest status).
    func parcelCard(_ s: JSONValue, conversation: (title: String, href: String)? = nil, into out: inout [UInt8]) {
        var f = Fields<ParcelField>()
        if let status = s["status"]?.stringValue {
            f.set(.status, words.parcelStatus(status))
            f.set(.status_class, String(status.map { $0 == "_" ? "-" : $0 }))
        }
        f.set(.expected, s["expected_delivery"]?.stringValue.flatMap { CivilDate.days(dateText: $0) }.map(words.day))
        let code = s["carrier"]?.stringValue ?? ""
        f.set(.carrier, CarrierNames.builtIn[code] ?? code)
        f.set(.number, s["tracking_number"]?.stringValue)
        f.set(.url, s["tracking_url"]?.stringValue.flatMap(Self.webLink))
        let pickup = s["pickup"]
        f.set(.store, pickup?["store"]?.stringValue)
        f.set(.deadline, pickup?["deadline"]?.stringValue.flatMap { CivilDate.days(dateText: $0) }.map(words.day))
        f.set(.code, pickup?["code"]?.stringValue)
        f.set(.address, pickup?["address"]?.stringValue)
        let customs = s["customs"]
        f.set(.duty, customs.flatMap(Self.moneyText))
        f.set(.duty_by, customs?["pay_by"]?.stringValue.flatMap { CivilDate.days(dateText: $0) }.map(words.day))
        f.set(.cash_on_delivery, s["cash_on_delivery"].flatMap(Self.moneyText))
        f.set(.shop, s["shop"]?.stringValue)
        f.set(.order_number, s["order_number"]?.stringValue)
        if let conversation {
            f.set(.conversation, conversation.title)
            f.set(.conversation_href, conversation.href)
        }
        templates.parcel.render(f.values, into: &out)
    }

    /// {"amount": 1280, "currency": "TWD"} → "TWD 1,280"; "GBP 8.00"; nil without an amount.
    static func moneyText(_ m: JSONValue) -> String? {
        guard case .number(let written)? = m["amount"], let amount = Double(written), amount >= 0, amount < 1e13 else { return nil }
        let hundredths = Int((amount * 100).rounded())
        var whole = String(hundredths / 100)
        var grouped = ""
        while whole.count > 3 {
            grouped = "," + whole.suffix(3) + grouped
            whole = String(whole.dropLast(3))
        }
        let cents = hundredths % 100
        let text = whole + grouped + (cents == 0 ? "" : "." + (cents < 10 ? "0" : "") + String(cents))
        return (m["currency"]?.stringValue).map { $0 + " " + text } ?? text
    }

    /// Only http(s) links are made links: a record is not trusted to hold a safe URL.
    static func webLink(_ url: String) -> String? {
        let lower = url.prefix(8).lowercased()
        return lower.hasPrefix("https://") || lower.hasPrefix("http://") ? url : nil
    }

    func eventCard(_ e: Event, conversation: (title: String, href: String)? = nil, into out: inout [UInt8], clock: inout LocalClock) {
        var f = Fields<EventField>()
        f.set(.summary, e.summary ?? words.text(.no_title))
        let (when, datetime) = Self.when(e, clock: &clock, words: words)
        f.set(.when, when)
        f.set(.datetime, datetime)
        f.set(.location, e.location)
        f.set(.url, e.url.flatMap(Self.webLink))
        let status: SiteWord? = e.status == "cancelled" ? .event_cancelled : e.status == "tentative" ? .event_tentative : nil
        f.set(.status, status.map { words.text($0) })
        if e.status == "cancelled" { f.set(.cancelled, "cancelled") }
        if let rule = e.recurrence?.rule { f.set(.repeats, words.text(Self.repeats(rule))) }
        if let conversation {
            f.set(.conversation, conversation.title)
            f.set(.conversation_href, conversation.href)
        }
        templates.event.render(f.values, into: &out)
    }

    static func repeats(_ rule: String) -> SiteWord {
        for (freq, word) in [("DAILY", SiteWord.repeats_daily), ("WEEKLY", .repeats_weekly), ("MONTHLY", .repeats_monthly), ("YEARLY", .repeats_yearly)]
        where rule.contains("FREQ=" + freq) { return word }
        return .repeats
    }

    /// When an event is, as text in the page's zone (all-day events on their dates, floating
    /// ones as written), and the `datetime` of its start.
    static func when(_ e: Event, clock: inout LocalClock, words: SiteWords) -> (text: String, datetime: String) {
        if e.allDay, let s = e.start ?? e.startLocal, let d = CivilDate.days(dateText: s) {
            var text = words.day(d)
            if let end = e.end ?? e.endLocal, let last = CivilDate.days(dateText: end).map({ $0 - 1 }), last > d {
                text += " – " + words.day(last)
            }
            return (text, String(s.prefix(10)))
        }
        if let s = e.start, let start = CivilDate.epoch(rfc3339: s) {
            let (d, secs) = clock.local(start)
            var text = words.dayAndTime(d, secs)
            if let end = e.end.flatMap({ CivilDate.epoch(rfc3339: $0) }), end > start {
                let (d2, secs2) = clock.local(end)
                text += " – " + (d2 == d ? words.clock(secs2) : words.dayAndTime(d2, secs2))
            }
            return (text, s)
        }
        if let local = e.startLocal, let d = CivilDate.days(dateText: local) {
            let digits = Array(local.utf8.dropFirst(11).prefix(5))
            if digits.count == 5, let h = Int(String(decoding: digits[0..<2], as: UTF8.self)),
               let m = Int(String(decoding: digits[3..<5], as: UTF8.self)) {
                return (words.dayAndTime(d, h * 3600 + m * 60), local)
            }
            return (words.day(d), local)
        }
        return ("", "")
    }
}
