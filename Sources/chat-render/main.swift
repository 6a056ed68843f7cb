import ArgumentParser
import ChatSite
import Events
import MailStore
import UnixFilter

struct ChatRenderCommand: ParsableCommand, ZoneOptionHelp, NowOptionHelp {
    static let configuration = CommandConfiguration(
        commandName: "chat-render",
        abstract: "Write conversations as a static site a person can read: a chat app's list and bubbles, no script.",
        discussion: """
            Reads conversation-group's conversations (--conversations) and the message records \
            they hold (the inputs), and writes into --out an index of conversations, a page per \
            conversation, a Today page, lists of newsletters, discussion lists, parcels, events \
            and archived conversations, and a stylesheet. Pages that would not change are not written. \
            Kept attachments (saved_as) are shown from copies in the site: images as pictures that \
            mail-thumbnail makes (the program in MAILPIPE_THUMBNAIL, else beside this one, else on \
            PATH; without it they are files), other files as cards, a type that runs in a browser \
            only as a download. See chat-render(1).

            Example:
              conversation-group < messages.jsonl > conversations.jsonl
              chat-render --conversations conversations.jsonl --out site messages.jsonl
              chat-render --store ~/.mailpipe/mail.db --out site
            """,
        version: mailpipeVersion)

    @OptionGroup var common: CommonOptions

    @Option(help: ArgumentHelp("conversation-group's output (without --embed).", valueName: "file"))
    var conversations: String?

    @Option(help: ArgumentHelp("parcel-group's output for the same mail: each parcel card shows its parcel's latest status (without it, the mail's own).", valueName: "file"))
    var parcels: String?

    @Option(help: ArgumentHelp("Render a mailstore database instead of files: only what changed since the site's last render.", valueName: "db"))
    var store: String?

    @Option(help: ArgumentHelp("The folder to write the site into (made if missing).", valueName: "dir"))
    var out: String

    @Flag(help: "With --store: when another run is rendering the site, leave it due to that run (which renders again before it stops) and return at once, instead of waiting for its turn.")
    var takeTurns = false

    @Flag(help: "With --store: render in a process of its own once the site's turn comes, returning at once (for hooks); its errors are appended to the site's .mailpipe-site.log.")
    var background = false

    static let zoneHelp = "The IANA time zone times are shown in (default: TZ, else the system's)."
    @OptionGroup var zone: ZoneOption<ChatRenderCommand>

    static let nowHelp = "The time events are upcoming from: RFC 3339, or a date or wall-clock time in --zone (default: the clock)."
    static let nowForm = NowForm.local
    @OptionGroup var now: NowOption<ChatRenderCommand>

    @Flag(help: "Let images from the web load (as html-sanitize left them: through its proxy, or not at all).")
    var remoteImages = false

    @Option(help: ArgumentHelp("A folder of templates and a stylesheet to use instead of the built-in ones (any of page.html, item.html, bubble.html, parcel.html, event.html, forward.html, style.css).", valueName: "dir"))
    var templates: String?

    @Option(help: ArgumentHelp("The language of the pages' words and dates: a BCP 47 tag (en, de, ja, zh-Hant or zh-TW, zh-Hans or zh-CN, or one of $XDG_CONFIG_HOME/mailpipe/site-words.json's); default: the locale (LC_ALL, LC_MESSAGES, LANG), else English.", valueName: "tag"),
            completion: .list(["en", "de", "ja", "zh-Hant", "zh-Hans", "zh-TW", "zh-CN"]))
    var lang: String?

    @Option(help: ArgumentHelp("Messages on one page of a conversation.", valueName: "n"))
    var messagesPerPage = 500

    @Option(help: ArgumentHelp("Conversations, parcels or events on one page of a list.", valueName: "n"))
    var listPageSize = 200

    func validate() throws {
        if messagesPerPage < 1 || listPageSize < 1 { throw ValidationError("page sizes must be at least 1") }
        if out.isEmpty { throw ValidationError("--out: give a folder") }
        if let lang, lang.isEmpty { throw ValidationError("--lang: give a language tag, as de or zh-TW") }
        if (conversations == nil) == (store == nil) { throw ValidationError("give --conversations and the message files, or --store") }
        if store != nil && !common.inputs.isEmpty { throw ValidationError("--store renders the database: give no message files") }
        if store != nil && parcels != nil { throw ValidationError("--store has its parcels: give no --parcels") }
        if store == nil && (takeTurns || background) { throw ValidationError("--take-turns and --background: only with --store") }
    }

    func run() throws {
        var tool = ChatRender()
        tool.conversationsPath = conversations ?? ""
        tool.parcelsPath = parcels
        tool.out = out
        tool.zone = zone.id
        if let now = now.instant(in: tool.zone) { tool.now = now }
        tool.remoteImages = remoteImages
        tool.messagesPerPage = messagesPerPage
        tool.listPageSize = listPageSize
        if let templates {
            do { tool.templates = try SiteTemplates.load(directory: templates) } catch {
                Diagnostics(program: "chat-render").error(error.description)
                throw ExitCode(ExitStatus.usage.rawValue)
            }
        }
        if let store {
            FilterRun.main(program: "chat-render", options: common) {
                tool.words = try SiteWords.chosen(lang: lang, $0.diagnostics)
                try tool.run(storeAt: store, waiting: !takeTurns, background: background, $0)
            }
        }
        FilterRun.main(program: "chat-render", options: common) {
            tool.words = try SiteWords.chosen(lang: lang, $0.diagnostics)
            try tool.run($0)
        }
    }
}

ChatRenderCommand.main()
