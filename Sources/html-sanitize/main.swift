import ArgumentParser
import Sanitize
import UnixFilter

extension RemoteImages: ExpressibleByArgument {
    public init?(argument: String) {
        switch argument {
        case "keep": self = .keep
        case "block": self = .block
        default:
            guard argument.hasPrefix("proxy:"), argument.contains("{url}") else { return nil }
            self = .proxy(template: String(argument.dropFirst("proxy:".count)))
        }
    }

    public static var defaultCompletionKind: CompletionKind { .list(["keep", "block", "proxy:"]) }
}

struct HTMLSanitizeCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "html-sanitize",
        abstract: "Make each message's html safe to show: nothing that runs, navigates or tells the sender it was read.",
        discussion: """
            Only the elements, attributes, URL schemes and CSS that mail uses for layout are kept; \
            tracking pixels and tracking parameters of links are removed; remote images are \
            blocked unless asked for (their URL kept in data-remote-src). html is replaced and a \
            sanitize object says what went. Tracker hosts, pixel URL shapes and link parameters \
            are data: add your own with --trackers or ~/.config/mailpipe/trackers.json. See \
            html-sanitize(1) and mailpipe(5).

            Examples:
              mime-parse mail.mbox | html-sanitize | jq -r .html
              mime-parse mail.mbox | html-sanitize | jq -r 'select(.sanitize.trackers_removed > 0) | .subject'
              html-sanitize --html --remote-images=keep < newsletter.html > safe.html
            """,
        version: mailpipeVersion)

    @OptionGroup var common: CommonOptions

    @Option(name: .customLong("remote-images"),
            help: ArgumentHelp("keep, block, or proxy:TEMPLATE with {url} where the image's URL goes (percent-encoded).", valueName: "policy"))
    var remoteImages: RemoteImages = .block

    @Flag(name: .customLong("html"), help: "Read HTML documents instead of JSON Lines and write the sanitized HTML.")
    var htmlOnly = false

    @Option(name: .customLong("wrapper-class"), help: ArgumentHelp("The class of the div the message is wrapped in and its styles scoped to.", valueName: "name"))
    var wrapperClass = "mailpipe-body"

    @Option(name: .customLong("trackers"), help: ArgumentHelp("Extra tracker data: a JSON file (or folder of them) with trackers.json's keys (repeatable).", valueName: "file"))
    var trackers: [String] = []

    func validate() throws {
        guard !wrapperClass.isEmpty, wrapperClass.utf8.allSatisfy({ ($0 | 0x20) >= 0x61 && ($0 | 0x20) <= 0x7A || $0 >= 0x30 && $0 <= 0x39 || $0 == UInt8(ascii: "-") || $0 == UInt8(ascii: "_") }) else {
            throw ValidationError("--wrapper-class: letters, digits, '-' and '_' only")
        }
    }

    func run() throws {
        var tool = HTMLSanitize()
        tool.options.remoteImages = remoteImages
        tool.options.wrapperClass = wrapperClass
        tool.trackerFiles = trackers
        FilterRun.main(program: "html-sanitize", options: common) { run in
            if htmlOnly { try tool.runOnPages(run) } else { try tool.run(run) }
        }
    }
}

HTMLSanitizeCommand.main()
