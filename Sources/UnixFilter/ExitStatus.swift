/// Exit statuses shared by every tool (sysexits.h values where one fits).
public enum ExitStatus: Int32, Sendable {
    case ok = 0
    /// Some records failed and were skipped or passed on, but the run went on.
    case someRecordsFailed = 1
    case usage = 64
    /// Bad data with `--strict` or `--on-error=fail`.
    case dataError = 65
    case noInput = 66
    /// What was asked for is known but not there to give (EX_UNAVAILABLE).
    case unavailable = 69
    /// A folder to write in that is not the user's alone (EX_CANTCREAT).
    case cannotCreate = 73
    case ioError = 74
    /// Temporary failure: procmail and fetchmail requeue the message.
    case temporaryFailure = 75
}

/// Raised to end a run with a given status after its message was reported.
public struct Exit: Error, Sendable {
    public var status: ExitStatus
    public init(_ status: ExitStatus) { self.status = status }
}
