#if canImport(Glibc)
import Glibc
#endif
import ChatSite
import HTTP
import JSONLines
import MailStore
import Stages
import UnixFilter

/// gmail-sync: passes of Gmail's sync into a mailstore database, as Gmail's sync guide asks of
/// a client. A pass pulls, and pushes what the store has queued for Gmail (Push.swift): the
/// first time (or with --full, or when Gmail no longer has the history the store stopped at,
/// or its history ids went back) every message is listed and fetched; after that only
/// users.history.list from the stored historyId. New messages are fetched whole
/// (messages.get?format=raw), run through the stages and delivered with their journal as
/// `mailstore deliver` does, in this process; label changes and deletions are applied as
/// `mailstore history` applies them. A message that cannot be fetched now waits in the store
/// for the next pass.
public final class GmailSync {
    public struct Settings {
        public var store: String
        public var log: String
        public var me: [String] = []
        /// With a zone: the pages in this folder are rendered again where they changed.
        public var site: (folder: String, zone: String)?
        public var full = false
        /// Attachments larger than this are listed, not kept (mailstore deliver's --max-attachment).
        public var maxAttachment = AttachmentFolder.defaultMaxBytes
        /// users/me's URL (GMAIL_API).
        public var api = "https://gmail.googleapis.com/gmail/v1/users/me"
        public var retries = RetryPolicy()

        public init(store: String, log: String) {
            self.store = store
            self.log = log
        }
    }

    /// Messages read again (format=minimal) before their labels are stored together, in one
    /// transaction.
    static let chunk = 100

    let settings: Settings
    let api: GmailAPI
    let diagnostics = Diagnostics(program: "gmail-sync")
    /// The stages, made once for every pass of the process.
    private var delivery: Delivery?

    public init(_ settings: Settings, tokens: AccessTokens) throws(PassEnd) {
        self.settings = settings
        let http: HTTPClient
        do { http = try HTTPClient(userAgent: "mailpipe-gmail-sync/\(mailpipeVersion)") } catch {
            throw PassEnd(PassEnd.failed, error.description)
        }
        let diagnostics = self.diagnostics
        api = GmailAPI(http: http, base: settings.api, tokens: tokens, policy: settings.retries, say: { diagnostics.note($0) })
    }

    /// Requests sent to Gmail so far.
    public var requests: Int { api.requests }

    /// One pass, under the store's gmail-sync lock: its exit status, what went wrong said.
    public func pass() -> Int32 {
        do {
            try makeFolders(PrivateFolder.folder(of: settings.store))
            let lockPath = settings.store + ".gmail-sync.lock"
            let lock = open(lockPath, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0o600)
            guard lock >= 0 else { throw PassEnd(PassEnd.failed, "cannot open \(lockPath): \(String(cString: strerror(errno)))") }
            defer { close(lock) }
            // passes take turns: a second one waits for the first, then finds little left to do;
            // a pass that waits longer leaves its turn to the next one, as cron starts passes again and again
            let locked = lockExclusively(lock, waitingAtMost: settings.retries.maximumWait)
            guard locked == 0 else {
                throw PassEnd(PassEnd.temporary, locked == EWOULDBLOCK
                    ? "another pass has held \(lockPath) for \(settings.retries.maximumWait) s (GMAIL_SYNC_MAX_WAIT): left for the next pass"
                    : "cannot lock \(lockPath): \(String(cString: strerror(locked)))")
            }
            return try pull()
        } catch let end as PassEnd {
            if let message = end.message { diagnostics.note(message) }
            return end.status
        } catch {
            diagnostics.note("\(error)")
            return PassEnd.failed
        }
    }


    // MARK: the pull

    private func pull() throws(PassEnd) -> Int32 {
        var full = settings.full
        var store = fileExists(settings.store) ? try openStore() : nil
        defer { if let store { try? store.close() } }
        var me = settings.me
        let droppedBefore = try storeCall { try store?.droppedActionCount() ?? 0 }
        if !full, let store, let since = try storeCall({ try store.historyID() }) {
            switch try pages("/history?startHistoryId=\(URLText.component(since))&maxResults=500") {
            case .some(.notFound):
                diagnostics.note("Gmail no longer has the history from \(since) on: a full sync")
                full = true
            case .some(.pages(let pages)):
                if let now = historyNumber(pages.last?["historyId"]), let start = UInt64(since), now < start {
                    // a restored mailbox, or ids gone back: what changed since would be asked from a
                    // point Gmail has not reached again, and missed
                    diagnostics.note("Gmail's history ids went back (from \(since) to \(now)): a full sync")
                    full = true
                } else {
                    try apply(pages, full: false, to: store)
                }
            case nil:
                throw PassEnd(PassEnd.temporary)
            }
        } else {
            full = true
        }
        if full {
            guard case .answer(let bytes) = try api.get("/profile") else { throw PassEnd(PassEnd.temporary) }
            guard let profile = try? JSONValue.parse(bytes), let address = profile["emailAddress"]?.stringValue, !address.isEmpty,
                  historyNumber(profile["historyId"]) != nil
            else {
                throw PassEnd(PassEnd.temporary, "Gmail's profile is not what its API documents (an object with emailAddress and historyId): left for the next pass")
            }
            if me.isEmpty {
                // the account's address and those it sends as (aliases, other accounts' addresses):
                // mail to any of them is mail to me, never a group with myself
                let known = try storeCall { try store?.givenAddresses() ?? [] }
                var mine = known
                for a in [address] + (try sendAsAddresses()) where !mine.contains(where: { $0.lowercased() == a.lowercased() }) { mine.append(a) }
                if mine != known { me = mine }
            }
            guard case .pages(let list)? = try pages("/messages?maxResults=500&includeSpamTrash=true") else { throw PassEnd(PassEnd.temporary) }
            let opened: MailStore
            if let store { opened = store } else { opened = try openStore() }
            store = opened
            try apply([profile] + list, full: true, to: opened)
        }
        guard let store else { throw PassEnd(PassEnd.failed, "\(settings.store): no database") }
        if !me.isEmpty {
            try storeCall {
                if try me != store.givenAddresses() { try store.setKeying(addresses: me) }
            }
        }
        // what the user did, after Gmail's own changes were read: a change made on Gmail since
        // wins over ours of the same labels, and a message trashed there drops what waits for it
        let dropped = try storeCall { try store.droppedActionCount() } - droppedBefore
        if dropped > 0 {
            diagnostics.note("\(dropped) change\(dropped == 1 ? "" : "s") waiting for Gmail dropped: the message was trashed or deleted there (mailstore pending says which)")
        }
        let pushLeft = try push(store)
        let delivered = try fetchPending(into: store)
        // a full sync writes the mailbox into the store a chunk at a time: rewritten in order, the
        // store answers searches faster (mailstore(1), compact)
        if full && delivered > 0 { try storeCall { try store.compact() } }
        let left = try storeCall { try store.pendingFetches().count }
        try storeCall { try store.close() }
        if let site = settings.site { try render(site) }
        if left > 0 {
            diagnostics.note("\(left) messages could not be fetched; the next pass asks for them again")
            return PassEnd.temporary
        }
        return pushLeft ? PassEnd.temporary : 0
    }

    /// users.settings.sendAs: the addresses the account sends as; none when Gmail does not say.
    private func sendAsAddresses() throws(PassEnd) -> [String] {
        guard case .answer(let bytes) = try api.get("/settings/sendAs"), let answer = try? JSONValue.parse(bytes) else { return [] }
        return (answer["sendAs"]?.arrayValue ?? []).compactMap { entry in
            guard let a = entry["sendAsEmail"]?.stringValue, !a.isEmpty, a.contains("@"),
                  entry["verificationStatus"]?.stringValue.map({ $0 == "accepted" }) ?? true else { return nil }
            return a
        }
    }

    enum Pages {
        case pages([JSONValue])
        case notFound
    }

    /// Every page of a list (nextPageToken), or 404; nil when the pass gives up (said).
    private func pages(_ path: String) throws(PassEnd) -> Pages? {
        let separator = path.contains("?") ? "&" : "?"
        var pages: [JSONValue] = []
        var token: String?
        var seen = Set<String>()
        while true {
            switch try api.get(path + (token.map { "\(separator)pageToken=\(URLText.component($0))" } ?? "")) {
            case .answer(let bytes):
                guard let page = try? JSONValue.parse(bytes) else { throw PassEnd(PassEnd.temporary, "GET \(path): not JSON: left for the next pass") }
                pages.append(page)
                guard let next = page["nextPageToken"]?.stringValue, !next.isEmpty else { return .pages(pages) }
                guard seen.insert(next).inserted else {
                    throw PassEnd(PassEnd.temporary, "GET \(path): Gmail gave the same nextPageToken twice: left for the next pass")
                }
                token = next
            case .notFound:
                return pages.isEmpty ? .notFound : nil
            case .failed, .waitTooLong, .refused:
                return nil
            }
        }
    }

    private func apply(_ responses: [JSONValue], full: Bool, to store: MailStore) throws(PassEnd) {
        do { try store.applyGmailResponses(responses, full: full) } catch let e as MailStore.GmailResponsesRefused {
            throw PassEnd(PassEnd.temporary, "Gmail's answer is not what its API documents (\(shownText(e.description))): nothing was changed; left for the next pass")
        } catch {
            throw PassEnd(PassEnd.failed, "cannot apply Gmail's answers to \(settings.store): \(error)")
        }
    }

    // MARK: fetching

    /// Fetches what the store waits for: whole messages delivered one by one, labels
    /// (format=minimal) and messages gone meanwhile stored a chunk at a time. Returns how many
    /// messages were delivered.
    private func fetchPending(into store: MailStore) throws(PassEnd) -> Int {
        let pending = try storeCall { try store.pendingFetches() }
        guard !pending.isEmpty else { return 0 }
        var labels: [JSONValue] = []
        var gone: [String] = []
        var delivered = 0, fetched = 0, failedInARow = 0
        func storeChunk() throws(PassEnd) {
            guard !labels.isEmpty || !gone.isEmpty else { return }
            do { try store.applyFetched(labels: labels, gone: gone) } catch let e as MailStore.GmailResponsesRefused {
                throw PassEnd(PassEnd.temporary, "Gmail's answer is not what its API documents (\(shownText(e.description))): left for the next pass")
            } catch {
                throw PassEnd(PassEnd.failed, "cannot apply labels to \(settings.store): \(error)")
            }
            labels.removeAll()
            gone.removeAll()
        }
        for line in pending {
            guard let wanted = try? JSONValue.parse(line), let id = wanted["gmail_id"]?.stringValue else { continue }
            let format = wanted["format"]?.stringValue ?? "raw"
            // the id percent-encoded as one path segment (never . or ..), so that no id (with /,
            // ?, # or ..) can name another resource
            let path = "/messages/\(URLText.pathSegment(id))?format=\(URLText.component(format))"
            var keepGoing = true
            switch try api.get(path) {
            case .answer(let bytes):
                if format == "raw" {
                    if try deliver(bytes, id: id, into: store) { delivered += 1 }
                } else if let message = try? JSONValue.parse(bytes) {
                    labels.append(message)
                } else {
                    diagnostics.note("GET \(path): not JSON; asked again by the next pass")
                }
                fetched += 1
                failedInARow = 0
            case .notFound:
                // deleted since it was listed: dropped from the store, and said
                gone.append(id)
                diagnostics.note("message \(shownText(id)) was deleted on Gmail before it could be fetched: dropped")
            case .waitTooLong:
                keepGoing = false  // said; the rest is left for the next pass
            case .failed, .refused:
                failedInARow += 1
                if failedInARow >= 3 {
                    diagnostics.note("Gmail keeps failing: the rest is left for the next pass")
                    keepGoing = false
                }
            }
            if fetched % Self.chunk == 0 { try storeChunk() }
            if !keepGoing { break }
        }
        try storeChunk()
        return delivered
    }

    /// A whole message through the stages into the store and its journal, as `mailstore
    /// deliver` (mailpipe-log) does. False when it could not be: it stays pending, and is said.
    /// The journal is locked for this message only, not while the next is fetched, so that
    /// procmail's deliveries meanwhile take their turn.
    private func deliver(_ bytes: [UInt8], id: String, into store: MailStore) throws(PassEnd) -> Bool {
        do {
            if delivery == nil { delivery = try Delivery(diagnostics) }
            store.attachments.maxBytes = settings.maxAttachment
            delivery!.keepAttachments(with: store.attachments)
            let record = try delivery!.record(gmailMessage: bytes, name: "-")
            try makeFolders(PrivateFolder.folder(of: settings.log))
            let journal = try Journal(path: settings.log)
            if journal.cut > 0 {
                diagnostics.note("\(settings.log): \(journal.cut) bytes of a record left half written (a delivery killed, or a full disk) were cut")
            }
            let (_, replayed, inferred) = try store.deliver(record, journal: journal, meAuto: true)
            if replayed > 0 {
                diagnostics.note("\(settings.log): \(replayed) records a delivery killed before it was done had left there only were added to \(settings.store)")
            }
            if let inferred, !inferred.isEmpty { diagnostics.note("--me-auto: you are \(inferred)") }
            return true
        } catch let e as Delivery.Failed {
            store.attachments.release()  // what it kept is no message's: removal may take it
            diagnostics.note("message \(shownText(id)): \(e.description); it stays to fetch")
            return false
        } catch let e as StoreError {
            throw PassEnd(PassEnd.temporary, "\(e.description): the messages stay to fetch")
        } catch let e as PassEnd {
            throw e
        } catch {
            throw PassEnd(PassEnd.temporary, "cannot deliver message \(shownText(id)): \(error); it stays to fetch")
        }
    }

    // MARK: the store and the pages

    func openStore() throws(PassEnd) -> MailStore {
        do { return try MailStore(path: settings.store, access: .write) } catch {
            throw PassEnd(PassEnd.failed, "\(error)")
        }
    }

    /// A call of the store's: its failure is local (1).
    func storeCall<T>(_ body: () throws -> T) throws(PassEnd) -> T {
        do { return try body() } catch {
            throw PassEnd(PassEnd.failed, "\(settings.store): \(error)")
        }
    }

    /// The pages rendered again where they changed, as mailpipe-site does (chat-render --store
    /// --take-turns).
    private func render(_ site: (folder: String, zone: String)) throws(PassEnd) {
        var render = ChatRender()
        render.out = site.folder
        render.zone = site.zone
        let run = FilterRun(program: "gmail-sync", settings: RunSettings(noProgress: true))
        do {
            render.words = try SiteWords.chosen(lang: nil, run.diagnostics)  // the locale's, as mailpipe-site's
            try render.run(storeAt: settings.store, waiting: false, run)
        } catch {
            throw PassEnd(PassEnd.failed, "\(site.folder): the pages could not be rendered")
        }
    }
}

/// A history id: an unsigned 64-bit number, written as a string (as Gmail does) or a number.
func historyNumber(_ value: JSONValue?) -> UInt64? {
    switch value {
    case .string(let text)?: UInt64(text)
    case .number(let text)?: UInt64(text)
    default: nil
    }
}

func fileExists(_ path: String) -> Bool { access(path, F_OK) == 0 }

/// mkdir -p, each folder made readable by the user alone.
func makeFolders(_ path: String) throws(PassEnd) {
    guard !path.isEmpty, !fileExists(path) else { return }
    let parent = PrivateFolder.folder(of: path)
    if parent != path { try makeFolders(parent) }
    if mkdir(path, 0o700) != 0 && errno != EEXIST {
        throw PassEnd(PassEnd.failed, "cannot make the folder \(path): \(String(cString: strerror(errno)))")
    }
}
