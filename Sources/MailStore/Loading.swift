#if canImport(Glibc)
import Glibc
#endif
import Conversations
import JSONLines
import SQLite
import UnixFilter

/// `mailstore add` and `mailstore history`: each input read in one batch (one transaction), a
/// line that cannot be used reported and counted as every filter does, the rest stored.
extension MailStore {
    public struct AddCounts {
        public var added = 0, updated = 0, unchanged = 0
    }

    /// Adds the records of every input of `run`, one transaction per input.
    public func add(_ run: FilterRun) throws -> AddCounts {
        var counts = AddCounts()
        try run.forEachInput { input in
            guard !input.isDirectory else {
                run.diagnostics.error("is a directory", file: input.name)
                run.raise(.noInput)
                return
            }
            try batch {
                try forEachLine(of: input, in: run) { line in
                    guard !line.bytes.isEmpty else { return true }
                    let record: JSONRecord
                    do throws(JSONError) {
                        record = try JSONRecord(line: line.bytes)
                    } catch {
                        try run.recordFailed(error.description, file: input.name, line: line.number, record: nil, rawLine: Array(line.bytes))
                        return true
                    }
                    do {
                        switch try add(record) {
                        case .added: counts.added += 1
                        case .updated: counts.updated += 1
                        case .unchanged: counts.unchanged += 1
                        }
                    } catch let e as StoreError {
                        throw e
                    } catch let e as SQLiteError {  // the database's failure, not the record's
                        throw e
                    } catch {
                        try run.recordFailed("\(error)", file: input.name, line: line.number, record: nil)
                    }
                    return true
                }
            }
        }
        return counts
    }

    /// `--me-auto`: the first pass over the inputs (standard input is kept for the second).
    public func observeOwnAddresses(_ run: FilterRun) throws -> OwnAddressInference {
        var inference = OwnAddressInference()
        for name in run.inputNames {
            let fd: Int32
            if name == "-" {
                do { fd = try spoolStandardInput() } catch {
                    run.diagnostics.error("\(error)")
                    throw Exit(.ioError)
                }
            } else {
                fd = open(name, O_RDONLY | O_CLOEXEC)
                if fd < 0 { continue }  // reported by the second pass
            }
            var reader = LineReader(fd: fd)
            try reader.forEachLine { line in
                if let record = try? JSONRecord(line: line.bytes) { inference.observe(record, normalizer: normalizer) }
                return true
            }
            reader.close()
            if name == "-" { lseek(0, 0, SEEK_SET) }
            Glibc.close(fd)
        }
        return inference
    }

    /// Applies the history responses of every input, one transaction per input; writes the
    /// messages to fetch.
    /// With `full`, the inputs list the whole mailbox (a full sync): see `finishFullSync`.
    public func applyHistory(_ run: FilterRun, full: Bool = false) throws {
        var result = HistoryResult(full: full)
        try run.forEachInput { input in
            let bytes: [UInt8]
            do throws(InputError) { bytes = try readWholeFile(fd: input.fd) } catch {
                run.diagnostics.error(error.description, file: input.name)
                throw Exit(.ioError)
            }
            // one response (as the API sends it, over several lines), or one per line
            var responses: [(value: JSONValue, line: Int)] = []
            if let whole = try? JSONValue.parse(bytes) {
                responses = [(whole, 1)]
            } else {
                for (k, line) in bytes.split(separator: 0x0A, omittingEmptySubsequences: false).enumerated() where !line.allSatisfy({ $0 == 0x20 || $0 == 0x0D || $0 == 0x09 }) {
                    do throws(JSONError) {
                        responses.append((try JSONValue.parse(Array(line)), k + 1))
                    } catch {
                        try run.recordFailed(error.description, file: input.name, line: k + 1, record: nil, rawLine: Array(line))
                    }
                }
            }
            try batch {
                for (value, line) in responses {
                    do {
                        try applyHistory(value, into: &result)
                    } catch let e as HistoryError {
                        try run.recordFailed(e.description, file: input.name, line: line, record: nil)
                    }
                }
            }
        }
        if full { try batch { try finishFullSync(&result) } }
    }
}
