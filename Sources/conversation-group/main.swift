import ArgumentParser
import Conversations
import Events
import UnixFilter

extension ConversationGroup.Grouping: ExpressibleByArgument {}
extension ConversationGroup.SortOrder: ExpressibleByArgument {}

struct ConversationGroupCommand: ParsableCommand, NowOptionHelp {
    static let configuration = CommandConfiguration(
        commandName: "conversation-group",
        abstract: "Group annotated messages into conversations, one JSON record per conversation.",
        discussion: """
            Reads records that participant-hash has keyed and writes conversations, newest \
            first, each with its participants, counts, dates, last snippet, labels, shipments \
            and whether it is archived. See conversation-group(1) and mailpipe(5).

            Example:
              mime-parse mail.mbox | participant-hash --me-auto | conversation-group | jq -r 'select(.archived | not) | .conversation_id'
            """,
        version: mailpipeVersion)

    @OptionGroup var common: CommonOptions

    @Option(help: ArgumentHelp("Group by participants (default) or by thread.", valueName: "participants|thread"))
    var by: ConversationGroup.Grouping = .participants

    @Flag(name: .customLong("subject-fallback"), help: "With --by thread, join threads that have the same subject (less Re:, Fwd:).")
    var subjectFallback = false

    @Option(name: .customLong("max-gap"), help: ArgumentHelp("Start a new conversation after this long a silence: 30d, 12h, 90m, 2w.", valueName: "duration"))
    var maxGap: String?

    @Option(help: ArgumentHelp("Order: last-date (newest first, the default), first-date, count or input.", valueName: "order"))
    var sort: ConversationGroup.SortOrder = .lastDate

    @Flag(help: "Put the whole message records in a 'messages' array instead of 'message_ids'.")
    var embed = false

    @Flag(help: "The input is sorted by participant_hash: write each conversation as soon as the next begins (memory of one conversation; output in input order).")
    var sorted = false

    static let nowHelp = "The time events are upcoming from, RFC 3339 (default: now)."
    static let nowForm = NowForm.rfc3339
    @OptionGroup var now: NowOption<ConversationGroupCommand>

    @OptionGroup(title: "Address rules (give the same as to participant-hash)") var addressFlags: AddressRuleFlags

    func validate() throws {
        if let maxGap, Duration.seconds(maxGap) == nil { throw ValidationError("--max-gap: not a duration: '\(maxGap)' (use 30d, 12h, 90m, 45s or 2w)") }
        if sorted && by == .thread { throw ValidationError("--sorted works with --by participants only") }
    }

    func run() throws {
        var tool = ConversationGroup()
        tool.grouping = by
        tool.subjectFallback = subjectFallback
        tool.maxGap = maxGap.flatMap(Duration.seconds)
        tool.sort = sort
        tool.embed = embed
        tool.sorted = sorted
        tool.rules = addressFlags.rules
        if let now = now.instant() { tool.now = now }
        FilterRun.main(program: "conversation-group", options: common) { try tool.run($0) }
    }
}

ConversationGroupCommand.main()
