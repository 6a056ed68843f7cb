import CivilTime
import Events
import JSONLines
import Parcels
import UTF8Text

/// The site's pages: each conversation's, and the lists (chats, newsletters, discussion lists,
/// parcels, events, archived), all in the page template.
struct PageWriter {
    let templates: SiteTemplates
    let site: SiteWriter
    let remoteImages: Bool
    let bubbles: BubbleRenderer
    var words: SiteWords { bubbles.words }

    enum Section: String, CaseIterable {
        case chats = "index", today, newsletters, lists, parcels, events, archived
        /// The parcels without news for 60 days: linked from the parcels' page, not from the navigation.
        case earlierParcels = "parcels-earlier"
        var word: SiteWord {
            switch self {
            case .chats: .section_chats
            case .today: .section_today
            case .newsletters: .section_newsletters
            case .lists: .section_lists
            case .parcels: .section_parcels
            case .events: .section_events
            case .archived: .section_archived
            case .earlierParcels: .section_earlier_parcels
            }
        }
        /// The page of the navigation that shows this one.
        var navigation: Section { self == .earlierParcels ? .parcels : self }
    }

    /// No script, nothing from elsewhere: styles and images from the site and data: only
    /// (inline styles too: the mail shown in frames is styled inline), frames of the site's
    /// own documents (a message's HTML) on the pages, none inside those documents.
    static func contentSecurityPolicy(remoteImages: Bool, frames: Bool = true) -> String {
        "default-src 'none'; style-src 'self' 'unsafe-inline'; img-src 'self' data:" + (remoteImages ? " https:" : "")
            + (frames ? "; frame-src 'self'" : "") + "; base-uri 'none'; form-action 'none'"
    }

    static func page(_ templates: SiteTemplates, title: String, root: String, nav: [UInt8], content: [UInt8], remoteImages: Bool) -> [UInt8] {
        var f = Fields<PageField>()
        f.set(.title, title)
        f.set(.root, root)
        f.set(.csp, contentSecurityPolicy(remoteImages: remoteImages))
        f.set(.lang, templates.language)
        f[.nav] = nav
        f[.content] = content
        var out: [UInt8] = []
        out.reserveCapacity(content.count + 2048)
        templates.page.render(f.values, into: &out)
        return out
    }

    func nav(root: String, current: Section?) -> [UInt8] {
        var out = Array("<ul>".utf8)
        for s in Section.allCases where s.navigation == s {
            out += Array("<li><a href=\"\(root)\(s.rawValue).html\"".utf8)
            if s == current?.navigation { out += Array(" aria-current=\"page\"".utf8) }
            out += Array(">\(words.html(s.word))</a></li>".utf8)
        }
        return out + Array("</ul>".utf8)
    }

    static func avatar(_ c: ConversationSummary) -> (initials: String, colour: String) {
        let p = c.participants.first
        let initials = c.participants.count > 1 ? String(c.participants.count) : TextFacts.initials(name: p?.name.map(TextFacts.displayName), address: p?.address ?? "?")
        return (initials, "c" + String(TextFacts.colourIndex(c.avatarAddress, count: 12)))
    }

    // MARK: a conversation

    /// A conversation's pages: the newest messages in c/ID.html, older ones in c/ID.pN.html
    /// (N from 1, oldest first), so that new mail changes only the newest page. `list` holds the
    /// bubbles of pages `first` on, of a conversation of `messages` messages (all by default).
    mutating func conversation(_ c: ConversationSummary, bubbles list: ArraySlice<ChatRender.Bubble>, spool: Spool,
                               pageSize: Int, clock: inout LocalClock, messages: Int? = nil, fromPage first: Int = 1) throws {
        let count = Self.pageCount(messages: messages ?? list.count, pageSize: pageSize)
        for page in first...count {
            let slice = list.dropFirst((page - first) * pageSize).prefix(pageSize)
            var content = conversationContentStart(c, page: page, of: count)
            var lastDay: Int?
            try bubbles(slice, after: &lastDay, spool: spool, clock: &clock, into: &content)
            content += conversationContentEnd(c, page: page, of: count, clock: &clock)
            try site.write("c/" + Self.file(c, page: page, of: count), conversationPage(c, page: page, of: count, content: content))
        }
    }

    static func pageCount(messages: Int, pageSize: Int) -> Int { max(1, (messages + pageSize - 1) / pageSize) }

    /// A conversation's page `page` of `count`: the newest in c/ID.html, the older ones in c/ID.pN.html.
    static func file(_ c: ConversationSummary, page: Int, of count: Int) -> String {
        page == count ? c.file + ".html" : c.file + ".p\(page).html"
    }

    /// The markup of `list`, bubbles as a conversation's page shows them, each day's first
    /// under the day; `lastDay`: the day of the bubble before them on the page.
    func bubbles(_ list: ArraySlice<ChatRender.Bubble>, after lastDay: inout Int?, spool: Spool, clock: inout LocalClock,
                 into content: inout [UInt8]) throws {
        for b in list {
            if b.epoch != Int.min {
                let (day, _) = clock.local(b.epoch)
                if day != lastDay {
                    content += Array("<li class=\"day\"><time datetime=\"\(CivilDate.dateText(days: day))\">\(words.day(day))</time></li>".utf8)
                    lastDay = day
                }
            }
            try spool.read(offset: b.offset, length: b.length, into: &content)
        }
    }

    /// What a conversation's page shows before its bubbles.
    private func conversationContentStart(_ c: ConversationSummary, page: Int, of count: Int) -> [UInt8] {
        var content = header(c)
        if count > 1 { content += conversationPager(c, page: page, of: count) }
        return content + Array("<ol class=\"messages\">".utf8)
    }

    /// What a conversation's page shows after its bubbles.
    private func conversationContentEnd(_ c: ConversationSummary, page: Int, of count: Int, clock: inout LocalClock) -> [UInt8] {
        var content = c.isNotices ? notices(c, clock: &clock) : []
        content += Array("</ol>".utf8)
        if count > 1 { content += conversationPager(c, page: page, of: count) }
        return content
    }

    private func conversationPager(_ c: ConversationSummary, page: Int, of count: Int) -> [UInt8] {
        pager(previous: page > 1 ? Self.file(c, page: page - 1, of: count) : nil,
              next: page < count ? Self.file(c, page: page + 1, of: count) : nil, labels: (.older, .newer))
    }

    private func conversationPage(_ c: ConversationSummary, page: Int, of count: Int, content: [UInt8]) -> [UInt8] {
        Self.page(templates, title: pageTitle(c.title, page: page, of: count), root: "../", nav: nav(root: "../", current: nil),
                  content: content, remoteImages: remoteImages)
    }

    /// Conversation page `page` of `count` as it is written, cut where its bubbles are: the bytes
    /// before them and after them. Nil when the page template does not show its content once
    /// and as it is.
    func conversationPageAround(_ c: ConversationSummary, page: Int, of count: Int, clock: inout LocalClock) -> (before: [UInt8], after: [UInt8])? {
        let mark = Array("<\u{0}bubbles\u{0}>".utf8)  // escaped, were the content escaped; in no template
        let whole = conversationPage(c, page: page, of: count, content: conversationContentStart(c, page: page, of: count) + mark
                                     + conversationContentEnd(c, page: page, of: count, clock: &clock))
        guard let at = ByteSearch.firstIndex(of: mark, in: whole, from: 0),
              ByteSearch.firstIndex(of: mark, in: whole, from: at + mark.count) == nil else { return nil }
        return (Array(whole[..<at]), Array(whole[(at + mark.count)...]))
    }

    /// The notices conversation's reports, oldest first, under the days they came.
    func notices(_ c: ConversationSummary, clock: inout LocalClock) -> [UInt8] {
        var out: [UInt8] = []
        var lastDay: Int?
        for r in c.reports {
            let day = r.date.flatMap { CivilDate.epoch(rfc3339: $0) }.map { clock.local($0).days }
            if let day, day != lastDay {
                out += Array("<li class=\"day\"><time datetime=\"\(CivilDate.dateText(days: day))\">\(words.day(day))</time></li>".utf8)
                lastDay = day
            }
            out += Array("<li class=\"message automated\"><ul class=\"notes\">".utf8)
            r.item(names: [:], day: day, clock: &clock, words: words, into: &out)
            out += Array("</ul></li>".utf8)
        }
        return out
    }

    func header(_ c: ConversationSummary) -> [UInt8] {
        let (initials, colour) = Self.avatar(c)
        var out = Array("<header class=\"conversation-head\"><span class=\"avatar \(colour)\" aria-hidden=\"true\">".utf8)
        HTMLEscape.text(initials.utf8, into: &out)
        out += Array("</span><div><h1 dir=\"auto\">".utf8)
        HTMLEscape.text(c.title.utf8, into: &out)
        out += Array("</h1><p class=\"members\" dir=\"auto\">".utf8)
        let members = c.participants.map { p in p.name.map { TextFacts.isolatedIfRightToLeft(TextFacts.displayName($0)) + " <\(p.address)>" } ?? p.address }
        HTMLEscape.text((members.joined(separator: ", ") + (c.isNewsletter ? " · " + words.text(.newsletter) : "")).utf8, into: &out)
        out += Array("</p></div></header>".utf8)
        return out
    }

    /// Links to the previous and the next page, named `labels`.
    func pager(previous: String?, next: String?, labels: (previous: SiteWord, next: SiteWord)) -> [UInt8] {
        var out = Array("<nav class=\"pager\" aria-label=\"\(words.html(.pages_label))\">".utf8)
        if let previous { out += Array("<a rel=\"prev\" href=\"\(Self.hrefText(previous))\">\(words.html(labels.previous))</a>".utf8) }
        if let next { out += Array("<a rel=\"next\" href=\"\(Self.hrefText(next))\">\(words.html(labels.next))</a>".utf8) }
        return out + Array("</nav>".utf8)
    }

    static func hrefText(_ s: String) -> String { String(decoding: HTMLEscape.text(s), as: UTF8.self) }

    /// "Title (2 of 5)" for page `page` of `count`; the title alone when there is one page.
    func pageTitle(_ title: String, page: Int, of count: Int) -> String {
        count > 1 ? words.text(.page_of, ["title": title, "page": String(page), "count": String(count)]) : title
    }

    // MARK: parcels and today

    /// The time before which a parcel's last news makes it an earlier one at `now` (RFC 3339, as
    /// the news is dated): no news for as long as parcel-group --open keeps a parcel open. The
    /// earlier parcels are listed on pages of their own.
    static func earlierNewsBefore(now: Int) -> String { CivilDate.rfc3339(now - ParcelGroup.openDays * 86_400) }

    /// The parcels page's groups of the parcels with news, in order: those waiting at a store
    /// (the nearest deadline first), on their way, returned or in trouble, delivered or picked
    /// up (newest news first).
    static func parcelGroups(_ parcels: [ParcelItem], words: SiteWords) -> [(title: String, parcels: [ParcelItem])] {
        var groups: [[ParcelItem]] = Array(repeating: [], count: 4)
        for p in parcels {
            let status = p.facts.status
            let k: Int
            if status == "available_for_pickup" { k = 0 }
            else if status == "returned" || status == "exception" { k = 2 }
            else if status == "delivered" || status == "picked_up" { k = 3 }
            else { k = 1 }
            groups[k].append(p)
        }
        groups[0].sort { a, b in
            let (x, y) = (a.facts.deadline ?? "~", b.facts.deadline ?? "~")
            return x != y ? x < y : a.id < b.id
        }
        let titles = [SiteWord.parcels_waiting, .parcels_on_the_way, .parcels_in_trouble, .parcels_done].map { words.html($0) }
        return zip(titles, groups).filter { !$0.1.isEmpty }.map { ($0.0, $0.1) }
    }

    /// A parcel as its lists show it: what they group and sort it by, and its card.
    struct ParcelItem {
        var id: String
        var facts: ParcelGroup.Facts
        var card: [UInt8]
    }

    /// The item of a parcel-group record, its card naming its conversation as `conversation` does.
    func parcelItem(_ p: JSONValue, conversation: (String) -> (String, String)?) -> ParcelItem {
        var card: [UInt8] = []
        bubbles.parcelCard(p, conversation: p["conversation_id"]?.stringValue.flatMap(conversation), into: &card)
        return ParcelItem(id: p["parcel_id"]?.stringValue ?? "", facts: ParcelGroup.Facts(record: p), card: card)
    }

    /// The pages of the parcels with news, ending with a link to the `earlierCount` earlier ones.
    func recentParcels(_ recent: [ParcelItem], earlierCount: Int, pageSize: Int) throws {
        let all = Self.parcelGroups(recent, words: words).flatMap { g in g.parcels.map { (g.title, $0) } }
        var pages = Self.headedPages(all, pageSize: pageSize, list: "cards parcels") { p, content in content += p.card }
        if earlierCount > 0 {
            let parcels = words.count(.earlier_parcels_link, earlierCount, ["days": String(ParcelGroup.openDays)])
            var link = Array(("<h2>\(words.html(.earlier))</h2><p class=\"more\"><a href=\"\(Section.earlierParcels.rawValue).html\">").utf8)
            link += HTMLEscape.text(parcels) + Array("</a></p>".utf8)
            if pages.isEmpty { pages = [link] } else { pages[pages.count - 1] += link }
        }
        try write(.parcels, pages: pages, empty: .no_parcels)
    }

    /// The earlier parcels' pages `pages`, each parcel's card written by `items`.
    func earlierParcels(_ layout: NewestFirstPages, pages: ClosedRange<Int>, items: (Range<Int>, inout [UInt8]) throws -> Void) throws {
        try write(.earlierParcels, layout, pages: pages, list: "<ul class=\"cards parcels\">", end: "</ul>", empty: .no_earlier_parcels, items: items)
    }

    /// Today and tomorrow (in the site's zone): the events on them, the pickups due and the
    /// deliveries expected.
    func today(calendar: [EventStore.Tracked], eventConversation: (String) -> (String, String)?, parcels: [ParcelItem],
               now: Int, clock: inout LocalClock) throws {
        var content = Array("<h1>\(words.html(.section_today))</h1>".utf8)
        let today = clock.local(now).days
        for (k, name) in [words.html(.today), words.html(.tomorrow)].enumerated() {
            let day = today + k
            let date = CivilDate.dateText(days: day)
            content += Array("<section class=\"today\"><h2>\(name) · <time datetime=\"\(date)\">\(words.day(day))</time></h2>".utf8)
            var cards: [UInt8] = []
            if let window = EventGroup.day(date, zone: clock.zone) {
                for record in StoredEvents.occurrences(of: calendar, in: window, zone: clock.zone) {
                    guard let v = try? JSONValue.parse(record), var e = Event(json: v) else { continue }
                    if let start = v["occurrence_start"]?.stringValue {  // the occurrence, not the series' first
                        let end = v["occurrence_end"]?.stringValue
                        if e.allDay || start.hasSuffix("Z") { (e.start, e.end) = (start, end) } else { (e.startLocal, e.endLocal) = (start, end) }
                    }
                    bubbles.eventCard(e, conversation: v["conversation_id"]?.stringValue.flatMap(eventConversation), into: &cards, clock: &clock)
                }
            }
            for p in parcels where Self.agenda(date).keeps(p.facts) { cards += p.card }
            content += cards.isEmpty ? Array("<p class=\"empty\">\(words.html(.nothing))</p>".utf8) : Array("<ul class=\"cards\">".utf8) + cards + Array("</ul>".utf8)
            content += Array("</section>".utf8)
        }
        try site.write("today.html", Self.page(templates, title: words.text(.section_today), root: "", nav: nav(root: "", current: .today),
                                                content: content, remoteImages: remoteImages))
    }

    /// The parcels due on `date`, as parcel-group --agenda DATE has them.
    static func agenda(_ date: String) -> ParcelGroup {
        var due = ParcelGroup()
        due.agendaDay = date
        return due
    }

    /// A list of conversations: the pages `pages` of it (all by default), each item written by `items`.
    func conversationList(_ section: Section, _ layout: NewestFirstPages, pages: ClosedRange<Int>? = nil,
                          items: (Range<Int>, inout [UInt8]) throws -> Void) throws {
        try write(section, layout, pages: pages ?? 1...layout.pageCount, list: "<ol class=\"conversations\">", end: "</ol>",
                  empty: .nothing_here, items: items)
    }

    /// Pages of a list that is newest first, numbered from its oldest as a conversation's are.
    private func write(_ section: Section, _ layout: NewestFirstPages, pages: ClosedRange<Int>, list: String, end: String, empty: SiteWord,
                       items: (Range<Int>, inout [UInt8]) throws -> Void) throws {
        let count = layout.pageCount
        for page in pages {
            var content = Array("<h1>\(words.html(section.word))</h1>".utf8)
            if layout.count == 0 {
                content += Array("<p class=\"empty\">\(words.html(empty))</p>".utf8)
            } else {
                content += Array(list.utf8)
                try items(layout.items(onPage: page), &content)
                content += Array(end.utf8)
            }
            if count > 1 {
                content += pager(previous: page < count ? layout.file(section, page: page + 1) : nil,
                                 next: page > 1 ? layout.file(section, page: page - 1) : nil, labels: (.newer, .older))
            }
            let title = pageTitle(words.text(section.word), page: count - page + 1, of: count)
            try site.write(layout.file(section, page: page), Self.page(templates, title: title, root: "", nav: nav(root: "", current: section),
                                                                       content: content, remoteImages: remoteImages))
        }
    }

    /// The calendar's pages, soonest first: page 1 in `events.html`, page N in `events.pN.html`.
    func write(_ section: Section, pages: [[UInt8]], empty: SiteWord) throws {
        let count = max(1, pages.count)
        func file(_ page: Int) -> String { page == 1 ? section.rawValue + ".html" : section.rawValue + ".p\(page).html" }
        for page in 1...count {
            var content = Array("<h1>\(words.html(section.word))</h1>".utf8)
            if section == .events {
                content += Array("<p class=\"subscribe\"><a href=\"\(CalendarFile.name)\" type=\"text/calendar\">\(words.html(.subscribe_calendar, ["file": CalendarFile.name]))</a></p>".utf8)
            }
            if pages.isEmpty {
                content += Array("<p class=\"empty\">\(words.html(empty))</p>".utf8)
            } else {
                content += pages[page - 1]
            }
            // the calendar's order is soonest first, then the past latest first: neither newer nor older
            if count > 1 { content += pager(previous: page > 1 ? file(page - 1) : nil, next: page < count ? file(page + 1) : nil, labels: (.previous, .next)) }
            let title = pageTitle(words.text(section.word), page: page, of: count)
            try site.write(file(page), Self.page(templates, title: title, root: "", nav: nav(root: "", current: section),
                                                  content: content, remoteImages: remoteImages))
        }
    }

    func item(_ c: ConversationSummary, into out: inout [UInt8], clock: inout LocalClock) {
        if let cached = c.item {
            out += cached
            return
        }
        var f = Fields<ItemField>()
        f.set(.href, "c/" + c.file + ".html")
        let (initials, colour) = Self.avatar(c)
        f.set(.avatar, colour)
        f.set(.initials, initials)
        f.set(.title, c.title)
        if c.lastFromMe {
            f.set(.sender, words.text(.you))
        } else if c.isGroup, let s = c.lastSender {
            f.set(.sender, TextFacts.givenName(name: s.name, address: s.address))
        }
        f.set(.snippet, c.snippet)
        if let epoch = CivilDate.epoch(rfc3339: c.lastDate) {
            f.set(.date, words.shortDay(clock.local(epoch).days))
            f.set(.datetime, c.lastDate)
        }
        if c.unreadCount > 0 { f.set(.unread, String(c.unreadCount)) }
        f.set(.count, String(c.messageCount))
        f.set(.messages, words.count(.messages_after_count, c.messageCount))
        templates.item.render(f.values, into: &out)
    }

    /// The calendar's cards, upcoming (soonest first) then past (latest first), --list-page-size
    /// to a page as the other lists; each page heads the part of either it holds.
    func events(_ calendar: [EventStore.Tracked], conversation: (String) -> (String, String)?, now: Int, pageSize: Int,
                clock: inout LocalClock) throws {
        var upcoming: [EventStore.Tracked] = [], past: [EventStore.Tracked] = []
        for t in calendar { EventGroup.isUpcoming(t.event, now: now) ? upcoming.append(t) : past.append(t) }
        upcoming.sort { EventGroup.sortKey($0) < EventGroup.sortKey($1) }
        past.sort { EventGroup.sortKey($0) > EventGroup.sortKey($1) }
        let all = upcoming.map { (words.html(.upcoming), $0) } + past.map { (words.html(.past), $0) }
        let pages = Self.headedPages(all, pageSize: pageSize, list: "cards") { t, content in
            bubbles.eventCard(t.event, conversation: t.conversationID.flatMap(conversation), into: &content, clock: &clock)
        }
        try write(.events, pages: pages, empty: .no_events)
    }

    /// Items in parts, `pageSize` to a page: each page heads each part it holds, with a list of
    /// class `list` of its items, each written by `card`.
    static func headedPages<Item>(_ all: [(part: String, item: Item)], pageSize: Int, list: String,
                                  card: (Item, inout [UInt8]) -> Void) -> [[UInt8]] {
        var pages: [[UInt8]] = []
        for start in stride(from: 0, to: all.count, by: pageSize) {
            var content: [UInt8] = []
            var heading: String?
            for (part, item) in all[start..<min(all.count, start + pageSize)] {
                if part != heading {
                    if heading != nil { content += Array("</ul>".utf8) }
                    content += Array("<h2>\(part)</h2><ul class=\"\(list)\">".utf8)
                    heading = part
                }
                card(item, &content)
            }
            pages.append(content + Array("</ul>".utf8))
        }
        return pages
    }

}

/// A newest-first list on pages numbered from its oldest, as a conversation's messages are:
/// pages 1 to N−1 hold `pageSize` items each, oldest first, and the first page, page N, the
/// newest (`pageSize` to twice that less one; all when fewer). New items then change the first
/// page only, and a conversation that moves to the top the pages from where it was.
struct NewestFirstPages {
    let count: Int
    let pageSize: Int

    var pageCount: Int { max(1, count / pageSize) }

    /// The page that shows the item `fromOldest` items after the oldest.
    func page(ofItem fromOldest: Int) -> Int { min(fromOldest / pageSize + 1, pageCount) }

    /// The items a page shows, counted from the newest.
    func items(onPage page: Int) -> Range<Int> {
        let (low, high) = ((page - 1) * pageSize, page == pageCount ? count : page * pageSize)
        return (count - high)..<(count - low)
    }

    /// `index.html` for the first page, `index.p1.html` for the oldest.
    func file(_ section: PageWriter.Section, page: Int) -> String {
        page == pageCount ? section.rawValue + ".html" : section.rawValue + ".p\(page).html"
    }
}
