#if canImport(Glibc)
import Glibc
#endif
import JSONLines
import UnixFilter

/// `--me-auto`: the user's addresses as the mailbox shows them: the From of messages labelled
/// SENT, and the Delivered-To and X-Original-To addresses that recur (in at least 1% of the
/// messages, or the most frequent one).
public struct OwnAddressInference {
    public private(set) var sentFrom: [String: Int] = [:]
    public private(set) var deliveredTo: [String: Int] = [:]
    public private(set) var records = 0
    /// The posting addresses of the lists whose mail is in the input.
    public private(set) var lists = Set<String>()

    public init() {}

    public mutating func observe(_ record: JSONRecord, normalizer: AddressNormalizer) {
        records += 1
        if record.value("labels")?.arrayValue?.contains(.string("SENT")) == true,
            let from = record.value("from")?["address"]?.stringValue.flatMap(normalizer.normalize)
        {
            sentFrom[from, default: 0] += 1
        }
        guard let headers = record.rawValue("headers").flatMap({ try? JSONRecord(Array($0)) }) else { return }
        let recipients = (record.value("to")?.arrayValue ?? []) + (record.value("cc")?.arrayValue ?? [])
        if let list = ParticipantKey.list(of: record, headers: headers, recipients: recipients, normalizer: normalizer),
           !list.hasPrefix("list:") {
            lists.insert(list)
        }
        for name in ["delivered-to", "x-original-to"] {
            for value in headers.value(name)?.arrayValue ?? [] {
                if let a = value.stringValue.map(ParticipantKey.bracketed).flatMap(normalizer.normalize) {
                    deliveredTo[a, default: 0] += 1
                }
            }
        }
    }

    /// The inferred addresses, most used first.
    public var addresses: [String] {
        let threshold = max(1, records / 100)
        var result = sentFrom.sorted { $0.value > $1.value || ($0.value == $1.value && $0.key < $1.key) }.map(\.key)
        let delivered = deliveredTo.sorted { $0.value > $1.value || ($0.value == $1.value && $0.key < $1.key) }
        for (k, entry) in delivered.enumerated() where (entry.value >= threshold || k == 0) && !result.contains(entry.key) {
            result.append(entry.key)
        }
        return result
    }

    /// What was inferred, for stderr.
    public var report: String {
        addresses.map { a in
            var why: [String] = []
            if let n = sentFrom[a] { why.append("From of \(n) sent message\(n == 1 ? "" : "s")") }
            if let n = deliveredTo[a] { why.append("Delivered-To of \(n)") }
            return a + " (" + why.joined(separator: ", ") + ")"
        }.joined(separator: ", ")
    }
}

extension OwnAddressInference {
    /// The first pass of `--me-auto`: every record of every input of `run`. Standard input is
    /// kept (in a file when it is a pipe) and rewound for the second pass, which also reports
    /// the inputs that cannot be opened.
    public init(firstPassOver run: FilterRun, normalizer: AddressNormalizer) throws {
        self.init()
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
                if let record = try? JSONRecord(line: line.bytes) { observe(record, normalizer: normalizer) }
                return true
            }
            reader.close()
            if name == "-" { lseek(0, 0, SEEK_SET) }
            close(fd)
        }
    }
}
