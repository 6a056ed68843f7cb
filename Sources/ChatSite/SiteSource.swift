import CivilTime
import Events
import JSONLines
import MailStore

/// Where a site's conversations, their bubbles, the calendar and the parcels come from: a
/// mailstore database (StoreSource) or conversation-group's output and the messages
/// (FileSource). SiteRender makes the same pages of either.
protocol SiteSource {
    /// Every conversation, in conversation-group's order (newest first), with the change counter
    /// it was last changed at (0 from files).
    func everyConversation(_ body: (ConversationSummary, _ change: Int) throws -> Void) throws
    /// The bubbles of conversation `c`'s messages from the `from`th on, in the spool, in the
    /// order its pages show them, with the documents of the messages `documents` says (a render
    /// of what changed writes those of the messages that changed; from files every bubble is
    /// rendered as it is read, documents and all); `each` is given each of those messages' ids
    /// (none from files: a site rendered from files does not remember them).
    func bubbles(of c: ConversationSummary, from: Int, documents: (String) -> Bool, clock: inout LocalClock,
                 _ each: (String) -> Void) throws -> [ChatRender.Bubble]
    /// The events the mail adds up to, each naming its conversation by its id.
    func calendar() throws -> [EventStore.Tracked]
    /// The parcels `selection` selects without their records, in parcel-group's order.
    func parcelRows(_ selection: MailStore.ParcelSelection, _ body: (MailStore.ParcelRow) throws -> Void) throws
    /// The parcels removed after change counter `after` (none from files: their site is rendered whole).
    func removedParcels(after: Int) throws -> [String]
    /// parcel-group's record of parcel `id`.
    func parcelRecord(_ id: String) throws -> JSONValue?
}

/// A mailstore database as a site's source: each conversation's bubbles rendered when its pages are.
struct StoreSource: SiteSource {
    let store: MailStore
    let renderer: BubbleRenderer
    let spool: Spool

    func everyConversation(_ body: (ConversationSummary, _ change: Int) throws -> Void) throws {
        try store.everyConversation { row in
            if let c = try summary(row) { try body(c, row.change) }
        }
    }

    /// A conversation read from the store.
    func summary(_ row: MailStore.ConversationRow) throws -> ConversationSummary? {
        guard let record = try store.conversationRecord(row.id) else { return nil }
        var c = try ConversationSummary(try JSONRecord(record), withMessageIDs: false, words: renderer.words)
        c.isList = row.isList
        c.lastFromMe = row.lastFromMe
        c.lastEpoch = CivilDate.epoch(rfc3339: c.lastDate) ?? Int.min
        return c
    }

    /// Messages whose pictures are not made yet wait until the others are rendered: one
    /// mail-thumbnail makes those of all of them (unless they are made after the pages).
    func bubbles(of c: ConversationSummary, from: Int, documents: (String) -> Bool, clock: inout LocalClock,
                 _ each: (String) -> Void) throws -> [ChatRender.Bubble] {
        var bubbles: [ChatRender.Bubble] = []
        var waiting: [(record: JSONRecord, facts: MailStore.PageFacts, order: Int32)] = []
        var order: Int32 = 0
        func render(_ record: JSONRecord, _ facts: MailStore.PageFacts, order: Int32, clock: inout LocalClock) throws {
            let id = record.string("id") ?? record.string("message_id") ?? ""
            let epoch = record.string("date").flatMap { CivilDate.epoch(rfc3339: $0) }
            let html = try renderer.bubble(record, id: id, epoch: epoch, unread: facts.unread, fromMe: facts.fromMe,
                                           sending: facts.sendState.map { ($0, facts.sendError) },
                                           in: c, conversationFile: c.file, documents: documents(id), clock: &clock)
            bubbles.append(ChatRender.Bubble(conversation: 0, order: order, epoch: epoch ?? Int.min,
                                             offset: try spool.append(html), length: html.count))
        }
        try store.pageMessages(conversation: c.id, from: from) { record, facts in
            if !renderer.pictures.later && renderer.pictures.needsMaking(BubbleRenderer.shownAttachments(record)) {
                waiting.append((record, facts, order))
            } else {
                try render(record, facts, order: order, clock: &clock)
            }
            order += 1
            each(record.string("id") ?? record.string("message_id") ?? "")
        }
        if !waiting.isEmpty {
            renderer.pictures.make(waiting.flatMap { BubbleRenderer.shownAttachments($0.record) })
            for w in waiting { try render(w.record, w.facts, order: w.order, clock: &clock) }
        }
        bubbles.sort { ($0.epoch, $0.order) < ($1.epoch, $1.order) }
        return bubbles
    }

    func calendar() throws -> [EventStore.Tracked] { try store.calendar() }
    func parcelRows(_ selection: MailStore.ParcelSelection, _ body: (MailStore.ParcelRow) throws -> Void) throws {
        try store.parcelRows(selection, body)
    }
    func removedParcels(after: Int) throws -> [String] { try store.removed(after: after).parcels }
    func parcelRecord(_ id: String) throws -> JSONValue? { try store.parcelRecord(id).map { try JSONValue.parse($0) } }
}
