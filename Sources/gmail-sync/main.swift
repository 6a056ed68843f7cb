#if canImport(Glibc)
import Glibc
#endif
import ArgumentParser
import Events
import GmailSync
import MailStore
import UnixFilter

struct GmailSyncCommand: ParsableCommand, ZoneOptionHelp {
    static let configuration = CommandConfiguration(
        commandName: "gmail-sync",
        abstract: "One pass of Gmail's sync into the mailstore database: the first time every message, after that what Gmail's history says changed.",
        discussion: """
            The token is $GMAIL_TOKEN, or what $GMAIL_TOKEN_COMMAND prints, or an access token \
            the refresh token in $GMAIL_CREDENTIALS (a file readable by you alone) is exchanged \
            for; asked again once when Gmail answers 401. New messages go through the stages \
            into the database and the journal LOG ($MAILPIPE_LOG or ~/.mailpipe/messages.jsonl) \
            as mailpipe-log delivers them. No wait is longer than $GMAIL_SYNC_MAX_WAIT seconds \
            (default 900). Exit status: 0 all synced; 64 usage; 75 something is left for the \
            next pass; 77 Gmail refuses the token; 1 a local failure. See gmail-sync(1).

            Example:
              GMAIL_TOKEN_COMMAND='gcloud auth print-access-token' gmail-sync --site ~/mail-site
            """,
        version: mailpipeVersion)
    static let zoneHelp = "With --site: the IANA time zone times are shown in (default: TZ, else the system's)."

    @Option(help: ArgumentHelp("The mailstore database (default: $MAILPIPE_STORE, else ~/.mailpipe/mail.db).", valueName: "db"))
    var store: String?

    @Option(help: ArgumentHelp("Your address (repeat for each); remembered in the database. Default: the Gmail account's.", valueName: "addr"))
    var me: [String] = []

    @Option(help: ArgumentHelp("Then render the pages in this folder again where they changed, as mailpipe-site does.", valueName: "dir"))
    var site: String?

    @OptionGroup var zone: ZoneOption<GmailSyncCommand>

    @Flag(help: "List and fetch every message, whatever the database holds.")
    var full = false

    @Option(name: .customLong("max-attachment"), help: ArgumentHelp("Attachments larger than this are listed in the database, not kept in DB.attachments/ (default \(AttachmentFolder.defaultMaxBytes), 25 MiB).", valueName: "bytes"))
    var maxAttachment = AttachmentFolder.defaultMaxBytes

    @Option(help: ArgumentHelp("Pass after pass, this many seconds after the end of each, until SIGTERM or SIGINT, which end it between two passes.", valueName: "seconds"))
    var every: Double?

    @Argument(help: ArgumentHelp("The journal new messages are appended to (default: $MAILPIPE_LOG, else ~/.mailpipe/messages.jsonl).", valueName: "log"))
    var log: String?

    func validate() throws {
        if store?.isEmpty == true { throw ValidationError("--store: give a database") }
        if site?.isEmpty == true { throw ValidationError("--site: give a folder") }
        if me.contains(where: \.isEmpty) { throw ValidationError("--me: give an address") }
        if maxAttachment < 0 { throw ValidationError("--max-attachment: a number of bytes, 0 or more") }
        if let every, !(every > 0 && every <= 86400) { throw ValidationError("--every: a number of seconds, more than 0 and at most a day") }
    }

    mutating func run() throws {
        // with --every, SIGTERM and SIGINT wait for the end of the pass under way: blocked in
        // every thread (the pass's own are made later and inherit it), taken between passes
        var endings = sigset_t()
        sigemptyset(&endings)
        sigaddset(&endings, SIGTERM)
        sigaddset(&endings, SIGINT)
        if every != nil { pthread_sigmask(SIG_BLOCK, &endings, nil) }
        let environment = Environment()
        umask(0o077)
        setenv("SWIFT_BACKTRACE", "enable=no", 1)
        let home = environment["HOME"] ?? "."
        var settings = GmailSync.Settings(store: store ?? environment["MAILPIPE_STORE"] ?? "\(home)/.mailpipe/mail.db",
                                          log: log ?? environment["MAILPIPE_LOG"] ?? "\(home)/.mailpipe/messages.jsonl")
        settings.me = me
        settings.full = full
        settings.maxAttachment = maxAttachment
        if let site { settings.site = (site, zone.id) }
        if let api = environment["GMAIL_API"] { settings.api = api }
        settings.retries.tries = try environment.number("GMAIL_SYNC_TRIES", "a number of tries", default: 6, at: 1)
        settings.retries.maximumWait = try environment.number("GMAIL_SYNC_MAX_WAIT", "a number of seconds", default: 900, at: 0)
        if let backoff = environment["GMAIL_SYNC_BACKOFF"] {
            guard let seconds = Double(backoff), seconds >= 0 else { fail(64, "GMAIL_SYNC_BACKOFF is not a number of seconds") }
            settings.retries.backoff = seconds
        }
        let tokens: AccessTokens
        do {
            tokens = try AccessTokens(.init(token: environment["GMAIL_TOKEN"], command: environment["GMAIL_TOKEN_COMMAND"],
                                            credentialsFile: environment["GMAIL_CREDENTIALS"], tokenURI: environment["GMAIL_TOKEN_URI"]))
            // the programs this one starts (a token command) need none of them in their environment
            unsetenv("GMAIL_TOKEN")
            let sync = try GmailSync(settings, tokens: tokens)
            guard let every else { Glibc.exit(sync.pass()) }
            while true {
                let status = sync.pass()
                // a refusal or a usage error no later pass changes; what is temporary or local, the
                // next pass tries again
                if status == PassEnd.refused || status == PassEnd.usage { Glibc.exit(status) }
                var wait = timespec(tv_sec: Int(every), tv_nsec: Int((every - every.rounded(.down)) * 1e9))
                if sigtimedwait(&endings, nil, &wait) > 0 { Glibc.exit(0) }
            }
        } catch let end as PassEnd {
            fail(end.status, end.message)
        } catch {
            fail(1, "\(error)")
        }
    }
}

/// The process's environment, an empty value taken as unset.
struct Environment {
    subscript(name: String) -> String? {
        guard let value = getenv(name) else { return nil }
        let text = String(cString: value)
        return text.isEmpty ? nil : text
    }

    func number(_ name: String, _ what: String, default value: Int, at least: Int) throws -> Int {
        guard let text = self[name] else { return value }
        guard text.allSatisfy(\.isASCII), let n = Int(text), n >= least else { fail(64, "\(name) is not \(what)") }
        return n
    }
}

func fail(_ status: Int32, _ message: String?) -> Never {
    if let message { Diagnostics(program: "gmail-sync").note(message) }
    Glibc.exit(status)
}

// gmail-sync's usage errors as its script had them: the fault, then the usage line, 64
do {
    var command = try GmailSyncCommand.parseAsRoot()
    try command.run()
} catch {
    if GmailSyncCommand.exitCode(for: error) == .validationFailure {
        let message = GmailSyncCommand.message(for: error)
        Diagnostics(program: "gmail-sync").note(message.isEmpty ? "bad usage" : message)
        Diagnostics(program: "gmail-sync").write("usage: gmail-sync [--store DB] [--me ADDR]... [--site DIR] [--zone ZONE] [--full] [--max-attachment BYTES] [--every SECONDS] [LOG]\n")
        Glibc.exit(64)
    }
    GmailSyncCommand.exit(withError: error)
}
