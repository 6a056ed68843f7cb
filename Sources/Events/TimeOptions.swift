import ArgumentParser

/// The help of a command's --zone: what the zone is for there.
public protocol ZoneOptionHelp {
    static var zoneHelp: String { get }
}

/// --zone: the IANA time zone of a command's days and times, checked; without it TZ's, else
/// the system's. `Command` gives the help.
public struct ZoneOption<Command: ZoneOptionHelp>: ParsableArguments {
    @Option(help: ArgumentHelp(Command.zoneHelp, valueName: "zone"))
    var zone: String?

    public init() {}

    public func validate() throws {
        if let zone, !EventGroup.isKnownZone(zone) { throw ValidationError("--zone: unknown time zone '\(zone)'") }
    }

    /// The zone given, else the system's.
    public var id: String { zone ?? EventGroup.systemZone() }

    public var isGiven: Bool { zone != nil }
}

/// The times a command's --now takes.
public enum NowForm: Sendable {
    /// RFC 3339 in UTC (`…Z`) only.
    case utc
    /// RFC 3339; a date or a wall-clock time is read in UTC.
    case rfc3339
    /// RFC 3339, or a date or a wall-clock time in the command's --zone.
    case local

    var name: String {
        switch self {
        case .utc: "an RFC 3339 UTC time"
        case .rfc3339: "an RFC 3339 time"
        case .local: "a time"
        }
    }
}

/// The help of a command's --now and the times it takes.
public protocol NowOptionHelp {
    static var nowHelp: String { get }
    static var nowForm: NowForm { get }
}

/// --now: the time a command counts from instead of the clock, checked.
public struct NowOption<Command: NowOptionHelp>: ParsableArguments {
    @Option(help: ArgumentHelp(Command.nowHelp, valueName: "time"))
    var now: String?

    public init() {}

    public func validate() throws {
        guard let now else { return }
        // whether a wall-clock time is one does not depend on its zone (the zone is checked apart)
        let valid = Command.nowForm == .utc ? now.hasSuffix("Z") && instant() != nil : instant() != nil
        if !valid { throw ValidationError("--now: not \(Command.nowForm.name): '\(now)'") }
    }

    /// The time given, a date or a wall-clock time read in `zone`; nil without --now.
    public func instant(in zone: String = "UTC") -> Int? {
        now.flatMap { EventGroup.instant($0, zone: zone) }
    }
}
