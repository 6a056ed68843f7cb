#if canImport(Glibc)
import Glibc
#endif
import CivilTime
import Events
import Hashing
import JSONLines
import MailStore
import MailSubject
import Parcels
import SQLite
import UnixFilter
import UTF8Text

/// chat-render --store: the site of a mailstore database. The site remembers the database, the
/// change counter it last rendered and what its lists hold (SiteState); the pages of the
/// conversations changed since then are rendered again, and of the lists only the pages the
/// change reaches, so that a delivery costs the same in a mailbox of any size. Another
/// database, zone, page size or look renders everything.
extension ChatRender {
    /// Raised when the same records make other pages (the site of an older chat-render is then
    /// rendered whole, not left half in the old way): 2, a message's HTML in a file of its own;
    /// 3, hard-wrapped text flowing; 4, the lists numbered from their oldest page; 5, parcels by
    /// their status and a Today page; 6, the earlier parcels on pages of their own; 7, kept
    /// attachments as pictures and file cards from the site's copies.
    static let pagesVersion = "7"
    /// What sites of earlier versions kept beside their pages.
    static let formerStateFiles = [".mailstore-render", ".mailstore-lists"]

    /// Renders the database at `path`, taking turns with the other runs on the site
    /// (SiteTurns): without `waiting`, a run that finds another rendering leaves the site due
    /// to it and returns at once; with `background`, its turn goes on in a process of its own
    /// (SiteTurns.leaveForBackground). With `picturesAfterPages`, pages that wait for pictures
    /// are rendered again once they are made, by the same turn gone on in the background: this
    /// run returns when the pages are written. Returns whether this run rendered.
    @discardableResult
    public func run(storeAt path: String, waiting: Bool, background: Bool = false, _ run: FilterRun) throws -> Bool {
        var render = self
        return try Self.endingOnWriteError(run) {
            try SiteTurns.take(site: out, waiting: waiting, taken: { if background { try SiteTurns.leaveForBackground(site: out) } }) {
                let database: MailStore
                do { database = try MailStore(path: path, access: .read) } catch let e as StoreError {
                    run.diagnostics.error(e.description)
                    throw Exit(e.status)
                }
                if try render.run(store: database, run) && render.picturesAfterPages {
                    try SiteTurns.goOnInBackground(site: out)
                    render.picturesAfterPages = false
                    try SiteTurns.markDue(site: out)
                }
            }
        }
    }

    /// The reply prefixes, among the settings a site is rendered with: they decide which
    /// bubbles show their subject.
    static func fingerprint(_ prefixes: SubjectPrefixes) -> String {
        SHA256.hex(Array(prefixes.replies.joined(separator: "\n").utf8))
    }

    /// Returns whether pages wait for pictures (only with `picturesAfterPages`).
    @discardableResult
    public func run(store: MailStore, _ run: FilterRun) throws -> Bool {
        if let render = localizing() { return try render.run(store: store, run) }
        let subjectPrefixes = try SubjectPrefixes.load(run.diagnostics)
        guard let clock = LocalClock(zone: zone) else { throw Exit(.usage) }
        let site = try Self.endingOnWriteError(run) { try SiteWriter(root: out, folders: ["c", "m"]) }
        let spool = try Self.endingOnWriteError(run) { try Spool(directory: out) }
        defer { spool.close() }
        let state: SiteState
        do { state = try SiteState(folder: out) } catch {
            run.diagnostics.error("\(out)/\(SiteState.name): \(error)")
            throw Exit(.ioError)
        }
        var renderer = BubbleRenderer(templates: templates, words: words, remoteImages: remoteImages, site: site, subjectPrefixes: subjectPrefixes)
        renderer.parcelOf = { (try? store.parcel(of: $0)) ?? nil }
        renderer.pictures.report = { run.diagnostics.note($0) }
        var job = SiteRender(source: StoreSource(store: store, renderer: renderer, spool: spool), state: state, site: site, spool: spool,
                             clock: clock, render: self, renderer: renderer)
        var whole = false
        try Self.endingOnWriteError(run) {
            try state.db.transaction {
                let (settings, counter) = try store.snapshot {
                    let settings = [Self.pagesVersion, try store.storeID(), zone, String(remoteImages), String(messagesPerPage), String(listPageSize),
                                    templates.fingerprint, Self.fingerprint(subjectPrefixes)].joined(separator: " ")
                    let counter = try store.changeCounter()
                    if let since = try state.lastRender(settings: settings) {
                        renderer.pictures.later = picturesAfterPages
                        try job.update(since: since)
                    } else {
                        try job.whole()
                        whole = true
                    }
                    return (settings, counter)
                }
                try store.close()  // its mapped pages let go of while the last pages are written
                try job.finish()
                try state.set("settings", settings)
                try state.set("counter", String(counter))
            }
        }
        renderer.pictures.finish(sweep: whole)
        let picturesWait = try picturesAfterPages && state.hasPicturesWaiting()
        state.db.close()
        return picturesWait
    }
}

/// One run of chat-render: the pages of what `source` holds, whole, or (from the store) of what
/// changed since the last run. What the lists show of each conversation is put in the site's
/// state (SiteState), kept for the next run from the store, for this run only from files.
struct SiteRender<Source: SiteSource> {
    let source: Source
    let state: SiteState
    let site: SiteWriter
    let spool: Spool
    var clock: LocalClock
    let render: ChatRender
    var pages: PageWriter
    /// Names of files (prefixes: `c/ID.`, `m/ANCHOR.`) whose pages this run may leave behind.
    var replaced: [String] = []
    /// Files this run may leave behind, by name.
    var superseded: [String] = []
    /// Lists of the site's files that earlier renders kept, gone once this one is done.
    var formerLists: [String] = []

    init(source: Source, state: SiteState, site: SiteWriter, spool: Spool, clock: LocalClock, render: ChatRender, renderer: BubbleRenderer) {
        (self.source, self.state, self.site, self.spool, self.clock, self.render) = (source, state, site, spool, clock, render)
        pages = PageWriter(templates: render.templates, site: site, remoteImages: render.remoteImages, bubbles: renderer)
    }

    static var conversationLists: [PageWriter.Section] { [.chats, .newsletters, .lists, .archived] }

    /// Every page; `finish` then removes the site's files not written again (those an earlier
    /// render listed, from files or from the store).
    mutating func whole() throws {
        let previous = try state.allFiles() + state.inherited + site.previousNames()
        try state.reset()
        var files = Set<String>()
        try source.everyConversation { c, change in
            var c = c
            while !files.insert(c.file).inserted { c.file += "_" }
            list(&c)
            let head = head(c)
            let shown = try writePages(c)
            if !shown.isEmpty { try state.show(shown, in: c.id) }  // (none: from files, or no message)
            try state.put(c, change: change, head: head)
        }
        for section in Self.conversationLists { try writeList(section, from: nil, count: try state.count(section)) }
        try writeCalendar()
        try writeParcels(since: nil)
        superseded = previous  // every file of before: those not written again go
        replaced = []
        formerLists = [SiteWriter.manifest] + ChatRender.formerStateFiles
    }
}

extension SiteRender where Source == StoreSource {
    var store: MailStore { source.store }

    /// The pages of what changed after change counter `since` (then `finish`).
    mutating func update(since: Int) throws {
        // the pages that wait for pictures are rendered again with them, from where they waited
        let pictures = source.renderer.pictures
        let waiting = pictures.later ? [:] : try state.picturesWaiting()
        let changed = try store.conversations(changedAfter: waiting.values.reduce(since, min))
            .filter { $0.change > since || waiting[$0.id] != nil }
        let removed = try store.removed(after: since)
        // where each change was: the lists from there to their newest page change
        let lists = Self.conversationLists
        var count = Dictionary(uniqueKeysWithValues: try lists.map { ($0, try state.count($0)) })  // the lists as they were, then as they are
        let countBefore = count
        var reached: [PageWriter.Section: Int] = [:]
        func reach(_ section: PageWriter.Section, newer: Int) {
            let layout = NewestFirstPages(count: count[section] ?? 0, pageSize: render.listPageSize)
            let page = layout.page(ofItem: layout.count - 1 - newer)
            reached[section] = min(reached[section] ?? page, page)
        }
        var before: [String: SiteState.Listed] = [:]
        for id in changed.map(\.id) + removed.conversations {
            guard before[id] == nil, let old = try state.listed(id) else { continue }
            before[id] = old
            reach(old.section, newer: try state.newer(than: id, lastDate: old.lastDate, in: old.section))
        }

        let calendarChanged = try store.calendarChanged(after: since)
        let present = Set(changed.map(\.id))
        for id in removed.conversations where !present.contains(id) {
            if let old = before[id] {
                replaced.append("c/\(old.file).")  // its pages go
                count[old.section]? -= 1
            }
            try state.remove(conversation: id)
        }
        var after: [ConversationSummary] = []
        for row in changed {
            guard var c = try source.summary(row) else { continue }
            if let old = before[row.id] {
                c.file = old.file
            } else {
                while try state.isTaken(file: c.file) { c.file += "_" }
            }
            list(&c)
            if let old = before[row.id] { count[old.section]? -= 1 }
            count[c.section]? += 1
            pictures.leftWaiting = false
            try state.put(c, change: row.change, head: try renderPages(c, since: waiting[row.id] ?? since, old: before[row.id]))
            if pictures.leftWaiting { try state.leavePicturesWaiting(conversation: c.id, since: since) }
            after.append(c)
        }
        if !waiting.isEmpty { try state.picturesMade() }
        try state.keep(counts: count)
        for c in after { reach(c.section, newer: try state.newer(than: c.id, lastDate: c.lastDate, in: c.section)) }
        replaced += removed.messages.map { "m/\(BubbleRenderer.anchor($0))." }

        for section in lists {
            try writeList(section, from: reached[section], count: count[section] ?? 0, countBefore: countBefore[section])
        }
        let due = try state.value("calendar_until").flatMap { Int($0) } ?? 0
        if calendarChanged || render.now >= due { try writeCalendar() }
        let parcelsDue = try state.value("parcels_until").flatMap { Int($0) } ?? 0
        // a parcel's card names its conversation: the cards that name one that came, was renamed
        // or went are made again
        let renamed = after.filter { c in before[c.id].map { $0.title != c.title } ?? false }
        let came = after.filter { before[$0.id] == nil }
        let remaking = try state.parcels(naming: (renamed + came).map(\.id) + removed.conversations.filter { !present.contains($0) })
        let todayWritten = try state.value("today")
        if try store.parcelsChanged(after: since) || !remaking.isEmpty || render.now >= parcelsDue {
            try writeParcels(since: since, remaking: remaking)
        } else if calendarChanged || todayWritten != Self.day(render.now, &clock) {
            try writeToday()
        }
    }

    /// A conversation's pages, and those of its messages: after change counter `since`, of a
    /// conversation the site showed as `old`, the pages from the first message that changed,
    /// moved or went (a new message: the newest page only), unless what every page shows besides
    /// the messages changed, or their number. Returns that (its header, and whether it is a group).
    mutating func renderPages(_ c: ConversationSummary, since: Int, old: SiteState.Listed?) throws -> [UInt8] {
        let pageSize = render.messagesPerPage
        let ids = try store.pageMessageIDs(conversation: c.id)
        let head = head(c)
        var first = 0  // the first message whose place or bubble changed
        if let old, old.head == head {
            let shown = try state.shownMessages(c.id)
            if PageWriter.pageCount(messages: shown.count, pageSize: pageSize) == PageWriter.pageCount(messages: ids.count, pageSize: pageSize) {
                first = min(ids.count, shown.count)
                for k in 0..<first where ids[k].change > since || ChatRender.key(ids[k].id) != shown[k] {
                    first = k
                    break
                }
                if first == ids.count && ids.count == shown.count { return head }  // its pages are as they were
                if first == shown.count, try appendToNewestPage(c, ids: ids, shown: shown.count) {
                    try state.show(ids.map(\.id), in: c.id)
                    return head
                }
            }
        }
        // the documents of the messages that changed are written again, and those of the others kept
        // (all of a conversation new to the site: they link back to its pages)
        let changed = old.map { _ in Set(ids.lazy.filter { $0.change > since }.map(\.id)) }
        let documents = { (id: String) in changed?.contains(id) ?? true }
        let written = try writePages(c, fromPage: first / pageSize + 1, messages: ids.count, documents: documents)
        replaced += written.filter(documents).map { "m/\(BubbleRenderer.anchor($0))." }
        try state.show(ids.map(\.id), in: c.id)
        return head
    }
}

extension SiteRender where Source == StoreSource {
    /// New messages of conversation `c` (`ids`, of which the site shows the first `shown`, all
    /// unchanged), on its newest page with no bubble after theirs: their bubbles put into the
    /// page as it is, not every bubble of the page rendered again. The page is the same bytes as
    /// one rendered whole. False, and nothing written, when they are not, or when the page is
    /// not as the site's state has it (a render killed before it was done, a page changed by
    /// hand, another template): its pages are then rendered as any change's are.
    mutating func appendToNewestPage(_ c: ConversationSummary, ids: [(id: String, change: Int, date: String?)], shown: Int) throws -> Bool {
        let pageSize = render.messagesPerPage
        let count = PageWriter.pageCount(messages: ids.count, pageSize: pageSize)
        let start = (count - 1) * pageSize
        guard shown > start else { return false }
        let epoch = { (date: String?) in date.flatMap { CivilDate.epoch(rfc3339: $0) } ?? Int.min }
        // a page's bubbles are in the order of their time, then of the store's: the new ones go
        // last when none is older than the newest already there
        let newest = ids[start..<shown].map { epoch($0.date) }.max()!
        guard ids[shown...].allSatisfy({ epoch($0.date) >= newest }),
              let (before, after) = pages.conversationPageAround(c, page: count, of: count, clock: &clock) else { return false }
        let name = "c/" + PageWriter.file(c, page: count, of: count)
        guard let page = SiteWriter.read(site.root + "/" + name), page.count >= before.count + after.count,
              page.starts(with: before), page[(page.count - after.count)...].elementsEqual(after) else { return false }
        let onPage = page[before.count..<(page.count - after.count)]
        for (id, _, _) in ids[shown...] where onPage.withUnsafeBufferPointer({ ByteSearch.contains($0, Array(BubbleRenderer.anchor(id).utf8)) }) {
            return false  // on the page already: the run that put it there was killed before its state was kept
        }

        var written: [String] = []
        let added = try source.bubbles(of: c, from: shown, documents: { _ in true }, clock: &clock) { written.append($0) }
        var lastDay = newest == Int.min ? nil : clock.local(newest).days
        var content = Array(page[..<(page.count - after.count)])
        try pages.bubbles(added[...], after: &lastDay, spool: spool, clock: &clock, into: &content)
        try site.write(name, content + after)
        replaced += written.map { "m/\(BubbleRenderer.anchor($0))." }
        return true
    }
}

extension SiteRender {
    /// What the lists show of a conversation, once its file is named.
    mutating func list(_ c: inout ConversationSummary) {
        var item: [UInt8] = []
        pages.item(c, into: &item, clock: &clock)
        c.item = item
    }

    /// What every page of a conversation shows besides its messages: its header, whether it is
    /// a group, and the notices conversation's reports.
    mutating func head(_ c: ConversationSummary) -> [UInt8] {
        pages.header(c) + [c.isGroup ? 1 : 0] + (c.isNotices ? pages.notices(c, clock: &clock) : [])
    }

    /// A conversation's pages from page `first` on, of `messages` messages (by default those the
    /// source gives): those it no longer has go when they are all written. `documents`: whether
    /// a message's documents are written (SiteSource.bubbles). Returns the ids of the messages
    /// on them, as the source gives them.
    mutating func writePages(_ c: ConversationSummary, fromPage first: Int = 1, messages: Int? = nil,
                             documents: (String) -> Bool = { _ in true }) throws -> [String] {
        let pageSize = render.messagesPerPage
        if first == 1 { replaced.append("c/\(c.file).") }
        var ids: [String] = []
        let bubbles = try source.bubbles(of: c, from: (first - 1) * pageSize, documents: documents, clock: &clock) { ids.append($0) }
        try pages.conversation(c, bubbles: bubbles[...], spool: spool, pageSize: pageSize, clock: &clock, messages: messages, fromPage: first)
        return ids
    }

    /// A list of `count` items, `countBefore` at the last run (nil: a whole render): its pages
    /// from page `from` to its newest (none when nil; all when its number of pages changed, as
    /// each page's title counts them, or in a whole render); those it no longer has go.
    mutating func writeList(_ section: PageWriter.Section, from: Int?, count: Int, countBefore: Int? = nil) throws {
        let layout = NewestFirstPages(count: count, pageSize: render.listPageSize)
        let before = countBefore.map { NewestFirstPages(count: $0, pageSize: render.listPageSize).pageCount }
        let first: Int
        if before == nil || before != layout.pageCount {
            first = 1
        } else if let from {
            first = from
        } else {
            return
        }
        if let before, before > layout.pageCount {
            superseded += (layout.pageCount..<before).map { section.rawValue + ".p\($0).html" }
        }
        let items = try Self.pageItems(layout, first...layout.pageCount) { try state.items(section, $0) }
        try pages.conversationList(section, layout, pages: first...layout.pageCount, items: items)
    }

    /// What lists pages `pages` of `layout` from items `read` reads, read at once: a read a page
    /// would step over every newer item again.
    static func pageItems(_ layout: NewestFirstPages, _ pages: ClosedRange<Int>,
                          read: (Range<Int>) throws -> [[UInt8]]) throws -> (Range<Int>, inout [UInt8]) throws -> Void {
        let newest = layout.items(onPage: pages.upperBound).lowerBound
        let items = try read(newest..<layout.items(onPage: pages.lowerBound).upperBound)
        return { range, out in
            for item in items[min(items.count, range.lowerBound - newest)..<min(items.count, range.upperBound - newest)] { out += item }
        }
    }

    /// The calendar's pages and its file (calendar.ics), and when they are due again though
    /// nothing changes (when an event may move between the upcoming and the past ones).
    mutating func writeCalendar() throws {
        let calendar = try source.calendar()
        var until = Int.max
        for t in calendar { until = min(until, EventGroup.upcomingUntil(t.event, now: render.now)) }
        try pages.events(calendar, conversation: link, now: render.now, pageSize: render.listPageSize, clock: &clock)
        try site.write(CalendarFile.name, CalendarFile.bytes(calendar))
        replaced.append("events.")  // its pages that are not written again are no more
        try state.set("calendar_until", String(until))
    }

    /// A conversation's title and page, as the site lists it.
    func link(_ id: String) -> (String, String)? {
        (try? state.listed(id))?.map { ($0.title, "c/" + $0.file + ".html") }
    }

    /// The parcels' pages, the Today page, and when the parcels' pages are due again though
    /// nothing changes (when a parcel's news grows old enough to move it to the earlier ones).
    /// The site's state keeps every parcel's card: after change counter `since`, the cards of the
    /// parcels that changed or went, and of `remaking` (their cards name a conversation renamed,
    /// new or gone), are made again, and of the earlier parcels' pages, numbered from the oldest,
    /// those from the first place that changed to the newest are written (all of them when their
    /// number changes, as each page's title counts them). Without `since`, every card and page.
    mutating func writeParcels(since: Int?, remaking: [String] = []) throws {
        let threshold = PageWriter.earlierNewsBefore(now: render.now)
        // the earlier parcels as the pages show them: the date they end at, and how many
        let shown = try since.flatMap { _ in try state.value("earlier_parcels_before") }.map { (before: $0, count: try state.cardCount(before: $0)) }
        var reach = Int.max  // the first earlier parcel, from the oldest, whose page changes
        func reaching(_ parcel: String, lastDate: String, before: String) throws {
            if lastDate < before { reach = min(reach, try state.cardsOlder(than: parcel, lastDate: lastDate)) }
        }
        var made: [(id: String, lastDate: String)] = []
        func make(_ row: MailStore.ParcelRow) throws {
            guard let (item, conversation) = try parcelItem(row) else { return }
            try state.keep(card: item.card, parcel: row.id, lastDate: row.facts.lastDate, conversation: conversation)
            made.append((row.id, row.facts.lastDate))
        }
        if let since, let shown {
            var changed: [MailStore.ParcelRow] = []
            try source.parcelRows(.changedAfter(since)) { changed.append($0) }
            let gone = try source.removedParcels(after: since)
            let again = Set(remaking).subtracting(changed.map(\.id) + gone)
            for id in changed.map(\.id) + gone + again {  // where they were
                if let lastDate = try state.cardDate(parcel: id) { try reaching(id, lastDate: lastDate, before: shown.before) }
            }
            for id in gone { try state.forgetCard(parcel: id) }
            for row in changed { try make(row) }
            try source.parcelRows(.ids(Array(again))) { try make($0) }
            for (id, lastDate) in made { try reaching(id, lastDate: lastDate, before: threshold) }  // where they are
            // parcels whose news grew old join the earlier ones at their newest end
            if shown.before < threshold { reach = min(reach, try state.cardCount(before: shown.before)) }
            if shown.before > threshold { reach = 0 }
        } else {
            try source.parcelRows(.all) { try make($0) }
        }

        let count = try state.cardCount(before: threshold)
        let layout = NewestFirstPages(count: count, pageSize: render.listPageSize)
        let pagesBefore = shown.map { NewestFirstPages(count: $0.count, pageSize: render.listPageSize).pageCount }
        let first = pagesBefore != layout.pageCount ? 1 : reach == Int.max ? nil : layout.page(ofItem: reach)
        if let first {
            let cards = try Self.pageItems(layout, first...layout.pageCount) { try state.cards(before: threshold, $0) }
            try pages.earlierParcels(layout, pages: first...layout.pageCount, items: cards)
        }
        if let pagesBefore, pagesBefore > layout.pageCount {
            superseded += (layout.pageCount..<pagesBefore).map { PageWriter.Section.earlierParcels.rawValue + ".p\($0).html" }
        }
        try state.set("earlier_parcels_before", threshold)

        var recent: [PageWriter.ParcelItem] = []
        var until = Int.max
        try source.parcelRows(.newsSince(threshold)) { row in
            if let item = try kept(row) { recent.append(item) }
            if let last = CivilDate.epoch(rfc3339: row.facts.lastDate) { until = min(until, last + ParcelGroup.openDays * 86_400 + 1) }
        }
        try pages.recentParcels(recent, earlierCount: count, pageSize: render.listPageSize)
        replaced.append("parcels.")
        try state.set("parcels_until", String(until))
        try writeToday()
    }

    /// A parcel's item with the card the site's state keeps of it (made when it has none).
    func kept(_ row: MailStore.ParcelRow) throws -> PageWriter.ParcelItem? {
        if let card = try state.card(parcel: row.id) { return PageWriter.ParcelItem(id: row.id, facts: row.facts, card: card) }
        return try parcelItem(row)?.0
    }

    /// A parcel's item, its card made from its record, and the conversation the card names.
    func parcelItem(_ row: MailStore.ParcelRow) throws -> (PageWriter.ParcelItem, conversation: String?)? {
        guard let p = try source.parcelRecord(row.id) else { return nil }
        return (pages.parcelItem(p, conversation: link), p["conversation_id"]?.stringValue)
    }

    /// Today's and tomorrow's events, pickups and deliveries: written at every run, as the day moves.
    mutating func writeToday() throws {
        let today = clock.local(render.now).days
        var parcels: [PageWriter.ParcelItem] = []
        try source.parcelRows(.dueOn([today, today + 1].map(CivilDate.dateText(days:)))) { row in
            if let item = try kept(row) { parcels.append(item) }
        }
        let calendar = try source.calendar()
        try pages.today(calendar: calendar, eventConversation: link, parcels: parcels, now: render.now, clock: &clock)
        try state.set("today", Self.day(render.now, &clock))
    }

    /// The date of `now` in the site's zone: the Today page is written again when it changes.
    static func day(_ now: Int, _ clock: inout LocalClock) -> String { CivilDate.dateText(days: clock.local(now).days) }

    /// After `whole` or `update`: waits for the pages to be written; removes the files this run
    /// replaced and did not write again, and lists those it wrote.
    mutating func finish() throws {
        try site.write("style.css", render.templates.stylesheet)
        let written = Set(try site.finishWriting())
        var gone: [String] = superseded.filter { !written.contains($0) }
        for prefix in Set(replaced) { gone += try state.files(startingWith: prefix).filter { !written.contains($0) } }
        for name in gone { site.remove(name) }
        try state.remove(files: gone)
        try state.add(files: written)
        for name in formerLists { unlink(site.root + "/" + name) }
        site.removeScratchFolder()
    }
}
