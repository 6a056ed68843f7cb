#if canImport(Glibc)
import Glibc
#endif
import CLibcExtras
import JSONLines

/// The state of one run of a tool: where records go, how failures are handled and counted, and
/// the exit status they add up to.
public final class FilterRun {
    public let diagnostics: Diagnostics
    public let output: OutputStream
    public let settings: RunSettings
    public var policy: OnError { settings.policy }
    public private(set) var recordsWritten = 0
    private var worst: ExitStatus = .ok

    public init(program: String, settings: RunSettings) {
        signal(SIGPIPE, SIG_DFL)  // `tool | head` ends quietly
        // Records and decoded attachments are often over glibc's 128 KiB mmap threshold: keep
        // them in the heap instead of mapping and unmapping pages for every message.
        mp_keep_large_allocations_in_heap(32 << 20)
        self.settings = settings
        diagnostics = Diagnostics(program: program)
        output = OutputStream(lineBuffered: settings.lineBuffered)
    }

    public convenience init(program: String, options: CommonOptions) {
        self.init(program: program, settings: options.settings)
    }

    /// The inputs named on the command line, or standard input.
    public var inputNames: [String] { settings.inputs.isEmpty ? ["-"] : settings.inputs }

    /// Opens each input in turn; a missing input is reported and the run goes on.
    public func forEachInput(_ body: (Input) throws -> Void) throws {
        for name in inputNames {
            let input: Input
            do {
                input = try Input.open(name)
            } catch {
                diagnostics.error(error.description, file: name)
                raise(error.status)
                continue
            }
            defer { input.close() }
            try body(input)
        }
    }

    public func write(_ record: [UInt8]) throws {
        do {
            try output.writeLine(record)
        } catch {
            diagnostics.error(error.description)
            throw Exit(.ioError)
        }
        recordsWritten += 1
    }

    /// A record could not be processed. Skips it, passes it on with an `errors` field, or ends
    /// the run, as the policy says. `record` is the record to pass on (nil when there is none).
    public func recordFailed(_ message: String, file: String, line: Int?, record: JSONRecord?, rawLine: [UInt8]? = nil) throws {
        diagnostics.error(message, file: file, line: line)
        switch policy {
        case .fail:
            throw Exit(.dataError)
        case .skip:
            diagnostics.countSkipped()
        case .pass:
            diagnostics.countPassed()
            var errors = JSONWriter()
            errors.beginArray()
            errors.string(message)
            errors.endArray()
            if let record {
                try write(record.updated([("errors", errors.bytes)]))
            } else {
                var w = JSONWriter()
                w.beginObject()
                w.key("errors")
                w.raw(errors.bytes)
                if let rawLine {
                    w.key("invalid_line")
                    w.string(String(decoding: rawLine, as: UTF8.self))  // invalid bytes become U+FFFD
                }
                w.endObject()
                try write(w.bytes)
            }
        }
        raise(.someRecordsFailed)
    }

    /// Records a status; the most serious one is the exit status.
    public func raise(_ status: ExitStatus) {
        if rank(status) > rank(worst) { worst = status }
    }

    private func rank(_ s: ExitStatus) -> Int {
        switch s {
        case .ok: 0
        case .someRecordsFailed: 1
        case .noInput, .unavailable: 2
        case .dataError: 3
        case .cannotCreate, .ioError: 4
        case .temporaryFailure: 5
        case .usage: 6
        }
    }

    /// Flushes, prints the summary, and gives the exit status.
    public func finish() -> ExitStatus {
        do {
            try output.flush()
        } catch {
            diagnostics.error(error.description)
            raise(.ioError)
        }
        if let summary = diagnostics.summary() { diagnostics.write(summary + "\n") }
        return worst
    }

    /// Runs `body` and exits the process with the status it comes to.
    public static func main(program: String, options: CommonOptions, _ body: (FilterRun) throws -> Void) -> Never {
        main(program: program, settings: options.settings, body)
    }

    public static func main(program: String, settings: RunSettings, _ body: (FilterRun) throws -> Void) -> Never {
        let run = FilterRun(program: program, settings: settings)
        do {
            try body(run)
        } catch let e as Exit {
            run.raise(e.status)
        } catch {
            run.diagnostics.error("\(error)")
            run.raise(.ioError)
        }
        exit(run.finish().rawValue)
    }
}
