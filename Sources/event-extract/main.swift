import ArgumentParser
import Events
import UnixFilter

struct EventExtractCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "event-extract",
        abstract: "Find the events a message carries: invitations, updates and cancellations, as calendar events.",
        discussion: """
            Every VEVENT of the message's calendar parts (text/calendar, application/ics, .ics \
            files) is read with libical: uid, sequence, method, status, start and end in UTC and \
            on the wall clock of their zone, recurrence, organizer and attendees, the meeting \
            link, and the defects found. Bookings are read from the schema.org markup of the \
            sender's HTML, and appointments confirmed in plain text from the new text, with a \
            confidence; a prescription ready to collect or due to reorder becomes an all-day \
            event of kind prescription on the day to act by, the pharmacy as its location \
            (words in ~/.config/mailpipe/prescription-words.json add to the built-in ones). A \
            date in digits alone (08/04/2026) is read day or month first as the message's \
            Content-Language, the sender's country domain or the text's words say; one nothing \
            orders makes no event and is listed in unread_dates. See event-extract(1) and \
            mailpipe(5).

            Example:
              mime-parse mail.mbox | event-extract | jq -c '.events[] | {summary, start, method}'
            """,
        version: mailpipeVersion)

    @OptionGroup var common: CommonOptions

    @Option(name: .customLong("floating-zone"), help: ArgumentHelp("Read times written with no zone in this IANA zone (default: leave them floating, start and end null).", valueName: "zone"))
    var floatingZone: String?

    @Option(name: .customLong("min-confidence"), help: ArgumentHelp("Leave out appointments and prescriptions read from plain text below this confidence (0 to 1, default 0.6).", valueName: "c"))
    var minConfidence = 0.6

    @Option(name: .customLong("words"), help: ArgumentHelp("Extra appointment words: a JSON file (or folder of them) with appointment-words.json's shape (repeatable).", valueName: "file"))
    var words: [String] = []

    @Option(name: .customLong("patterns"), help: ArgumentHelp("Extra reply patterns, as text-extract's --patterns: where a message's new text ends (repeatable).", valueName: "file"))
    var patterns: [String] = []

    func validate() throws {
        guard (0...1).contains(minConfidence) else { throw ValidationError("--min-confidence must be between 0 and 1") }
        if let floatingZone, !EventExtract.isKnownZone(floatingZone) { throw ValidationError("--floating-zone: unknown time zone '\(floatingZone)'") }
    }

    func run() throws {
        var tool = EventExtract()
        tool.floatingZone = floatingZone
        tool.minimumConfidence = minConfidence
        tool.wordFiles = words
        tool.patternFiles = patterns
        FilterRun.main(program: "event-extract", options: common) { try tool.run($0) }
    }
}

EventExtractCommand.main()
