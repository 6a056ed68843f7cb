import Conversations
import JSONLines
import SQLite
import UnixFilter

/// `mailstore add` and `mailstore history`: each input read in one batch (one transaction), a
/// line that cannot be used reported and counted as every filter does, the rest stored.
extension MailStore {
    public struct AddCounts: CustomStringConvertible {
        public var added = 0, updated = 0, unchanged = 0
        public var description: String { "\(added) added, \(updated) updated, \(unchanged) unchanged" }

        public init() {}

        public static func += (a: inout AddCounts, b: AddCounts) {
            (a.added, a.updated, a.unchanged) = (a.added + b.added, a.updated + b.updated, a.unchanged + b.unchanged)
        }
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
        // what a run killed before it committed kept, and the files of messages gone
        try removeUnreferencedAttachments()
        return counts
    }

    /// `--me-auto`: the first pass over the inputs, with the store's address rules.
    public func observeOwnAddresses(_ run: FilterRun) throws -> OwnAddressInference {
        try OwnAddressInference(firstPassOver: run, normalizer: normalizer)
    }

    /// Applies the history responses of every input in one transaction; writes the messages to
    /// fetch. Every response is checked first: when one is not what Gmail's API sends, each
    /// such is reported, nothing is changed, and the run ends with EX_TEMPFAIL (the next sync
    /// asks again). With `full`, the inputs list the whole mailbox (a full sync): see
    /// `finishFullSync`.
    public func applyHistory(_ run: FilterRun, full: Bool = false) throws {
        var responses: [(value: JSONValue, file: String, line: Int)] = []
        var malformed = 0
        func refuse(_ message: String, file: String?, line: Int?) {
            run.diagnostics.error(message, file: file, line: line)
            malformed += 1
        }
        try run.forEachInput { input in
            let bytes: [UInt8]
            do throws(InputError) { bytes = try readWholeFile(fd: input.fd) } catch {
                run.diagnostics.error(error.description, file: input.name)
                throw Exit(.ioError)
            }
            // one response (as the API sends it, over several lines), or one per line
            var values: [(JSONValue, Int)] = []
            if let whole = try? JSONValue.parse(bytes) {
                values = [(whole, 1)]
            } else {
                for (k, line) in bytes.split(separator: 0x0A, omittingEmptySubsequences: false).enumerated() where !line.allSatisfy({ $0 == 0x20 || $0 == 0x0D || $0 == 0x09 }) {
                    do throws(JSONError) {
                        values.append((try JSONValue.parse(Array(line)), k + 1))
                    } catch {
                        refuse(error.description, file: input.name, line: k + 1)
                    }
                }
            }
            for (value, line) in values {
                if let problem = GmailShape.problem(value) {
                    refuse(problem, file: input.name, line: line)
                } else {
                    responses.append((value, input.name, line))
                }
            }
        }
        if full && malformed == 0 {
            if !responses.contains(where: { GmailShape.isProfile($0.value) }) {
                refuse("a full sync without users.getProfile's response", file: nil, line: nil)
            }
            if !responses.contains(where: { GmailShape.isListPage($0.value) }) {
                refuse("a full sync without a messages.list page", file: nil, line: nil)
            }
        }
        if malformed > 0 {
            run.diagnostics.error("nothing was changed: \(malformed == 1 ? "a response is" : "\(malformed) responses are") not what Gmail's API sends")
            throw Exit(.temporaryFailure)
        }
        var result = HistoryResult(full: full)
        try batch {
            for (value, file, line) in responses {
                do {
                    try applyHistory(value, into: &result)
                } catch let e as HistoryError {
                    try run.recordFailed(e.description, file: file, line: line, record: nil)
                }
            }
            if full { try finishFullSync(&result) }
        }
    }
}
