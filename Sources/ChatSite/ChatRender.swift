#if canImport(Glibc)
import Glibc
#endif
import CivilTime
import Conversations
import Events
import Hashing
import JSONLines
import MailStore
import MailSubject
import Parcels
import UnixFilter

/// chat-render's run: conversation-group's conversations and the messages they hold in, a
/// static site out, its pages made by SiteRender as from the store. Messages stream
/// (FileSource): each one's bubble is rendered as it is read and spooled to a scratch file, and
/// a page is put together from the spool once every message is read; memory keeps a few
/// numbers per message and a summary per conversation.
public struct ChatRender {
    public var conversationsPath = ""
    public var out = "site"
    public var zone = "UTC"
    public var now = Int(Glibc.time(nil))
    public var remoteImages = false
    public var templates = SiteTemplates.builtIn
    /// The words the pages show, in their language (--lang, or the locale's).
    public var words = SiteWords.english
    /// Whether `templates` show `words` already.
    private var localized = false
    /// Conversations on one page of a list, messages on one page of a conversation.
    public var listPageSize = 200
    public var messagesPerPage = 500
    /// parcel-group's records of the same mail: the cards show each parcel's latest status.
    /// Without them the parcels are gathered from the messages, and a card shows its mail's.
    public var parcelsPath: String?
    /// From the store, pages first: pictures not made yet are made by a render after the pages,
    /// in a process of its own (a delivery's render; see SitePictures.later).
    public var picturesAfterPages = false

    public init() {}

    struct MissingField: Error, CustomStringConvertible {
        var name: String
        var description: String { "the record has no \(name)" }
    }

    struct NotInConversation: Error, CustomStringConvertible {
        var id: String, conversations: String
        var description: String { "message \(id) is in no conversation of \(conversations)" }
    }

    /// One bubble in the spool.
    struct Bubble {
        var conversation: Int32
        var order: Int32  // input order, for messages of the same time
        var epoch: Int
        var offset: Int
        var length: Int
    }

    /// The run with the templates in the words' language.
    func localizing() -> ChatRender? {
        guard !localized else { return nil }
        var render = self
        render.templates = templates.localized(words)
        render.localized = true
        return render
    }

    public func run(_ run: FilterRun) throws {
        if let render = localizing() { return try render.run(run) }
        let subjectPrefixes = try SubjectPrefixes.load(run.diagnostics)
        guard var clock = LocalClock(zone: zone) else { throw Exit(.usage) }
        let site = try Self.endingOnWriteError(run) { try SiteWriter(root: out, folders: ["c", "m"]) }
        // these pages are not a database's any more: the files it rendered are the last run's
        site.forgetting(SiteState.forget(folder: out))
        for name in Self.formerStateFiles { unlink(out + "/" + name) }
        let spool = try Self.endingOnWriteError(run) { try Spool(directory: out) }
        defer { spool.close() }
        let renderer = BubbleRenderer(templates: templates, words: words, remoteImages: remoteImages, site: site, subjectPrefixes: subjectPrefixes)
        renderer.pictures.report = { run.diagnostics.note($0) }
        let source = try FileSource(reading: self, renderer: renderer, spool: spool, clock: &clock, run)
        let state: SiteState
        do { state = try SiteState() } catch {
            run.diagnostics.error("a temporary database: \(error)")
            throw Exit(.ioError)
        }
        var job = SiteRender(source: source, state: state, site: site, spool: spool, clock: clock, render: self, renderer: renderer)
        try Self.endingOnWriteError(run) {
            try state.db.transaction { try job.whole() }
            try site.write("style.css", templates.stylesheet)
            try site.finish()
        }
        renderer.pictures.finish(sweep: true)
        state.db.close()
    }

    /// Runs `body`; a file it could not write is reported and ends the run with exit 74, a
    /// folder refused with exit 73.
    static func endingOnWriteError<T>(_ run: FilterRun, _ body: () throws -> T) throws -> T {
        do {
            return try body()
        } catch let e as SiteWriter.WriteError {
            run.diagnostics.error(e.description)
            throw Exit(e.refusal == nil ? .ioError : .cannotCreate)
        }
    }

    /// A message id's key in the lookup (64 bits: a million ids fit in a few megabytes, and
    /// two that collide are astronomically unlikely).
    static func key(_ id: String) -> UInt64 { TextFacts.fnv1a(id) }

    func readConversations(_ run: FilterRun) throws -> [ConversationSummary] {
        var files = Set<String>()
        return try Self.readLines(conversationsPath, run) { line in
            var c = try ConversationSummary(try JSONRecord(line), words: words)
            // two ids that make the same file name (a hashed one, in theory) get a suffix
            while !files.insert(c.file).inserted { c.file += "_" }
            return c
        }
    }

    /// Each line of the file at `path` made into a value; a line that cannot be is reported with
    /// its place and counted, as a filter counts a record it skips.
    static func readLines<T>(_ path: String, _ run: FilterRun, _ make: ([UInt8]) throws -> T) throws -> [T] {
        let input: Input
        do { input = try Input.open(path) } catch {
            run.diagnostics.error(error.description, file: path)
            throw Exit(error.status)
        }
        defer { input.close() }
        var all: [T] = []
        try forEachLine(of: input, in: run) { l in
            if l.bytes.isEmpty { return true }
            do {
                all.append(try make(Array(l.bytes)))
            } catch {
                run.diagnostics.error("\(error)", file: input.name, line: l.number)
                run.diagnostics.countSkipped()
                run.raise(.someRecordsFailed)
            }
            return true
        }
        return all
    }
}

/// conversation-group's conversations and the messages they hold as a site's source. The
/// messages stream: each one's bubble is rendered as it is read and spooled, and its events and
/// parcels noted; the calendar is then derived as event-group and the store derive it, and the
/// parcels as parcel-group does, unless parcel-group's records are given (--parcels).
final class FileSource: SiteSource {
    private var conversations: [ConversationSummary]
    /// Each conversation's place in `conversations`.
    private var byID: [String: Int32] = [:]
    /// Sorted by conversation, then as its pages show them.
    private var bubbles: [ChatRender.Bubble] = []
    /// Each conversation's bubbles in `bubbles`.
    private var bubbleRanges: [Range<Int>]
    private var events: [EventStore.Tracked] = []
    private var parcels: [MailStore.ParcelRow] = []
    private var parcelRecords: [String: JSONValue] = [:]
    /// The bytes of the records that may wait for their pictures at once.
    static let waitingLimit = 64 << 20

    init(reading render: ChatRender, renderer: BubbleRenderer, spool: Spool, clock: inout LocalClock, _ run: FilterRun) throws {
        conversations = try render.readConversations(run)
        bubbleRanges = Array(repeating: 0..<0, count: conversations.count)
        // the conversation each message and report is listed in
        var byMessage: [UInt64: Int32] = [:]
        for (k, c) in conversations.enumerated() {
            for id in c.messageIDs + c.reports.compactMap(\.messageID) { byMessage[ChatRender.key(id)] = Int32(k) }
            byID[c.id] = Int32(k)
            conversations[k].messageIDs = []
        }
        var seen = Set<UInt64>()
        var eventMail: [EventMail] = []
        var renderer = renderer
        // parcel-group's records: each card of a message shows its parcel's latest status
        let known = try render.parcelsPath.map { path in
            try ChatRender.readLines(path, run) { line in
                let v = try JSONValue.parse(line)
                guard v["parcel_id"]?.stringValue != nil else { throw ChatRender.MissingField(name: "parcel_id (is it parcel-group's output?)") }
                return v
            }
        }
        if let known {
            for p in known {
                let id = p["parcel_id"]?.stringValue ?? ""
                parcels.append(MailStore.ParcelRow(id: id, change: 0, facts: ParcelGroup.Facts(record: p)))
                parcelRecords[id] = p
            }
            renderer.parcelOf = ParcelRecords(known).parcel(of:)
        }
        var observations: [ParcelGroup.Observation] = []
        // messages whose pictures are not made yet wait (up to `waitingLimit` bytes of them), so
        // that one mail-thumbnail makes the pictures of all
        var waiting: [(record: JSONRecord, id: String, conversation: Int32, order: Int32)] = []
        var waitingBytes = 0
        var order: Int32 = 0
        func renderBubble(_ record: JSONRecord, id: String, conversation k: Int32, order: Int32) throws {
            let c = Int(k)
            let epoch = record.string("date").flatMap { CivilDate.epoch(rfc3339: $0) }
            // a page or the scratch file that cannot be written ends the run, as a disk error, not
            // as a fault of this record
            let (html, offset) = try ChatRender.endingOnWriteError(run) {
                let unread = record.value("labels")?.arrayValue?.contains(.string("UNREAD")) == true
                let html = try renderer.bubble(record, id: id, epoch: epoch, unread: unread, fromMe: record.value("from_me") == .bool(true),
                                               in: conversations[c], conversationFile: conversations[c].file, clock: &clock)
                return (html, try spool.append(html))
            }
            bubbles.append(ChatRender.Bubble(conversation: k, order: order, epoch: epoch ?? Int.min, offset: offset, length: html.count))
        }
        func renderWaiting() throws {
            guard !waiting.isEmpty else { return }
            renderer.pictures.make(waiting.flatMap { BubbleRenderer.shownAttachments($0.record) })
            for w in waiting { try renderBubble(w.record, id: w.id, conversation: w.conversation, order: w.order) }
            waiting = []
            waitingBytes = 0
        }

        try filterRecords(run, progressNoun: "messages") { record in
            guard let id = record.string("id") ?? record.string("message_id") else { throw ChatRender.MissingField(name: "id") }
            let key = ChatRender.key(id)
            let role = StoredConversation.role(of: record)
            // a report is in the conversation that lists it; a draft in none, but the store keeps
            // it with its participants
            let k = role == "draft" ? record.string("participant_hash").flatMap { byID[$0] } : byMessage[key]
            if role == nil && k == nil { throw ChatRender.NotInConversation(id: id, conversations: render.conversationsPath) }
            guard seen.insert(key).inserted else { return nil }  // the same message again (Takeout's copies)
            let date = record.string("date")
            if role == nil, let k {  // a message: its bubble (a draft or a report is no message of a conversation)
                let epoch = date.flatMap { CivilDate.epoch(rfc3339: $0) }
                let fromMe = record.value("from_me") == .bool(true)
                let c = Int(k)
                if record.string("mail_kind") == "list" { conversations[c].isList = true }
                if let epoch, epoch >= conversations[c].lastEpoch {
                    conversations[c].lastEpoch = epoch
                    conversations[c].lastFromMe = fromMe
                }
                if renderer.pictures.needsMaking(BubbleRenderer.shownAttachments(record)) {
                    waiting.append((record, id, k, order))
                    waitingBytes += record.bytes.count
                    if waitingBytes > Self.waitingLimit { try renderWaiting() }
                } else {
                    try renderBubble(record, id: id, conversation: k, order: order)
                }
                order &+= 1
            }
            // every record's parcels and events, a report's and a draft's too, as parcel-group,
            // event-group and the store have them
            let conversation = k.map { conversations[Int($0)].id }
            if known == nil {
                for s in record.value("shipments")?.arrayValue ?? [] {
                    if let o = ParcelGroup.observation(s, messageID: id, date: date ?? "", conversationID: conversation ?? record.string("participant_hash"),
                                                       order: observations.count) { observations.append(o) }
                }
            }
            if let events = record.value("events")?.arrayValue, !events.isEmpty {
                eventMail.append(EventMail(record: record, messageID: id, conversationID: conversation, events: events))
            }
            return nil
        }
        try renderWaiting()
        try ChatRender.endingOnWriteError(run) { try spool.flush() }

        bubbles.sort { ($0.conversation, $0.epoch, $0.order) < ($1.conversation, $1.epoch, $1.order) }
        var start = 0
        while start < bubbles.count {
            var end = start
            while end < bubbles.count, bubbles[end].conversation == bubbles[start].conversation { end += 1 }
            bubbleRanges[Int(bubbles[start].conversation)] = start..<end
            start = end
        }
        events = EventStore(applying: eventMail).events
        if known == nil {
            for p in ParcelGroup.group(observations) {
                parcels.append(MailStore.ParcelRow(id: p.id, change: 0, facts: p.facts))
                parcelRecords[p.id] = try JSONValue.parse(p.json())
            }
        }
    }

    func everyConversation(_ body: (ConversationSummary, _ change: Int) throws -> Void) throws {
        for c in conversations { try body(c, 0) }
    }

    func bubbles(of c: ConversationSummary, from: Int, documents: (String) -> Bool, clock: inout LocalClock,
                 _ each: (String) -> Void) throws -> [ChatRender.Bubble] {
        guard let k = byID[c.id] else { return [] }
        return Array(bubbles[bubbleRanges[Int(k)]].dropFirst(from))
    }

    func calendar() throws -> [EventStore.Tracked] { events }

    func parcelRows(_ selection: MailStore.ParcelSelection, _ body: (MailStore.ParcelRow) throws -> Void) throws {
        for p in parcels where selection.selects(p) { try body(p) }
    }
    func removedParcels(after: Int) throws -> [String] { [] }

    func parcelRecord(_ id: String) throws -> JSONValue? { parcelRecords[id] }
}

/// What the site keeps of one conversation record.
struct ConversationSummary {
    struct Person { var name: String?; var address: String }
    var id: String
    /// The base of its pages' file names: the id when it is a safe file name, else its hash.
    var file: String
    var participants: [Person]
    var title: String
    var isGroup: Bool
    var isNewsletter: Bool
    var archived: Bool
    var messageCount: Int
    var unreadCount: Int
    var lastDate: String
    var snippet: String
    var lastSender: Person?
    var shipments: [JSONValue]
    var messageIDs: [String]
    var isList = false
    var lastEpoch = Int.min
    var lastFromMe = false
    /// Its item in the lists, once rendered for the site's state (SiteState).
    var item: [UInt8]?
    /// Its read receipts and bounces.
    var reports: [ReportNote] = []
    /// Its messages' reactions, each person's current one, by the id of the message they react
    /// to (a bubble finds its own without reading every other's).
    var reactions: [String: [ReactionNote]] = [:]
    /// The conversation with nobody that lists the reports whose message is not in the mail.
    var isNotices: Bool { id == ConversationGroup.noticesID }

    /// `withMessageIDs`: the ids are read (a site rendered from files looks each message's
    /// conversation up in them).
    init(_ r: JSONRecord, withMessageIDs: Bool = true, words: SiteWords = .english) throws {
        guard let id = r.string("conversation_id"), !id.isEmpty else { throw ChatRender.MissingField(name: "conversation_id") }
        guard r.member("message_ids") != nil else {
            throw ChatRender.MissingField(name: "message_ids (chat-render reads conversation-group's output without --embed)")
        }
        let ids = withMessageIDs ? r.value("message_ids")?.arrayValue ?? [] : []
        self.id = id
        file = Self.fileName(id)
        func person(_ v: JSONValue?) -> Person? {
            guard let v, let address = v["address"]?.stringValue else { return nil }
            return Person(name: v["name"]?.stringValue.flatMap { $0.isEmpty ? nil : $0 }, address: address)
        }
        participants = r.value("participants")?.arrayValue?.compactMap(person) ?? []
        reports = r.value("reports")?.arrayValue?.compactMap(ReportNote.init) ?? []
        for note in r.value("reactions")?.arrayValue?.compactMap(ReactionNote.init) ?? [] { reactions[note.of, default: []].append(note) }
        title = id == ConversationGroup.noticesID ? words.text(.delivery_notices) : Self.title(participants, words: words)
        isGroup = r.value("is_group") == .bool(true)
        isNewsletter = r.value("is_newsletter") == .bool(true)
        archived = r.value("archived") == .bool(true)
        messageCount = r.value("message_count")?.intValue ?? ids.count
        unreadCount = r.value("unread_count")?.intValue ?? 0
        lastDate = r.string("last_date") ?? ""
        snippet = r.string("snippet") ?? reports.last?.text(names: [:], words: words) ?? ""
        lastSender = person(r.value("last_sender"))
        shipments = r.value("shipments")?.arrayValue ?? []
        messageIDs = ids.compactMap(\.stringValue)
    }

    static func fileName(_ id: String) -> String {
        let safe = id.utf8.count <= 100 && !id.hasPrefix(".") && id.utf8.allSatisfy {
            ($0 | 0x20) >= UInt8(ascii: "a") && ($0 | 0x20) <= UInt8(ascii: "z") || $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9")
                || $0 == UInt8(ascii: "-") || $0 == UInt8(ascii: "_")
        }
        return safe ? id : "h" + SHA256.hex(Array(id.utf8))
    }

    /// The name a list shows: the other person, or the group's first names.
    static func title(_ participants: [Person], words: SiteWords) -> String {
        if participants.isEmpty { return words.text(.notes_to_self) }
        if participants.count == 1 { return participants[0].name.map(TextFacts.displayName) ?? participants[0].address }
        return participants.map { TextFacts.isolatedIfRightToLeft(TextFacts.givenName(name: $0.name, address: $0.address)) }
            .joined(separator: ", ")
    }

    var avatarAddress: String { participants.first?.address ?? "" }

    /// The lines under message `id` (shown on local day `day`): its read receipts and bounces.
    func notes(for id: String, day: Int?, clock: inout LocalClock, words: SiteWords) -> [UInt8] {
        var out: [UInt8] = []
        for r in reports where r.of == id { r.item(names: names, day: day, clock: &clock, words: words, into: &out) }
        return out
    }

    /// The participants' display names by lowercase address.
    var names: [String: String] {
        var names: [String: String] = [:]
        for p in participants { names[p.address.lowercased()] = p.name.map(TextFacts.displayName) ?? p.address }
        return names
    }
}

/// The scratch file bubbles wait in until their conversation's pages are written. It is
/// unlinked as soon as it is made, so nothing is left behind whatever happens.
final class Spool {
    private let fd: Int32
    private var buffer: [UInt8] = []
    private var size = 0

    init(directory: String) throws {
        var template = Array((directory + "/.chat-render-spool.XXXXXX").utf8CString)
        fd = template.withUnsafeMutableBufferPointer { mkstemp($0.baseAddress!) }
        guard fd >= 0 else { throw SiteWriter.WriteError(path: directory, errno: errno) }
        template.withUnsafeBufferPointer { _ = unlink($0.baseAddress!) }
        buffer.reserveCapacity(1 << 22)
    }

    func close() { _ = Glibc.close(fd) }

    /// Appends and gives the offset the bytes are at.
    func append(_ bytes: [UInt8]) throws -> Int {
        let at = size
        buffer += bytes
        size += bytes.count
        if buffer.count >= 1 << 22 { try flush() }
        return at
    }

    func flush() throws {
        guard writeAll(fd: fd, buffer) else { throw SiteWriter.WriteError(path: "spool", errno: errno) }
        buffer.removeAll(keepingCapacity: true)
    }

    /// Reads bytes appended before, from the buffer while they are still in it.
    func read(offset: Int, length: Int, into out: inout [UInt8]) throws {
        let written = size - buffer.count
        if offset >= written {
            out += buffer[(offset - written)..<(offset - written + length)]
            return
        }
        let start = out.count
        out += repeatElement(0, count: length)
        var done = 0
        while done < length {
            let n = out.withUnsafeMutableBytes { pread(fd, $0.baseAddress! + start + done, length - done, off_t(offset + done)) }
            if n < 0 && errno == EINTR { continue }
            guard n > 0 else { throw SiteWriter.WriteError(path: "spool", errno: n < 0 ? errno : EIO) }
            done += n
        }
    }
}
