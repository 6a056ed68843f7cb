import JSONLines

/// The loop every JSON Lines filter shares: read records, let `transform` rewrite each, write
/// them. `transform` returns the new record's bytes, or nil to drop the record on purpose.
/// A line that is not a JSON object, or a `transform` that throws, is a failed record.
public func filterRecords(_ run: FilterRun, progressNoun: String = "records",
                          transform: (JSONRecord) throws -> [UInt8]?) throws {
    try run.forEachInput { input in
        guard !input.isDirectory else {
            run.diagnostics.error("is a directory", file: input.name)
            run.raise(.noInput)
            return
        }
        let progress = Progress(totalBytes: input.size, enabled: !run.settings.noProgress, noun: progressNoun)
        run.diagnostics.beforeWrite = progress.clear
        defer {
            progress.clear()
            run.diagnostics.beforeWrite = nil
        }
        var count = 0
        try forEachLine(of: input, in: run) { l in
                let line = l.bytes, number = l.number
                if line.isEmpty { return true }
                count += 1
                let record: JSONRecord
                do throws(JSONError) {
                    record = try JSONRecord(line: line)
                } catch {
                    try run.recordFailed(error.description, file: input.name, line: number, record: nil, rawLine: Array(line))
                    return true
                }
                do {
                    if let out = try transform(record) { try run.write(out) }
                } catch let e as Exit {
                    throw e
                } catch {
                    try run.recordFailed("\(error)", file: input.name, line: number, record: record)
                }
                progress.update(bytes: l.offset + l.length, records: count)
                return true
        }
    }
}

/// Reads `input` line by line; a read that fails is reported and ends the run (exit 74).
public func forEachLine(of input: Input, in run: FilterRun, _ body: (LineReader.Line) throws -> Bool) throws {
    var reader = LineReader(fd: input.fd)
    defer { reader.close() }
    do {
        try reader.forEachLine(body)
    } catch let e as LineReader.ReadError {
        if case .io(let code) = e { run.diagnostics.error(InputError(path: input.name, errno: code).description, file: input.name) }
        throw Exit(.ioError)
    }
}

/// One per-message stage of the pipeline, ready to run: what its filter program does to each
/// record, with its rules loaded. The program runs it over its input; `mailstore deliver` runs
/// the declared stages one after the other on one message, in one process.
public struct RecordStage {
    public let name: String
    public let transform: (JSONRecord) throws -> [UInt8]

    public init(name: String, transform: @escaping (JSONRecord) throws -> [UInt8]) {
        self.name = name
        self.transform = transform
    }

    /// Runs the stage over the inputs of `run`, as its program does.
    public func run(_ run: FilterRun) throws {
        try filterRecords(run, progressNoun: "messages", transform: transform)
    }
}
