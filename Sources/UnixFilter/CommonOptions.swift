import ArgumentParser

/// What happens to a record that cannot be processed.
public enum OnError: String, ExpressibleByArgument, CaseIterable, Sendable {
    /// Leave it out, say so on stderr, count it.
    case skip
    /// Stop the run (exit 65).
    case fail
    /// Write it on with an `errors` field naming what went wrong.
    case pass
}

/// Options every tool takes.
public struct CommonOptions: ParsableArguments {
    @Argument(help: ArgumentHelp("Input files; '-' or none reads standard input.", valueName: "file"))
    public var inputs: [String] = []

    @Option(name: .customLong("on-error"), help: "What to do with a record that cannot be processed: skip, fail or pass.")
    public var onError: OnError = .skip

    @Flag(help: "Treat malformed input as an error: stop at the first bad record and exit 65.")
    public var strict = false

    @Flag(name: .customLong("line-buffered"), help: "Flush after every record (the default when standard output is a terminal).")
    public var lineBuffered = false

    @Flag(name: .customLong("no-progress"), help: "Never show the progress line on a terminal.")
    public var noProgress = false

    public init() {}

    /// The options a command line gives, for a program that runs a filter without its command
    /// (the fuzzers): the property wrappers hold values only once parsed.
    public static func from(arguments: [String]) throws -> CommonOptions { try parse(arguments) }

    /// The effective error policy: `--strict` means fail.
    public var errorPolicy: OnError { strict ? .fail : onError }

    public var settings: RunSettings {
        RunSettings(inputs: inputs, policy: errorPolicy, strict: strict, lineBuffered: lineBuffered, noProgress: noProgress)
    }
}

/// What a run of a filter is told by its common options, as values: a command without them sets
/// these itself (parsing a command line costs a one-message process 3M instructions).
public struct RunSettings: Sendable {
    public var inputs: [String] = []
    public var policy: OnError = .skip
    /// `--strict`: malformed input is an error (mime-parse's defects too).
    public var strict = false
    public var lineBuffered = false
    public var noProgress = false

    public init(inputs: [String] = [], policy: OnError = .skip, strict: Bool = false, lineBuffered: Bool = false, noProgress: Bool = false) {
        (self.inputs, self.policy, self.strict, self.lineBuffered, self.noProgress) = (inputs, policy, strict, lineBuffered, noProgress)
    }
}
