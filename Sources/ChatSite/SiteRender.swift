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

/// chat-render --store: the site of a mailstore database. The site remembers the database, the
/// change counter it last rendered and what its lists hold (SiteState); the pages of the
/// conversations changed since then are rendered again, and of the lists only the pages the
/// change reaches, so that a delivery costs the same in a mailbox of any size. Another
/// database, zone, page size or look renders everything.
extension ChatRender {
    /// Raised when the same records make other pages (the site of an older chat-render is then
    /// rendered whole, not left half in the old way): 2, a message's HTML in a file of its own;
    /// 3, hard-wrapped text flowing; 4, the lists numbered from their oldest page; 5, parcels by
    /// their status and a Today page.
    static let pagesVersion = "5"
    /// What sites of earlier versions kept beside their pages.
    static let formerStateFiles = [".mailstore-render", ".mailstore-lists"]

    /// Renders the database at `path`, taking turns with the other runs on the site
    /// (SiteTurns): without `waiting`, a run that finds another rendering leaves the site due
    /// to it and returns at once; with `background`, its turn goes on in a process of its own
    /// (SiteTurns.leaveForBackground). Returns whether this run rendered.
    @discardableResult
    public func run(storeAt path: String, waiting: Bool, background: Bool = false, _ run: FilterRun) throws -> Bool {
        try Self.endingOnWriteError(run) {
            try SiteTurns.take(site: out, waiting: waiting, taken: { if background { try SiteTurns.leaveForBackground(site: out) } }) {
                let database: MailStore
                do { database = try MailStore(path: path, access: .read) } catch let e as StoreError {
                    run.diagnostics.error(e.description)
                    throw Exit(e.status)
                }
                try self.run(store: database, run)
            }
        }
    }

    /// The reply prefixes, among the settings a site is rendered with: they decide which
    /// bubbles show their subject.
    static func fingerprint(_ prefixes: SubjectPrefixes) -> String {
        SHA256.hex(Array(prefixes.replies.joined(separator: "\n").utf8))
    }

    public func run(store: MailStore, _ run: FilterRun) throws {
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
        var renderer = BubbleRenderer(templates: templates, remoteImages: remoteImages, site: site, subjectPrefixes: subjectPrefixes)
        renderer.parcelOf = { (try? store.parcel(of: $0)) ?? nil }
        var job = SiteRender(source: StoreSource(store: store, renderer: renderer, spool: spool), state: state, site: site, spool: spool,
                             clock: clock, render: self, renderer: renderer)
        try Self.endingOnWriteError(run) {
            try state.db.transaction {
                let (settings, counter) = try store.snapshot {
                    let settings = [Self.pagesVersion, try store.storeID(), zone, String(remoteImages), String(messagesPerPage), String(listPageSize),
                                    templates.fingerprint, Self.fingerprint(subjectPrefixes)].joined(separator: " ")
                    let counter = try store.changeCounter()
                    if let since = try state.lastRender(settings: settings) {
                        try job.update(since: since)
                    } else {
                        try job.whole()
                    }
                    return (settings, counter)
                }
                try store.close()  // its mapped pages let go of while the last pages are written
                try job.finish()
                try state.set("settings", settings)
                try state.set("counter", String(counter))
            }
        }
        state.db.close()
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
        try writeParcels(keepingCards: false)
        superseded = previous  // every file of before: those not written again go
        replaced = []
        formerLists = [SiteWriter.manifest] + ChatRender.formerStateFiles
    }
}

extension SiteRender where Source == StoreSource {
    var store: MailStore { source.store }

    /// The pages of what changed after change counter `since` (then `finish`).
    mutating func update(since: Int) throws {
        let changed = try store.conversations(changedAfter: since)
        let removed = try store.removed(after: since)
        // where each change was: the lists from there to their newest page change
        let lists = Self.conversationLists
        func counts() throws -> [PageWriter.Section: Int] { Dictionary(uniqueKeysWithValues: try lists.map { ($0, try state.count($0)) }) }
        var count = try counts()  // the lists as they were, then as they are
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
            if let old = before[id] { replaced.append("c/\(old.file).") }  // its pages go
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
            try state.put(c, change: row.change, head: try renderPages(c, since: since, old: before[row.id]))
            after.append(c)
        }
        count = try counts()
        for c in after { reach(c.section, newer: try state.newer(than: c.id, lastDate: c.lastDate, in: c.section)) }
        replaced += removed.messages.map { "m/\(BubbleRenderer.anchor($0))." }

        for section in lists {
            try writeList(section, from: reached[section], count: count[section] ?? 0, countBefore: countBefore[section])
        }
        let due = try state.value("calendar_until").flatMap { Int($0) } ?? 0
        if calendarChanged || render.now >= due { try writeCalendar() }
        let parcelsDue = try state.value("parcels_until").flatMap { Int($0) } ?? 0
        // a parcel's card names its conversation: one whose title changed is named again, and the
        // cards kept of one that came, was renamed or went are made again
        let renamed = after.filter { c in before[c.id].map { $0.title != c.title } ?? false }
        let came = after.filter { before[$0.id] == nil }
        try state.forgetCards(naming: (renamed + came).map(\.id) + removed.conversations.filter { !present.contains($0) })
        let todayWritten = try state.value("today")
        if try store.parcelsChanged(after: since) || !renamed.isEmpty || render.now >= parcelsDue {
            try writeParcels(keepingCards: true)
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
            }
        }
        let written = try writePages(c, fromPage: first / pageSize + 1, messages: ids.count)
        replaced += written.map { "m/\(BubbleRenderer.anchor($0))." }
        try state.show(ids.map(\.id), in: c.id)
        return head
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
    /// source gives): those it no longer has go when they are all written. Returns the ids of
    /// the messages on them, as the source gives them.
    mutating func writePages(_ c: ConversationSummary, fromPage first: Int = 1, messages: Int? = nil) throws -> [String] {
        let pageSize = render.messagesPerPage
        if first == 1 { replaced.append("c/\(c.file).") }
        var ids: [String] = []
        let bubbles = try source.bubbles(of: c, from: (first - 1) * pageSize, clock: &clock) { ids.append($0) }
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
        let items = { (range: Range<Int>, out: inout [UInt8]) in try state.items(section, range, into: &out) }
        try pages.conversationList(section, layout, pages: first...layout.pageCount, items: items)
    }

    /// The calendar's pages, and when they are due again though nothing changes (when an
    /// upcoming event ends; at every run while a repeating event is on them).
    mutating func writeCalendar() throws {
        let calendar = try source.calendar()
        var until = Int.max
        for t in calendar {
            if t.event.recurrence != nil && t.event.recurrenceID == nil { until = 0; break }
            if EventGroup.isUpcoming(t.event, now: render.now), let end = EventGroup.end(of: t.event) { until = min(until, end + 1) }
        }
        try pages.events(calendar, conversation: link, now: render.now, pageSize: render.listPageSize, clock: &clock)
        replaced.append("events.")  // its pages that are not written again are no more
        try state.set("calendar_until", String(until))
    }

    /// A conversation's title and page, as the site lists it.
    func link(_ id: String) -> (String, String)? {
        (try? state.listed(id))?.map { ($0.title, "c/" + $0.file + ".html") }
    }

    /// The parcels' pages, the Today page, and when the parcels' pages are due again though
    /// nothing changes (when a parcel's news grows old enough to move it to the earlier ones).
    /// `keepingCards`: each parcel's card is taken from the site's state while its parcel is as
    /// it was, and kept there when it is made (a whole render makes them all, and keeps none).
    mutating func writeParcels(keepingCards: Bool) throws {
        var kept = keepingCards ? try state.cards() : [:]
        var parcels: [PageWriter.ParcelItem] = []
        try source.parcelRows { row in
            if let known = kept.removeValue(forKey: row.id), known.change == row.change {
                parcels.append(PageWriter.ParcelItem(id: row.id, facts: row.facts, card: known.card))
            } else if let (item, conversation) = try parcelItem(row) {
                if keepingCards { try state.keep(card: item.card, parcel: row.id, change: row.change, conversation: conversation) }
                parcels.append(item)
            }
        }
        try state.forgetCards(ofParcels: kept.keys)  // parcels gone
        try pages.parcels(parcels, now: render.now, pageSize: render.listPageSize)
        replaced.append("parcels.")
        var until = Int.max
        for p in parcels {
            guard let last = CivilDate.epoch(rfc3339: p.facts.lastDate) else { continue }
            let moves = last + ParcelGroup.openDays * 86_400 + 1
            if moves > render.now { until = min(until, moves) }
        }
        try state.set("parcels_until", String(until))
        try writeToday(parcels)
    }

    /// A parcel's item, its card made from its record, and the conversation the card names.
    func parcelItem(_ row: MailStore.ParcelRow) throws -> (PageWriter.ParcelItem, conversation: String?)? {
        guard let p = try source.parcelRecord(row.id) else { return nil }
        return (pages.parcelItem(p, conversation: link), p["conversation_id"]?.stringValue)
    }

    /// Today's and tomorrow's events, pickups and deliveries: written at every run, as the day moves.
    mutating func writeToday(_ known: [PageWriter.ParcelItem]? = nil) throws {
        var parcels = known ?? []
        if known == nil {
            var open = ParcelGroup()
            open.openOnly = true
            open.now = render.now
            try source.parcelRows { row in
                if open.keeps(row.facts), let (item, _) = try parcelItem(row) { parcels.append(item) }
            }
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
