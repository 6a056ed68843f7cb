#if canImport(Glibc)
import Glibc
#endif
import ArgumentParser
import Compose
import Conversations
import Events
import MailSubject
import UnixFilter

struct MailComposeCommand: ParsableCommand, ZoneOptionHelp, NowOptionHelp {
    static let configuration = CommandConfiguration(
        commandName: "mail-compose",
        abstract: "Write replies, forwards, RSVPs and new mail from JSON Lines requests.",
        discussion: """
            Each input line is a request: {"reply": ID, "text": …} (with "all": true for \
            reply-all), {"conversation": ID, "text": …}, {"forward": ID, "to": […]}, {"rsvp": ID, \
            "partstat": "accepted"}, or a new message with to, cc, bcc, subject and text. The \
            messages answered are read from a mailstore database or a records file. See \
            mail-compose(1) for every field and rule.

            Example:
              echo '{"reply": "CAF1-alex-0001@mail.example.com", "text": "Yes, 6:30!"}' | mail-compose | msmtp -t
            """,
        version: mailpipeVersion)
    static let zoneHelp = "The time zone of the Date header (default: TZ's, else the system's)."
    static let nowHelp = "Date the messages at this time instead of the clock's (RFC 3339)."
    static let nowForm = NowForm.rfc3339

    @OptionGroup var common: CommonOptions

    @Option(name: .customLong("store"), help: ArgumentHelp("The mailstore database the answered messages are read from (default: $MAILPIPE_STORE, else ~/.mailpipe/mail.db, when it exists).", valueName: "db"))
    var store: String?

    @Option(name: .customLong("records"), help: ArgumentHelp("Read the answered messages from this file of records instead of a store.", valueName: "file"))
    var records: String?

    @Option(name: .customLong("me"), help: ArgumentHelp("One of your addresses (repeatable); the store's are added. The first is new mail's From.", valueName: "addr"))
    var me: [String] = []

    @Option(name: .customLong("name"), help: ArgumentHelp("Your display name in From.", valueName: "name"))
    var name: String?

    @Flag(name: .customLong("quote"), help: "Quote the original below the text of a reply (\"On …, NAME wrote:\" and \"> \" lines).")
    var quote = false

    @Flag(name: .customLong("to-list"), help: "Send replies to list mail to the list's posting address (List-Post).")
    var toList = false

    @Flag(name: .customLong("to-author"), help: "Send replies to list mail to its author (From), whatever Reply-To and Mail-Followup-To say.")
    var toAuthor = false

    @Flag(name: .customLong("mbox"), help: "Write every message, as an mbox, to standard output.")
    var mbox = false

    @Option(name: .customLong("maildir"), help: ArgumentHelp("Write each message into this maildir (tmp/, then cur/).", valueName: "dir"))
    var maildir: String?

    @Flag(name: .customLong("gmail"), help: "Write {\"raw\", \"threadId\"} lines for Gmail's users.messages.send.")
    var gmail = false

    @Flag(name: .customLong("record"), help: "Also write mime-parse's record of each message (with --maildir: a line on standard output; with --gmail: the line's record).")
    var record = false

    @OptionGroup var zone: ZoneOption<MailComposeCommand>
    @OptionGroup var now: NowOption<MailComposeCommand>
    @OptionGroup var addressFlags: AddressRuleFlags

    func validate() throws {
        if [mbox, maildir != nil, gmail].filter({ $0 }).count > 1 { throw ValidationError("--mbox, --maildir and --gmail: one at most") }
        if toList && toAuthor { throw ValidationError("--to-list or --to-author, not both") }
        if record && maildir == nil && !gmail { throw ValidationError("--record needs --maildir or --gmail (standard output holds the message)") }
        if store != nil && records != nil { throw ValidationError("--store or --records, not both") }
    }

    func run() throws {
        FilterRun.main(program: "mail-compose", options: common) { run in
            var originals: Originals?
            var rules = addressFlags.rules
            var addresses = me
            if let records {
                do { originals = try RecordsFileOriginals(path: records) } catch {
                    run.diagnostics.error("\(error)")
                    throw Exit(.noInput)
                }
            } else if let path = store ?? Self.defaultStore() {
                do {
                    let s = try StoreOriginals(path: path)
                    originals = s
                    addresses += try s.ownAddresses()
                    rules = s.rules(with: addressFlags)
                } catch {
                    run.diagnostics.error("\(path): \(error)")
                    throw Exit(.noInput)
                }
            }
            let composer = Composer(originals: originals, me: addresses, rules: rules, prefixes: try SubjectPrefixes.load(run.diagnostics),
                                    zone: zone.id, now: now.instant(in: zone.id))
            composer.name = name
            composer.quote = quote
            composer.listReply = toList ? .list : toAuthor ? .author : .sender
            var tool = MailCompose()
            tool.output = mbox ? .mbox : gmail ? .gmail : maildir.map { .maildir($0) } ?? .single
            tool.record = record
            try tool.run(run, composer: composer)
        }
    }

    /// $MAILPIPE_STORE, else ~/.mailpipe/mail.db, as the hooks use; nil when it does not exist.
    static func defaultStore() -> String? {
        let path = getenv("MAILPIPE_STORE").map { String(cString: $0) }
            ?? getenv("HOME").map { String(cString: $0) + "/.mailpipe/mail.db" }
        guard let path, access(path, F_OK) == 0 else { return nil }
        return path
    }
}

MailComposeCommand.main()
