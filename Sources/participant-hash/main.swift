import ArgumentParser
import Conversations
import UnixFilter

struct ParticipantHashCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "participant-hash",
        abstract: "Key each message by who it is with: participants, participant_hash, conversation_key.",
        discussion: """
            Participants are the normalized addresses in From, To and Cc, minus your own; a \
            discussion list is keyed on the list and a newsletter on its sender. The hash is the \
            hex SHA-256 of the participants joined by ','. See participant-hash(1) and mailpipe(5).

            Example:
              mime-parse mail.mbox | participant-hash --me me@example.com | jq -r .conversation_key | sort | uniq -c
            """,
        version: mailpipeVersion)

    @OptionGroup var common: CommonOptions

    @Option(name: .customLong("me"), help: ArgumentHelp("One of your addresses (repeatable).", valueName: "addr"))
    var me: [String] = []

    @Option(name: .customLong("me-file"), help: ArgumentHelp("A file of your addresses, one per line, # comments.", valueName: "file"))
    var meFile: [String] = []

    @Flag(name: .customLong("me-auto"), help: "Infer your addresses from the input (From of SENT messages, Delivered-To) and say what was inferred.")
    var meAuto = false

    @Option(name: .customLong("list"), help: ArgumentHelp("A discussion list's posting address (repeatable): mail to it, such as your replies, joins the list's conversation.", valueName: "addr"))
    var list: [String] = []

    @OptionGroup var addressFlags: AddressRuleFlags

    func validate() throws {
        if me.isEmpty && meFile.isEmpty && !meAuto {
            throw ValidationError("say who you are: --me ADDR, --me-file FILE or --me-auto")
        }
    }

    func run() throws {
        var tool = ParticipantHash()
        tool.me = me
        tool.meFiles = meFile
        tool.meAuto = meAuto
        tool.lists = list
        tool.rules = addressFlags.rules
        FilterRun.main(program: "participant-hash", options: common) { try tool.run($0) }
    }
}

ParticipantHashCommand.main()
