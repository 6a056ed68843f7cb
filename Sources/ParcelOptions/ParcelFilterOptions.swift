import ArgumentParser
import Events
import Parcels

/// The options that choose parcels (parcel-group's, and mailstore parcels'): --open, --within,
/// --agenda, --now and --zone, read into a `ParcelGroup` that keeps those parcels.
public struct ParcelFilterOptions: ParsableArguments, ZoneOptionHelp, NowOptionHelp {
    @Flag(help: "Only parcels still coming or waiting: not delivered, picked up or returned, with news in the last --within days.")
    var open = false

    @Option(help: ArgumentHelp("With --open: how many days without news a parcel stays open (default \(ParcelGroup.openDays)).", valueName: "days"))
    var within: Int?

    @Option(help: ArgumentHelp("Only the parcels due that day: pickups whose deadline it is and deliveries expected then (today, tomorrow or YYYY-MM-DD in --zone).", valueName: "day"))
    var agenda: String?

    public static let nowHelp = "The time --open counts from (RFC 3339; default: the clock)."
    public static let nowForm = NowForm.utc
    @OptionGroup var now: NowOption<ParcelFilterOptions>

    public static let zoneHelp = "The IANA time zone of today and tomorrow (default: TZ, else the system's)."
    @OptionGroup var zone: ZoneOption<ParcelFilterOptions>

    public init() {}

    public func validate() throws {
        if within != nil && !open { throw ValidationError("--within goes with --open") }
        if let within, within < 0 { throw ValidationError("--within: not a number of days: \(within)") }
        if let agenda, EventGroup.agendaDay(agenda, zone: zone.id) == nil {
            throw ValidationError("--agenda: not a day: '\(agenda)' (today, tomorrow or YYYY-MM-DD)")
        }
    }

    /// A parcel-group that keeps the parcels these options ask for.
    public var filter: ParcelGroup {
        var tool = ParcelGroup()
        tool.openOnly = open
        if let within { tool.openWithin = within * 86_400 }
        if let now = now.instant() { tool.now = now }
        tool.agendaDay = agenda.flatMap { EventGroup.agendaDay($0, zone: zone.id) }
        return tool
    }
}
