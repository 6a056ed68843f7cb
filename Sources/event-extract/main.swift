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
            link, and the defects found. See event-extract(1) and mailpipe(5).

            Example:
              mime-parse mail.mbox | event-extract | jq -c '.events[] | {summary, start, method}'
            """,
        version: mailpipeVersion)

    @OptionGroup var common: CommonOptions

    @Option(name: .customLong("floating-zone"), help: ArgumentHelp("Read times written with no zone in this IANA zone (default: leave them floating, start and end null).", valueName: "zone"))
    var floatingZone: String?

    func validate() throws {
        if let floatingZone, !EventExtract.isKnownZone(floatingZone) { throw ValidationError("--floating-zone: unknown time zone '\(floatingZone)'") }
    }

    func run() throws {
        var tool = EventExtract()
        tool.floatingZone = floatingZone
        FilterRun.main(program: "event-extract", options: common) { try tool.run($0) }
    }
}

EventExtractCommand.main()
