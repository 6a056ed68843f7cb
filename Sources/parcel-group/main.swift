import ArgumentParser
import Events
import Parcels
import UnixFilter

struct ParcelGroupCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "parcel-group",
        abstract: "Gather a mailbox's shipments into parcels: one record per parcel, with its latest status and its history.",
        discussion: """
            Reads records that carrier-detect has annotated and writes one record per parcel \
            (a carrier and tracking number, or a store pickup known only by its code): its status \
            (the latest by when it happened; a finished parcel is not reopened by mail that comes \
            late), the statuses its mail told, its pickup store, code and deadline, the expected \
            delivery date and its messages. Newest news first. See parcel-group(1).

            Example:
              mime-parse mail.mbox | text-extract | carrier-detect | parcel-group --open | jq -r '[.status, .carrier, .tracking_number] | @tsv'
            """,
        version: mailpipeVersion)

    @OptionGroup var common: CommonOptions

    @Flag(help: "Only parcels still coming or waiting: not delivered, picked up or returned, with news in the last --within days.")
    var open = false

    @Option(help: ArgumentHelp("With --open: how many days without news a parcel stays open (default 60).", valueName: "days"))
    var within: Int?

    @Option(help: ArgumentHelp("Only the parcels due that day: pickups whose deadline it is and deliveries expected then (today, tomorrow or YYYY-MM-DD in --zone).", valueName: "day"))
    var agenda: String?

    @Option(help: ArgumentHelp("The time --open counts from (RFC 3339; default: the clock).", valueName: "time"))
    var now: String?

    @Option(help: ArgumentHelp("The IANA time zone of today and tomorrow (default: TZ, else the system's).", valueName: "zone"))
    var zone: String?

    var effectiveZone: String { zone ?? EventGroup.systemZone() }

    func validate() throws {
        if let zone, !EventGroup.isKnownZone(zone) { throw ValidationError("--zone: unknown time zone '\(zone)'") }
        if within != nil && !open { throw ValidationError("--within goes with --open") }
        if let within, within < 0 { throw ValidationError("--within: not a number of days: \(within)") }
        if let now, EventGroup.instant(now, zone: "UTC") == nil || !now.hasSuffix("Z") { throw ValidationError("--now: not an RFC 3339 UTC time: '\(now)'") }
        if let agenda, EventGroup.agendaDay(agenda, zone: effectiveZone) == nil {
            throw ValidationError("--agenda: not a day: '\(agenda)' (today, tomorrow or YYYY-MM-DD)")
        }
    }

    func run() throws {
        var tool = ParcelGroup()
        tool.openOnly = open
        if let within { tool.openWithin = within * 86_400 }
        if let now { tool.now = EventGroup.instant(now, zone: "UTC")! }
        tool.agendaDay = agenda.flatMap { EventGroup.agendaDay($0, zone: effectiveZone) }
        FilterRun.main(program: "parcel-group", options: common) { try tool.run($0) }
    }
}

ParcelGroupCommand.main()
