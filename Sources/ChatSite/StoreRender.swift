#if canImport(Glibc)
import Glibc
#endif
import CivilTime
import JSONLines
import MailStore
import UnixFilter

/// chat-render --store: the site of a mailstore database. The site remembers the database and
/// the change counter it last rendered (in `.mailstore-render`); the pages of the conversations
/// changed since then are rendered again, the lists always, and every other page is left as it
/// is. Another database, zone, page size or look renders everything.
extension ChatRender {
    static let renderState = ".mailstore-render"
    /// Raised when the same records make other pages (the site of an older chat-render is then
    /// rendered whole, not left half in the old way): 2, a message's HTML in a file of its own;
    /// 3, hard-wrapped text flowing.
    static let pagesVersion = "3"

    public func run(store: MailStore, _ run: FilterRun) throws {
        guard var clock = LocalClock(zone: zone) else { throw Exit(.usage) }
        let site = try Self.endingOnWriteError(run) { try SiteWriter(root: out, folders: ["c", "m"]) }
        let spool = try Self.endingOnWriteError(run) { try Spool(directory: out) }
        defer { spool.close() }
        let renderer = BubbleRenderer(templates: templates, remoteImages: remoteImages, site: site)
        var pages = PageWriter(templates: templates, site: site, remoteImages: remoteImages, bubbles: renderer)

        try store.snapshot {
            let settings = [Self.pagesVersion, try store.storeID(), zone, String(remoteImages), String(messagesPerPage), String(listPageSize),
                            templates.fingerprint].joined(separator: " ")
            let counter = try store.changeCounter()
            let since = Self.lastRender(in: out, settings: settings)

            // what the lists show of each conversation: from the cache when it has not changed
            let cached = ListCache.load(folder: out, settings: settings)
            var lists = ListCache()
            var conversations: [ConversationSummary] = []
            var changes: [Int] = []
            var files = Set<String>()
            var index: [String: Int] = [:]
            /// A conversation read from the store, with its item rendered.
            func summary(_ row: MailStore.ConversationRow, file: String? = nil) throws -> ConversationSummary? {
                guard let record = try store.conversationRecord(row.id) else { return nil }
                var c = try ConversationSummary(try JSONRecord(record), withMessageIDs: false)
                if let file { c.file = file } else { while !files.insert(c.file).inserted { c.file += "_" } }
                c.isList = row.isList
                c.lastFromMe = row.lastFromMe
                c.lastEpoch = CivilDate.epoch(rfc3339: c.lastDate) ?? Int.min
                var item: [UInt8] = []
                pages.item(c, into: &item, clock: &clock)
                c.item = item
                c.parcelCards = pages.parcelCards(c)
                return c
            }
            var rows: [MailStore.ConversationRow] = []
            try store.everyConversation { row in
                var c: ConversationSummary
                if let hit = cached.entries[row.id], hit.change == row.change {
                    c = hit.summary
                    files.insert(c.file)
                } else {
                    guard let fresh = try summary(row) else { return }
                    c = fresh
                }
                rows.append(row)
                lists.entries[row.id] = ListCache.Entry(change: row.change, summary: c)
                index[c.id] = conversations.count
                conversations.append(c)
                changes.append(row.change)
            }

            var rendered = Set<String>()  // conversations' file names
            var renderedMessages = Set<String>()  // anchors
            try Self.endingOnWriteError(run) {
                for (k, listed) in conversations.enumerated() where since.map({ changes[k] > $0 }) ?? true {
                    // the cache keeps what the lists show; a page shows the participants too
                    guard let c = listed.participants.isEmpty ? try summary(rows[k], file: listed.file) : listed else { continue }
                    var bubbles: [Bubble] = []
                    try store.pageMessages(conversation: c.id) { record, unread, fromMe in
                        let id = record.string("id") ?? record.string("message_id") ?? ""
                        let epoch = record.string("date").flatMap { CivilDate.epoch(rfc3339: $0) }
                        let html = try renderer.bubble(record, id: id, epoch: epoch, unread: unread, fromMe: fromMe,
                                                       group: c.isGroup, conversationFile: c.file, clock: &clock)
                        bubbles.append(Bubble(conversation: Int32(k), order: Int32(bubbles.count), epoch: epoch ?? Int.min,
                                              offset: try spool.append(html), length: html.count))
                        renderedMessages.insert(BubbleRenderer.anchor(id))
                    }
                    try spool.flush()
                    bubbles.sort { ($0.epoch, $0.order) < ($1.epoch, $1.order) }
                    try pages.conversation(c, bubbles: bubbles[...], spool: spool, pageSize: messagesPerPage, clock: &clock)
                    rendered.insert(c.file)
                }
                if let since {
                    let fileNames = { (names: Set<String>) in Set(names.map(FileName.init)) }
                    let (files, rendered) = (fileNames(files), fileNames(rendered))
                    let gone = fileNames(renderedMessages.union(try store.removed(after: since).messages.map(BubbleRenderer.anchor)))
                    site.keep(site.previousNames().filter { name in
                        let (folder, base) = Self.owner(of: name)
                        switch folder {
                        case "c": return files.contains(FileName(base)) && !rendered.contains(FileName(base))
                        case "m": return !gone.contains(FileName(base))
                        default: return false  // the lists and the stylesheet are written every time
                        }
                    })
                }
                var calendar = try store.calendar()
                for k in calendar.indices { calendar[k].conversationID = calendar[k].conversationID.flatMap { index[$0] }.map(String.init) }
                try pages.lists(conversations, calendar: calendar, now: now, pageSize: listPageSize, clock: &clock)
                try site.write("style.css", templates.stylesheet)
                try site.finish()
                try lists.save(folder: out, settings: settings, order: conversations.map(\.id))
                try SiteWriter.store(out + "/" + Self.renderState, Array((settings + "\n\(counter)\n").utf8))
            }
        }
    }

    /// The change counter the site was last rendered at, when it was rendered from the same
    /// database with the same settings.
    static func lastRender(in folder: String, settings: String) -> Int? {
        guard let bytes = SiteWriter.read(folder + "/" + renderState) else { return nil }
        let lines = String(decoding: bytes, as: UTF8.self).split(separator: "\n")
        guard lines.count == 2, lines[0] == settings else { return nil }
        return Int(lines[1])
    }

    /// `c/ID.p2.html` is conversation ID's, `m/ANCHOR.html` and `m/ANCHOR.frame.html` message
    /// ANCHOR's; other files are nobody's.
    static func owner(of name: ArraySlice<UInt8>) -> (folder: Character?, base: ArraySlice<UInt8>) {
        let start = name.startIndex
        guard name.count > 2, name[start + 1] == UInt8(ascii: "/") else { return (nil, []) }
        return (Character(Unicode.Scalar(name[start])), name[(start + 2)...].prefix { $0 != UInt8(ascii: ".") })
    }
}
