import ArgumentParser
import Events
import UnixFilter

struct EventGroupCommand: ParsableCommand, ZoneOptionHelp {
    static let configuration = CommandConfiguration(
        commandName: "event-group",
        abstract: "Merge the events of a mailbox into a calendar: invitations, updates, replies and cancellations applied, one record per event.",
        discussion: """
            Reads records that event-extract has annotated, applies their events in date order \
            as a calendar client applies iTIP (RFC 5546), and writes each event's current state \
            with the messages about it. With --from/--to or --agenda, writes the occurrences \
            in that window instead, recurring events expanded. See event-group(1).

            Example:
              mime-parse mail.mbox | event-extract | event-group --agenda | jq -r '[.occurrence_start, .summary] | @tsv'
            """,
        version: mailpipeVersion)

    @OptionGroup var common: CommonOptions

    @Option(help: ArgumentHelp("Write the occurrences from this date or time on (YYYY-MM-DD, YYYY-MM-DDTHH:MM:SS in --zone, or RFC 3339 with Z).", valueName: "date"))
    var from: String?

    @Option(help: ArgumentHelp("… up to (not including) this date or time.", valueName: "date"))
    var to: String?

    @Flag(help: "Write today's occurrences (today in --zone): the day's agenda.")
    var agenda = false

    @Option(help: ArgumentHelp("The day --agenda shows (default: today).", valueName: "YYYY-MM-DD"))
    var today: String?

    static let zoneHelp = "The IANA time zone of dates given here and of all-day and floating events (default: TZ, else the system's)."
    @OptionGroup var zone: ZoneOption<EventGroupCommand>

    @Option(help: ArgumentHelp("Also write the calendar as an iCalendar file that calendar applications import.", valueName: "file"))
    var ics: String?

    func validate() throws {
        if agenda && (from != nil || to != nil) { throw ValidationError("--agenda is a window of its own: give it or --from/--to") }
        if today != nil && !agenda { throw ValidationError("--today goes with --agenda") }
        if (from == nil) != (to == nil) { throw ValidationError("--from and --to go together") }
        for (name, value) in [("--from", from), ("--to", to), ("--today", today)] {
            if let value, EventGroup.instant(value, zone: zone.id) == nil { throw ValidationError("\(name): not a date: '\(value)'") }
        }
        if let from, let to, EventGroup.instant(from, zone: zone.id)! >= EventGroup.instant(to, zone: zone.id)! {
            throw ValidationError("--to must come after --from")
        }
    }

    func run() throws {
        var tool = EventGroup()
        let zone = self.zone.id
        tool.zone = zone
        tool.icsPath = ics
        if let from, let to {
            tool.window = EventGroup.instant(from, zone: zone)!..<EventGroup.instant(to, zone: zone)!
        } else if agenda {
            tool.window = EventGroup.day(today ?? EventGroup.today(zone: zone), zone: zone)
        }
        FilterRun.main(program: "event-group", options: common) { try tool.run($0) }
    }
}

EventGroupCommand.main()
