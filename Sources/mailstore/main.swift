#if canImport(Glibc)
import Glibc
#endif
import ArgumentParser
import ChatSite
import Conversations
import Events
import JSONLines
import MailStore
import ParcelOptions
import Stages
import UnixFilter

extension MailStore.SearchOutput: ExpressibleByArgument {}

/// Opens the store, runs `body` as a filter run, and exits with the status it comes to.
/// `failure`: the status of every error of the database's, in place of its own (a delivery's:
/// 75, so that the mail system tries again).
func withStore(_ database: String, access: MailStore.Access, settings: RunSettings, program: String = "mailstore",
               failure: ExitStatus? = nil, _ body: @escaping (MailStore, FilterRun) throws -> Void) -> Never {
    FilterRun.main(program: program, settings: settings) { run in
        let store: MailStore
        do { store = try MailStore(path: database, access: access) } catch let e as StoreError {
            run.diagnostics.error(e.description)
            throw Exit(failure ?? e.status)
        }
        do {
            try body(store, run)
            try store.close()
        } catch let e as StoreError {
            store.abandon()
            run.diagnostics.error(e.description)
            throw Exit(failure ?? e.status)
        } catch {
            try? store.close()  // what was committed stays, as in a database that was there
            throw error
        }
    }
}

/// Your addresses and the address rules, when the command line gives others than the
/// database's (a rule not given stays as the database records it): every message is keyed again.
func changeKeying(_ store: MailStore, me: [String], rules given: AddressRuleFlags) throws {
    let newMe = try !me.isEmpty && me != store.givenAddresses()
    let rules = given.applied(to: store.rules)
    if newMe || rules != store.rules { try store.setKeying(addresses: me.isEmpty ? nil : me, rules: rules) }
}

/// Options of the commands that only write records: no inputs of their own.
struct OutputOptions: ParsableArguments {
    @Flag(name: .customLong("line-buffered"), help: "Flush after every record.")
    var lineBuffered = false

    var common: RunSettings { RunSettings(lineBuffered: lineBuffered, noProgress: true) }
}

struct Add: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "add", _superCommandName: "mailstore",
        abstract: "Add the pipeline's records to the database (made if missing), one transaction per input.",
        discussion: """
            The same record twice changes nothing; a record of a stored id with more fields (a \
            later filter ran) replaces it, and its labels join the stored ones. The conversations \
            and events each input touches are derived again before it commits. An attachment \
            whose saved_as names a file (mime-parse --save-attachments) is copied into \
            DB.attachments/ when the file holds the bytes its sha256 names; the stored record's \
            saved_as is then the kept file (else null). Kept files no message names any more are \
            removed at the end.
            """)

    @Argument(help: ArgumentHelp("The database.", valueName: "db"))
    var database: String

    @OptionGroup var common: CommonOptions

    @OptionGroup var keying: KeyingOptions

    @OptionGroup var attachments: AttachmentOptions

    func run() throws {
        withStore(database, access: .load, settings: common.settings) { store, run in
            store.attachments.maxBytes = attachments.maxAttachment
            try changeKeying(store, me: keying.me, rules: keying.addressFlags)
            if keying.meAuto, store.own.isEmpty {
                run.diagnostics.note(meAutoNote(try store.inferOwnAddresses(store.observeOwnAddresses(run)), database))
            }
            let counts = try store.add(run)
            if !keying.quiet { run.diagnostics.note("\(database): \(counts)") }
        }
    }
}

/// Whose mail it is, for the commands that add it: remembered in the database.
struct KeyingOptions: ParsableArguments {
    @Option(help: ArgumentHelp("Your address (repeat for each); remembered in the database.", valueName: "addr"))
    var me: [String] = []

    @Flag(name: .customLong("me-auto"), help: "When the database knows none of your addresses: infer them from the mail as participant-hash --me-auto does, once; the messages stored before are keyed again.")
    var meAuto = false

    @OptionGroup(title: "Address rules (as participant-hash takes them; remembered)") var addressFlags: AddressRuleFlags

    @Flag(name: .shortAndLong, help: "Say nothing when all went well.")
    var quiet = false
}

/// How large an attachment the store keeps.
struct AttachmentOptions: ParsableArguments {
    @Option(name: .customLong("max-attachment"), help: ArgumentHelp("Attachments larger than this are listed in the database, not kept in DB.attachments/ (default \(AttachmentFolder.defaultMaxBytes), 25 MiB).", valueName: "bytes"))
    var maxAttachment = AttachmentFolder.defaultMaxBytes

    func validate() throws {
        if maxAttachment < 0 { throw ValidationError("--max-attachment: a number of bytes, 0 or more") }
    }
}

/// What `--me-auto` found, or that it found nothing.
func meAutoNote(_ report: String?, _ database: String) -> String {
    guard let report, !report.isEmpty else {
        return "--me-auto: no message labelled SENT and no Delivered-To: your addresses are not known yet, so you are a participant of every conversation until you give them with 'mailstore config --me ADDR \(database)'"
    }
    return "--me-auto: you are " + report
}

struct Deliver: ParsableCommand, ZoneOptionHelp {
    static let configuration = CommandConfiguration(
        commandName: "deliver", _superCommandName: "mailstore",
        abstract: "One delivery in one process: the mail on standard input parsed once, run through the stages, appended to the journal and added to the database.",
        discussion: """
            Standard input is one message as procmail or fetchmail hands it over (or what \
            mime-parse reads: an mbox, Gmail API lines). Each message is parsed once and \
            run through the stages `mailstore stages` lists, in that order, as their \
            programs would; each record is added to the database and appended to the \
            journal (--journal) in one transaction, or neither. Attachments are kept in \
            DB.attachments/, each file named by its SHA-256 (--max-attachment). \
            mailpipe-log runs this. Exit status: 0; 65 for an empty message; 64 with --stamp \
            and more than one message; 75 for any other failure (the mail system keeps the \
            message and tries again).
            """)

    @Argument(help: ArgumentHelp("The database.", valueName: "db"))
    var database: String

    @Option(help: ArgumentHelp("Append each record to this journal (whole lines, under its lock) as the database takes it.", valueName: "log"))
    var journal: String?

    @OptionGroup var keying: KeyingOptions

    @OptionGroup var attachments: AttachmentOptions

    @Flag(help: "Write the message back on standard output with X-Mail-Kind and X-Newsletter (as newsletter-detect --mail stamps them), for procmail's filter recipes: one message only.")
    var stamp = false

    @Option(help: ArgumentHelp("Then bring chat-render's site in this folder up to date (as `chat-render --store DB --take-turns` does): the delivery stands whatever happens to the pages.", valueName: "dir"))
    var site: String?

    static let zoneHelp = "With --site: the IANA time zone times are shown in (default: TZ, else the system's)."
    @OptionGroup var zone: ZoneOption<Deliver>

    @Option(help: ArgumentHelp("With --site: the language of the pages, as chat-render --lang (default: the locale).", valueName: "tag"),
            completion: .list(["en", "de", "ja", "zh-Hant", "zh-Hans", "zh-TW", "zh-CN"]))
    var lang: String?

    @OptionGroup var output: OutputOptions

    /// The stages, made from the start of the process (main.swift).
    nonisolated(unsafe) static var preparing: Background<Result<Delivery, any Error>>?

    func validate() throws {
        if site?.isEmpty == true { throw ValidationError("--site: give a folder") }
        if zone.isGiven && site == nil { throw ValidationError("--zone: only with --site") }
    }

    func run() throws {
        // for the delivery agent, every failure but an empty message (65) is temporary (75): a
        // database or journal that cannot be written, or a rules file of the user's with a
        // mistake in it, keeps the mail queued until it is put right, never bounced
        withStore(database, access: .load, settings: output.common, failure: .temporaryFailure) { store, run in
            do { try deliver(into: store, run) } catch let e as Delivery.Failed {
                run.diagnostics.error(e.description)
                throw Exit(e.isEmpty ? .dataError : .temporaryFailure)
            } catch let e as Exit {
                throw e.status == .usage ? e : Exit(.temporaryFailure)  // usage: --stamp and two messages
            } catch let e as StoreError {
                throw e  // said by withStore, as a 75
            } catch {
                run.diagnostics.error("\(error)")
                throw Exit(.temporaryFailure)
            }
        }
    }

    private func deliver(into store: MailStore, _ run: FilterRun) throws {
        // the pages' templates and words are made on a second core while the mail goes in, and
        // the zone's offsets read (libical expands a zone's changes when it is first asked)
        let lang = self.lang, zone = site.map { _ in self.zone.id }
        let pageWords = site.map { _ in
            Background { Result { () throws -> SiteWords in
                _ = SiteTemplates.builtIn
                if let zone, var clock = LocalClock(zone: zone) { _ = clock.local(Int(Glibc.time(nil))) }
                return try SiteWords.chosen(lang: lang, Diagnostics(program: "mailstore"))
            } }
        }
        var message: [UInt8] = []
        if stamp {
            do { message = try Delivery.keepStandardInput() } catch {
                run.diagnostics.error("cannot read the message: \(error)")
                throw Exit(.temporaryFailure)
            }
        }
        let delivery = try Self.preparing?.value.get() ?? Delivery(run.diagnostics)
        store.attachments.maxBytes = attachments.maxAttachment
        delivery.keepAttachments(with: store.attachments)
        try changeKeying(store, me: keying.me, rules: keying.addressFlags)
        var log = try journal.map { path in
            let log = try Journal(path: path)
            if log.cut > 0 { run.diagnostics.note("\(path): \(log.cut) bytes of a record left half written (a delivery killed, or a full disk) were cut") }
            return log
        }
        var counts = MailStore.AddCounts(), replayed = 0
        var delivered: [JSONRecord] = []  // with --stamp, the one message's
        try delivery.forEachRecord(fd: 0, name: "-") { record in
            if stamp && !delivered.isEmpty {
                run.diagnostics.error("--stamp: standard input holds more than one message (the first was delivered)")
                throw Exit(.usage)
            }
            let (added, replayedNow, inferred) = try store.deliver(record, journal: log, meAuto: keying.meAuto)
            if inferred != nil { run.diagnostics.note(meAutoNote(inferred, database)) }
            counts += added
            replayed += replayedNow
            if stamp { delivered.append(record) }
        }
        if replayed > 0, let journal {
            run.diagnostics.note("\(journal): \(replayed) records a delivery killed before it was done had left there only were added to \(database)")
        }
        if !keying.quiet { run.diagnostics.note("\(database): \(counts)") }
        if stamp, let record = delivered.first, !writeAll(fd: 1, Delivery.stamped(message, by: record)) {
            run.diagnostics.error("cannot write the message back: standard output failed")
            throw Exit(.temporaryFailure)
        }
        log = nil  // its lock let go: the pages' pictures are made by a process of this one's, after it returns
        if let site {
            try store.close()  // a database this delivery made appears at its close
            render(site, words: pageWords!.value, run)
        }
    }

    /// The pages, once the mail is in: what goes wrong is said, and the delivery stands.
    private func render(_ site: String, words: Result<SiteWords, any Error>, _ run: FilterRun) {
        var render = ChatRender()
        render.out = site
        render.zone = zone.id
        render.picturesAfterPages = true  // the delivery is over once the pages are written
        do {
            render.words = try words.get()
            try render.run(storeAt: database, waiting: false, run)
        } catch {
            run.diagnostics.note("\(site): the pages are not up to date; the mail is delivered")
        }
    }
}

/// Mail I send, stored at once and queued for its source.
struct Send: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "send", _superCommandName: "mailstore",
        abstract: "Store messages I send (as mail-compose writes them) at once as sent messages of their conversations, and queue them for their source.",
        discussion: """
            mail-compose --mbox < requests.jsonl | mailstore send mail.db
            Each message goes through the stages, as a delivery's does, and is stored labelled \
            SENT with its state `sending`; it is queued for Gmail (gmail-sync sends it) when the \
            store syncs a Gmail account, else for the local sendmail (mailstore push). It \
            becomes `sent` when the source takes it, or `failed` with the reason (mailstore \
            pending). A message already queued (the same Message-ID) is not queued again. \
            --retry ID queues a failed one again.
            """)

    @Argument(help: ArgumentHelp("The database.", valueName: "db"))
    var database: String

    @Argument(help: ArgumentHelp("The messages: one message or an mbox (default: standard input).", valueName: "file"))
    var file: String?

    @Option(help: ArgumentHelp("Append each record to this journal, as deliver does.", valueName: "log"))
    var journal: String?

    @Option(help: ArgumentHelp("Queue again the failed send of this message (its id).", valueName: "id"))
    var retry: String?

    @OptionGroup var attachments: AttachmentOptions

    @OptionGroup var output: OutputOptions

    func validate() throws {
        if retry != nil && file != nil { throw ValidationError("--retry ID or messages to send, not both") }
    }

    func run() throws {
        withStore(database, access: .write, settings: output.common) { store, run in
            if let retry {
                guard try store.retrySend(message: retry) else {
                    run.diagnostics.error("no failed send of \(retry)")
                    throw Exit(.dataError)
                }
                return
            }
            var input: Input?
            if let file {
                do { input = try Input.open(file) } catch let e as InputError {
                    run.diagnostics.error(e.description, file: file)
                    throw Exit(e.status)
                }
            }
            defer { input?.close() }
            let log = try journal.map { try Journal(path: $0) }
            let delivery = try Delivery(run.diagnostics)
            store.attachments.maxBytes = attachments.maxAttachment
            delivery.keepAttachments(with: store.attachments)
            var queued = 0, again = 0
            do {
                try delivery.forEachMessage(fd: input?.fd ?? 0, name: file ?? "-") { message, record in
                    switch try store.send(record, raw: message, journal: log) {
                    case .queued: queued += 1
                    case .alreadyQueued: again += 1
                    }
                }
            } catch let e as Delivery.Failed {
                run.diagnostics.error(e.description)
                throw Exit(.dataError)
            }
            run.diagnostics.note("\(database): \(queued) queued to send" + (again > 0 ? ", \(again) already queued" : ""))
        }
    }
}

/// What waits for a source on this machine.
struct Push: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "push", _superCommandName: "mailstore",
        abstract: "Do what waits for a source on this machine: send queued mail with sendmail, and set the flags of maildir messages.",
        discussion: """
            Sends go to --sendmail (default: sendmail -t -oi; e.g. 'msmtp -t'); an exit of 75 \
            leaves the message queued, any other failure marks it failed. Read, starred and \
            trashed maildir messages get the flags S, F and T, as mblaze's mflag sets them; \
            archived ones move to --archive-folder when it is given. Gmail's actions are \
            gmail-sync's to push. Writes one line of counts; exit 1 when something failed.
            """)

    @Argument(help: ArgumentHelp("The database.", valueName: "db"))
    var database: String

    @Option(help: ArgumentHelp("The sendmail command (words split at spaces).", valueName: "command"))
    var sendmail = "sendmail -t -oi"

    @Option(name: .customLong("archive-folder"), help: ArgumentHelp("The maildir archived mail moves to.", valueName: "dir"))
    var archiveFolder: String?

    @OptionGroup var output: OutputOptions

    func run() throws {
        let command = sendmail.split(separator: " ").map(String.init)
        withStore(database, access: .write, settings: output.common) { store, run in
            let report = try store.push(sendmail: command, archiveFolder: archiveFolder)
            for m in report.messages { run.diagnostics.error(m) }
            var w = JSONWriter()
            w.beginObject()
            w.field("done", report.done)
            w.field("failed", report.failed)
            w.field("waiting_for_gmail", report.waiting)
            w.endObject()
            try run.write(w.bytes)
            if report.failed > 0 { run.raise(.someRecordsFailed) }
        }
    }
}

struct StagesCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "stages", _superCommandName: "mailstore",
        abstract: "The per-message stages after mime-parse, one a line, in the order every chain runs them (make pipeline, mailstore deliver, Spark).")

    func run() throws {
        print(Stages.names.joined(separator: "\n"))
    }
}

struct Config: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "config", _superCommandName: "mailstore",
        abstract: "Print the database's settings and counts, or change your addresses (every message is keyed again).")

    @Argument(help: ArgumentHelp("The database.", valueName: "db"))
    var database: String

    @Option(help: ArgumentHelp("Your addresses from now on (repeat for each).", valueName: "addr"))
    var me: [String] = []

    @OptionGroup(title: "Address rules from now on") var addressFlags: AddressRuleFlags

    @Flag(name: .customLong("plain-addresses"), help: "Neither of the address rules from now on.")
    var plainAddresses = false

    @OptionGroup var output: OutputOptions

    func validate() throws {
        if plainAddresses && addressFlags.givesAny {
            throw ValidationError("--plain-addresses turns the address rules off: give it alone")
        }
    }

    func run() throws {
        let changes = !me.isEmpty || plainAddresses || addressFlags.givesAny
        withStore(database, access: changes ? .write : .read, settings: output.common) { store, run in
            if plainAddresses {
                try store.setKeying(addresses: me.isEmpty ? nil : me, rules: .plain)
            } else {
                try changeKeying(store, me: me, rules: addressFlags)
            }
            try run.write(try store.configRecord())
        }
    }
}

struct Compact: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "compact", _superCommandName: "mailstore",
        abstract: "Rewrite the database in order (as notmuch compact does): after a big load, searches read fewer pages.")

    @Argument(help: ArgumentHelp("The database.", valueName: "db"))
    var database: String

    @OptionGroup var output: OutputOptions

    func run() throws {
        withStore(database, access: .read, settings: output.common) { store, _ in try store.compact() }
    }
}

struct ConversationsCommand: ParsableCommand, NowOptionHelp {
    static let configuration = CommandConfiguration(
        commandName: "conversations", _superCommandName: "mailstore",
        abstract: "The chat list: conversation-group's records of the visible conversations, newest first.")

    @Argument(help: ArgumentHelp("The database.", valueName: "db"))
    var database: String

    @Flag(help: "Every conversation, archived or not (what conversation-group writes).")
    var all = false

    @Flag(help: "The archived conversations instead.")
    var archived = false

    @Option(help: ArgumentHelp("Only conversations of this kind: people, group, list, newsletter, myself or notices.", valueName: "kind"))
    var kind: String?

    @Option(help: ArgumentHelp("Only conversations changed after this change counter (mailstore config prints the last).", valueName: "n"))
    var changedAfter: Int?

    @Option(help: ArgumentHelp("At most this many.", valueName: "n"))
    var limit: Int?

    static let nowHelp = "The time events are upcoming from, RFC 3339 (default: now)."
    static let nowForm = NowForm.rfc3339
    @OptionGroup var now: NowOption<ConversationsCommand>

    @OptionGroup var output: OutputOptions

    func validate() throws {
        if all && archived { throw ValidationError("--all already includes --archived") }
        if let kind, !["people", "group", "list", "newsletter", "myself", "notices"].contains(kind) {
            throw ValidationError("--kind: one of people, group, list, newsletter, myself, notices")
        }
        if let limit, limit < 0 { throw ValidationError("--limit: at least 0") }
    }

    func run() throws {
        withStore(database, access: .read, settings: output.common) { store, run in
            if let now = now.instant() { store.now = now }
            var q = MailStore.ConversationQuery()
            q.all = all
            q.archived = archived
            q.kind = kind
            q.changedAfter = changedAfter
            q.limit = limit
            try store.conversations(q) { try run.write($0) }
        }
    }
}

struct Messages: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "messages", _superCommandName: "mailstore",
        abstract: "A conversation's messages, newest first, as the pipeline's records.")

    @Argument(help: ArgumentHelp("The database.", valueName: "db"))
    var database: String

    @Argument(help: ArgumentHelp("The conversation_id.", valueName: "conversation"))
    var conversation: String

    @Option(help: ArgumentHelp("Only messages dated before this RFC 3339 time (the next page back).", valueName: "time"))
    var before: String?

    @Option(help: ArgumentHelp("At most this many.", valueName: "n"))
    var limit: Int?

    @OptionGroup var output: OutputOptions

    func run() throws {
        withStore(database, access: .read, settings: output.common) { store, run in
            try store.messages(conversation: conversation, before: before, limit: limit) { try run.write($0) }
        }
    }
}

struct Search: QueryCommand {
    static let configuration = CommandConfiguration(
        commandName: "search", _superCommandName: "mailstore",
        abstract: "The messages a query finds, newest first.",
        discussion: """
            Words, "phrases", prefix*, from: to: subject: body:, date:A..B, is:unread (read, \
            inbox, archived, starred, sent, draft…), label:, kind:, has:attachment, id:, \
            conversation:, AND OR NOT, -word (NOT word) and parentheses; words side by side \
            must all match. Words are looked for in the subject, the people, the body text and \
            the words the HTML alternative shows beyond it (a newsletter whose plain part only \
            says "View this email in your browser"). Chinese and Japanese are found by their \
            words (黑貓, 取件). \(queryLimits) See mailstore(1).

            \(dashWords)
            """)

    static let optionsWithValues: Set<String> = ["--output", "--limit"]

    @Argument(help: ArgumentHelp("The database.", valueName: "db"))
    var database: String

    @Argument(help: ArgumentHelp("The query (its words may be separate arguments; -word is NOT word).", valueName: "query"))
    var query: [String]

    @Option(help: ArgumentHelp("What to write: messages (the records), ids, or conversations.", valueName: "kind"))
    var output: MailStore.SearchOutput = .messages

    @Option(help: ArgumentHelp("At most this many.", valueName: "n"))
    var limit: Int?

    @OptionGroup var outputOptions: OutputOptions

    func run() throws {
        let parsed = try parseQuery(query)
        withStore(database, access: .read, settings: outputOptions.common) { store, run in
            try store.search(parsed, output: output, limit: limit) { try run.write($0) }
        }
    }
}

let queryLimits = """
    A query has at most \(SearchQuery.maximumTerms) terms and \(SearchQuery.maximumDepth) \
    parentheses and NOTs nested in one another; past them it is an error that says where, \
    exit 64.
    """

let dashWords = """
    After the database a word that begins with '-' is the query's, as in notmuch: -alex \
    is NOT alex. There only -h and words that begin with '--' are options; every word \
    after '--' is the query's.
    """

/// A command whose query may have words that begin with '-', as notmuch's do (`-alex` is
/// `NOT alex`), among its options.
protocol QueryCommand: ParsableCommand {
    /// Its options that take a value in the next argument.
    static var optionsWithValues: Set<String> { get }
}

extension QueryCommand {
    /// The command line with the query's words, those after the database, put after a `--`
    /// (in their order), so that the argument parser reads `-alex` as a word and not as an
    /// unknown option. Before the database every word that begins with '-' is still an
    /// option; after it only `-h` and words that begin with `--` (and their values) are.
    static func queryArguments(_ arguments: [String]) -> [String] {
        var options: [String] = []
        var query: [String] = []
        var database = false
        var i = 0
        while i < arguments.count {
            let a = arguments[i]
            i += 1
            if a == "--" {
                // the query is all that follows (the database too, when it was not given)
                query += arguments[i...]
                break
            }
            if a.hasPrefix("--") || (a.hasPrefix("-") && a.count > 1 && (!database || a == "-h")) {
                options.append(a)
                if optionsWithValues.contains(a), i < arguments.count {
                    options.append(arguments[i])
                    i += 1
                }
            } else if !database {
                database = true
                options.append(a)
            } else {
                query.append(a)
            }
        }
        return query.isEmpty ? options : options + ["--"] + query
    }
}

/// A query given as one argument or as several words.
func parseQuery(_ words: [String]) throws -> SearchQuery {
    do { return try SearchQuery(words.joined(separator: " ")) } catch {
        Diagnostics(program: "mailstore").error("search: \(error.description)")
        throw ExitCode(ExitStatus.usage.rawValue)
    }
}

struct Count: QueryCommand {
    static let configuration = CommandConfiguration(
        commandName: "count", _superCommandName: "mailstore",
        abstract: "How many messages a query finds (see search).",
        discussion: """
            \(queryLimits)

            \(dashWords)
            """)

    static let optionsWithValues: Set<String> = []

    @Argument(help: ArgumentHelp("The database.", valueName: "db"))
    var database: String

    @Argument(help: ArgumentHelp("The query (its words may be separate arguments; -word is NOT word).", valueName: "query"))
    var query: [String]

    @OptionGroup var output: OutputOptions

    func run() throws {
        let parsed = try parseQuery(query)
        withStore(database, access: .read, settings: output.common) { store, run in
            try run.write(Array(String(try store.count(parsed)).utf8))
        }
    }
}

/// The actions a chat app takes, as label changes (Gmail's system labels).
struct Mark: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "mark", _superCommandName: "mailstore",
        abstract: "Mark the messages a query finds read, unread, archived, in the inbox, starred, spam or trashed, at once and for their source.",
        discussion: """
            mailstore mark mail.db --read conversation:ID       (the chat is read)
            mailstore mark mail.db --archive --read conversation:ID
            Each verb is a change of Gmail's labels, as mailstore label makes it (--read is             -UNREAD, --archive -INBOX, --star +STARRED, --spam +SPAM -INBOX, --trash +TRASH);             the conversations are derived again in the same transaction, and each change is             queued for the message's source (gmail-sync pushes Gmail's): see mailstore pending.             Writes how many messages changed.
            """)

    @Argument(help: ArgumentHelp("The database.", valueName: "db"))
    var database: String

    @Flag(help: "Read (-UNREAD).") var read = false
    @Flag(help: "Unread (+UNREAD).") var unread = false
    @Flag(help: "Out of the inbox (-INBOX): the chat leaves the list until new mail comes.") var archive = false
    @Flag(help: "Back in the inbox (+INBOX).") var inbox = false
    @Flag(help: "Starred (+STARRED).") var star = false
    @Flag(help: "Not starred (-STARRED).") var unstar = false
    @Flag(help: "Spam (+SPAM -INBOX).") var spam = false
    @Flag(help: "Not spam (-SPAM +INBOX).") var unspam = false
    @Flag(help: "In the trash (+TRASH).") var trash = false
    @Flag(help: "Out of the trash (-TRASH).") var untrash = false

    @Argument(parsing: .remaining, help: ArgumentHelp("The query (as mailstore search takes it).", valueName: "query"))
    var query: [String] = []

    @OptionGroup var output: OutputOptions

    var changes: (add: [String], remove: [String]) {
        var add: [String] = [], remove: [String] = []
        for (on, plus, minus) in [(read, [], ["UNREAD"]), (unread, ["UNREAD"], []), (archive, [], ["INBOX"]), (inbox, ["INBOX"], []),
                                  (star, ["STARRED"], []), (unstar, [], ["STARRED"]), (spam, ["SPAM"], ["INBOX"]), (unspam, ["INBOX"], ["SPAM"]),
                                  (trash, ["TRASH"], []), (untrash, [], ["TRASH"])] where on {
            add += plus
            remove += minus
        }
        return (add, remove)
    }

    func validate() throws {
        for (a, b) in [(read, unread), (archive, inbox), (star, unstar), (spam, unspam), (trash, untrash)] where a && b {
            throw ValidationError("two verbs that undo each other")
        }
        let (add, remove) = changes
        if add.isEmpty && remove.isEmpty { throw ValidationError("say what to do: --read, --unread, --archive, --inbox, --star, --unstar, --spam, --unspam, --trash or --untrash") }
        if Set(add).intersection(remove).count > 0 { throw ValidationError("--archive and --unspam (or --spam and --inbox) undo each other") }
        if query.isEmpty { throw ValidationError("give the query of the messages to mark") }
    }

    func run() throws {
        let (add, remove) = changes
        let parsed = try parseQuery(query)
        withStore(database, access: .write, settings: output.common) { store, run in
            try run.write(Array(String(try store.label(parsed, add: add, remove: remove)).utf8))
        }
    }
}

/// The actions waiting for their source.
struct Pending: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "pending", _superCommandName: "mailstore",
        abstract: "What waits to reach the mail's source: the actions queued, with their tries and last error, and those dropped.",
        discussion: """
            One JSON object a line: id, message_id, gmail_id, action (labels, trash, untrash),             add and remove (labels), source (gmail, maildir, local), state (queued; local: no             source to send it to, the change stays here; dropped: given up, last_error says             why), queued, tries, last_try, last_error. --forget-dropped removes the dropped ones.
            """)

    @Argument(help: ArgumentHelp("The database.", valueName: "db"))
    var database: String

    @Flag(name: .customLong("forget-dropped"), help: "Remove the dropped actions (after reading them).")
    var forgetDropped = false

    @OptionGroup var output: OutputOptions

    func run() throws {
        withStore(database, access: forgetDropped ? .write : .read, settings: output.common) { store, run in
            if forgetDropped {
                try run.write(Array(String(try store.forgetDroppedActions()).utf8))
                return
            }
            for action in try store.actions() { try run.write(MailStore.json(action)) }
        }
    }
}

struct Label: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "label", _superCommandName: "mailstore",
        abstract: "Add (+NAME) and remove (-NAME) labels of the messages a query finds, as notmuch tag does.",
        discussion: """
            mailstore label mail.db -UNREAD -- conversation:ID    (the chat is read)
            mailstore label mail.db -INBOX -- conversation:ID     (archived; a new message brings it back)
            Their conversations are derived again. Writes how many messages changed.
            """)

    @Argument(help: ArgumentHelp("The database.", valueName: "db"))
    var database: String

    @Argument(parsing: .allUnrecognized, help: ArgumentHelp("+NAME and -NAME, then '--' and the query.", valueName: "changes"))
    var words: [String] = []

    var split: (add: [String], remove: [String], query: [String]) {
        let separator = words.firstIndex(of: "--")
        let changes = separator.map { Array(words[..<$0]) } ?? Array(words.prefix { $0.hasPrefix("+") || $0.hasPrefix("-") })
        let query = separator.map { Array(words[($0 + 1)...]) } ?? Array(words.dropFirst(changes.count))
        return (changes.filter { $0.hasPrefix("+") }.map { String($0.dropFirst()) },
                changes.filter { $0.hasPrefix("-") }.map { String($0.dropFirst()) }, query)
    }

    @OptionGroup var output: OutputOptions

    func validate() throws {
        let (add, remove, query) = split
        if add.isEmpty && remove.isEmpty { throw ValidationError("give a label to add (+NAME) or remove (-NAME)") }
        if (add + remove).contains(where: \.isEmpty) { throw ValidationError("a label needs a name after + or -") }
        if query.isEmpty { throw ValidationError("give the query after the labels (and '--')") }
    }

    func run() throws {
        let (add, remove, words) = split
        let parsed = try parseQuery(words)
        withStore(database, access: .write, settings: output.common) { store, run in
            try run.write(Array(String(try store.label(parsed, add: add, remove: remove)).utf8))
        }
    }
}

struct EventsCommand: ParsableCommand, ZoneOptionHelp {
    static let configuration = CommandConfiguration(
        commandName: "events", _superCommandName: "mailstore",
        abstract: "The calendar: event-group's records, or the occurrences of a day or a window.")

    @Argument(help: ArgumentHelp("The database.", valueName: "db"))
    var database: String

    @Flag(help: "Every event (the default): what event-group writes.")
    var all = false

    @Option(help: ArgumentHelp("The occurrences of this day (YYYY-MM-DD, or 'today') in --zone.", valueName: "day"))
    var agenda: String?

    @Option(help: ArgumentHelp("The occurrences from this date or time…", valueName: "date"))
    var from: String?

    @Option(help: ArgumentHelp("… up to this one.", valueName: "date"))
    var to: String?

    static let zoneHelp = "The IANA time zone of days and of all-day and floating events (default: TZ, else the system's)."
    @OptionGroup var zone: ZoneOption<EventsCommand>

    @Option(help: ArgumentHelp("Only events changed after this change counter.", valueName: "n"))
    var changedAfter: Int?

    @OptionGroup var output: OutputOptions

    var window: Range<Int>? {
        if let agenda { return EventGroup.day(agenda == "today" ? EventGroup.today(zone: zone.id) : agenda, zone: zone.id) }
        if let from, let to, let a = EventGroup.instant(from, zone: zone.id), let b = EventGroup.instant(to, zone: zone.id) { return a..<b }
        return nil
    }

    func validate() throws {
        if (from == nil) != (to == nil) { throw ValidationError("--from and --to go together") }
        if agenda != nil && from != nil { throw ValidationError("--agenda is a window of its own: give it or --from/--to") }
        if (agenda != nil || from != nil), window.map({ $0.isEmpty }) ?? true { throw ValidationError("not a day or window: give YYYY-MM-DD dates, --to after --from") }
        if all && (agenda != nil || from != nil) { throw ValidationError("--all lists events, not a window's occurrences") }
    }

    func run() throws {
        withStore(database, access: .read, settings: output.common) { store, run in
            if let window {
                try store.occurrences(in: window, zone: zone.id) { try run.write($0) }
            } else {
                try store.events(changedAfter: changedAfter) { try run.write($0) }
            }
        }
    }
}

struct ParcelsCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "parcels", _superCommandName: "mailstore",
        abstract: "The parcels, as parcel-group writes them: each with its latest status, newest news first.")

    @Argument(help: ArgumentHelp("The database.", valueName: "db"))
    var database: String

    @OptionGroup var parcels: ParcelFilterOptions

    @Option(help: ArgumentHelp("Only those changed after this change counter.", valueName: "n"))
    var changedAfter: Int?

    @OptionGroup var output: OutputOptions

    func run() throws {
        let filter = parcels.filter
        withStore(database, access: .read, settings: output.common) { store, run in
            try store.parcels(filter, changedAfter: changedAfter) { try run.write($0) }
        }
    }
}

struct History: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "history", _superCommandName: "mailstore",
        abstract: "Apply Gmail API responses (history.list, messages.get, a full sync's messages.list); write what is still to fetch.",
        discussion: """
            Each input is one response as the API sends it, or one response per line. Label \
            changes and deletions change the messages they name, and only the conversations \
            they touch are derived again; a message resource (messages.get, format=minimal) \
            gives a stored message its labels. Every message still to fetch is written as \
            {gmail_id, thread_id, label_ids, format}: ask messages.get for that format; run a \
            raw one through mime-parse and the filters and add it, give a minimal one back to \
            this command. The list is kept until then. The last historyId is remembered \
            (mailstore config prints it). A response that is not the shape the API documents \
            changes nothing: the run exits 75 (try again later).
            """)

    @Argument(help: ArgumentHelp("The database.", valueName: "db"))
    var database: String

    @Flag(help: "A full sync: the inputs are users.getProfile's response and every messages.list page (includeSpamTrash=true); every listed message the database lacks is to fetch whole, every stored one with format=minimal (a message no page lists is removed when messages.get answers 404 for it, not before: pages shift).")
    var full = false

    @OptionGroup var common: CommonOptions

    func run() throws {
        withStore(database, access: .write, settings: common.settings) { store, run in
            try store.applyHistory(run, full: full)
            for m in try store.pendingFetches() { try run.write(m) }
        }
    }
}

/// Text from the command line fit to show on a terminal: its control characters left out.
func shown(_ text: String) -> String {
    String(String.UnicodeScalarView(text.unicodeScalars.filter { $0.properties.generalCategory != .control }))
}

/// One kept attachment written out.
struct AttachmentCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "attachment", _superCommandName: "mailstore",
        abstract: "Write one attachment of a stored message, as the database keeps it, to standard output or a file.",
        discussion: """
            mailstore attachment mail.db MESSAGE-ID 2 -o trail.pdf
            MESSAGE is the message's id (as the id: of a search and message_id of mailstore \
            pending name it); PART is the attachment's part in its record (2, 1.2), or #N, the \
            one at position N of the attachments table (0 for the first): a uuencoded file has no \
            part. The bytes are checked against their SHA-256 as they are written. Exit status: \
            0 written; 64 usage (standard output a terminal without -o); 65 the kept file does \
            not hold the bytes its SHA-256 names (with -o nothing is left); 66 no such database, \
            message or attachment; 69 the attachment is listed but not kept (over \
            --max-attachment when it came, a message stored before the database kept \
            attachments, or its file was removed); 73 FILE cannot be made; 74 an I/O error.
            """)

    @Argument(help: ArgumentHelp("The database.", valueName: "db"))
    var database: String

    @Argument(help: ArgumentHelp("The message's id.", valueName: "message"))
    var message: String

    @Argument(help: ArgumentHelp("The attachment's part (2, 1.2), or #N: the one at position N (from 0).", valueName: "part"))
    var part: String

    @Option(name: .customShort("o"), help: ArgumentHelp("Write it to this file (replaced whole, readable by you alone) rather than standard output.", valueName: "file"))
    var output: String?

    func validate() throws {
        if output?.isEmpty == true { throw ValidationError("-o: give a file") }
    }

    func run() throws {
        withStore(database, access: .read, settings: RunSettings(noProgress: true)) { store, run in
            let found: MailStore.StoredAttachment
            switch try store.attachment(messageID: message, part: part) {
            case .noMessage:
                run.diagnostics.error("no message \(shown(message)) in \(database)")
                throw Exit(.noInput)
            case .noAttachment:
                run.diagnostics.error("message \(shown(message)) has no attachment \(shown(part)) (give its part, as its record's attachments name it, or #N)")
                throw Exit(.noInput)
            case .found(let a):
                found = a
            }
            let name = "attachment \(shown(part)) of message \(shown(message))"
            guard found.kept, let sha = found.sha256 else {
                run.diagnostics.error("\(name) is listed but not kept: it was over --max-attachment when it came, or was stored before \(database) kept attachments")
                throw Exit(.unavailable)
            }
            guard found.file != nil else {
                run.diagnostics.error("\(name) was kept, but its file \(store.attachments.file(sha)) is gone")
                throw Exit(.unavailable)
            }
            guard let output else {
                if isatty(1) != 0 {
                    run.diagnostics.error("standard output is a terminal: give -o FILE, or send it to a file or a program")
                    throw Exit(.usage)
                }
                try finish(store.attachments.write(sha, to: 1), name, run)
                return
            }
            let temporary = output + ".tmp-\(getpid())"
            let fd = open(temporary, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0o600)
            guard fd >= 0 else {
                run.diagnostics.error("cannot make \(temporary): \(String(cString: strerror(errno)))")
                throw Exit(.cannotCreate)
            }
            var outcome = store.attachments.write(sha, to: fd)
            if outcome == .written && (fsync(fd) != 0 || close(fd) != 0) {
                outcome = .failed("\(output): \(String(cString: strerror(errno)))")
            } else if outcome != .written {
                close(fd)
            }
            if outcome == .written && rename(temporary, output) != 0 {
                outcome = .failed("cannot make \(output): \(String(cString: strerror(errno)))")
            }
            if outcome != .written { unlink(temporary) }
            try finish(outcome, name, run)
        }
    }

    private func finish(_ outcome: AttachmentFolder.WriteOut, _ name: String, _ run: FilterRun) throws {
        switch outcome {
        case .written: return
        case .missing:
            run.diagnostics.error("\(name) was kept, but its file is gone")
            throw Exit(.unavailable)
        case .damaged:
            run.diagnostics.error("\(name): the kept file does not hold the bytes its SHA-256 names (damaged on the disk?)")
            throw Exit(.dataError)
        case .failed(let why):
            run.diagnostics.error(why)
            throw Exit(.ioError)
        }
    }
}

struct MailStoreCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "mailstore",
        abstract: "The pipeline's records in a SQLite database kept current one message at a time, and asked in JSON Lines.",
        discussion: """
            Example:
              mime-parse mail.mbox | event-extract | html-sanitize | text-extract | carrier-detect | newsletter-detect | mailstore add --me me@example.com mail.db
              mailstore deliver --me me@example.com --journal log.jsonl mail.db < message.eml
              mailstore conversations mail.db --limit 20 | jq -r .snippet
              mailstore search mail.db 'from:alex is:unread 黑貓' --output ids
            See mailstore(1) and the database's tables in mailstore(5).
            """,
        version: mailpipeVersion,
        subcommands: subcommands)

    static let subcommands: [ParsableCommand.Type] = [Add.self, Deliver.self, StagesCommand.self, Config.self, ConversationsCommand.self, Messages.self, Search.self, Count.self,
                                                       Label.self, Mark.self, Pending.self, Send.self, Push.self, EventsCommand.self, ParcelsCommand.self, History.self, Compact.self,
                                                       AttachmentCommand.self]
}

// A subcommand is parsed on its own (each names "mailstore" as its super-command for its help):
// the parser of every subcommand, their options found by reflection, took a millisecond of
// each run, a tenth of a search.
let arguments = CommandLine.arguments.dropFirst()
if arguments.first == Deliver.configuration.commandName {
    // the stages' rules are made on a second core while the options are parsed and the
    // database, the journal and the message are opened: most of a delivery is its start
    Deliver.preparing = Background { Result { try Delivery(Diagnostics(program: "mailstore")) } }
}
if let name = arguments.first, let command = MailStoreCommand.subcommands.first(where: { $0.configuration.commandName == name }) {
    let rest = Array(arguments.dropFirst())
    command.main((command as? any QueryCommand.Type)?.queryArguments(rest) ?? rest)
} else {
    MailStoreCommand.main()
}
