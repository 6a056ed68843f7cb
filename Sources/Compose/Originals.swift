#if canImport(Glibc)
import Glibc
#endif
import Conversations
import JSONLines
import MailStore
import UnixFilter

/// Where the messages a request names are read from.
public protocol Originals {
    /// The message with this id (mime-parse's `id`: its Message-ID without brackets).
    func message(id: String) throws -> Original?
    /// A conversation's newest message.
    func newestMessage(conversation: String) throws -> Original?
    /// The user's addresses the source knows (a store's `mailstore config --me`).
    func ownAddresses() throws -> [String]
    /// The display name last written beside my `address` in a From.
    func ownName(address: String) throws -> String?
}

/// The messages of a mailstore database, read as they were added.
public final class StoreOriginals: Originals {
    let store: MailStore

    public init(path: String) throws {
        store = try MailStore(path: path, access: .read)
    }

    public func message(id: String) throws -> Original? {
        try store.messageRecord(id: id).map { try Original($0) }
    }

    public func newestMessage(conversation: String) throws -> Original? {
        try store.newestMessageRecord(conversation: conversation).map { try Original($0) }
    }

    public func ownAddresses() throws -> [String] { try store.givenAddresses() }

    public func ownName(address: String) throws -> String? { try store.ownName(address: address) }
}

/// The messages of a file of records (mime-parse's, or any stage's after it): read once for
/// where each record is, then each named record read again from its place, so that memory
/// holds offsets, not records. A conversation is the records whose `conversation_id` or
/// `participant_hash` (participant-hash's) is its id.
public final class RecordsFileOriginals: Originals {
    private let fd: Int32
    private var places: [String: (offset: Int, length: Int)] = [:]
    private var newest: [String: (date: String, id: String)] = [:]
    /// Each sender's display name, as their newest message writes it.
    private var names: [String: (date: String, name: String)] = [:]

    public struct Failure: Error, CustomStringConvertible {
        public var description: String
    }

    public init(path: String) throws {
        fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { throw Failure(description: "\(path): \(String(cString: strerror(errno)))") }
        var reader = LineReader(fd: fd)
        defer { reader.close() }
        var failure: Failure?
        try reader.forEachLine { line in
            guard line.bytes.count > 0 else { return true }
            let record: JSONRecord
            do { record = try JSONRecord(line: line.bytes) } catch {
                failure = Failure(description: "\(path):\(line.number): \(error)")
                return false
            }
            guard let id = record.string("id") else { return true }
            places[id] = (line.offset, line.bytes.count)
            let date = record.string("date") ?? ""
            if let from = record.value("from"), let address = from["address"]?.stringValue?.lowercased(),
               let name = from["name"]?.stringValue, !name.isEmpty, (names[address]?.date ?? "") <= date {
                names[address] = (date, name)
            }
            for key in ["conversation_id", "participant_hash"] {
                guard let conversation = record.string(key) else { continue }
                if let known = newest[conversation], (known.date, known.id) >= (date, id) { continue }
                newest[conversation] = (date, id)
            }
            return true
        }
        if let failure { throw failure }
    }

    deinit { close(fd) }

    public func message(id: String) throws -> Original? {
        guard let place = places[id] else { return nil }
        var bytes = [UInt8](repeating: 0, count: place.length)
        let n = bytes.withUnsafeMutableBytes { pread(fd, $0.baseAddress, place.length, off_t(place.offset)) }
        guard n == place.length else { throw Failure(description: "the records file changed while it was read") }
        return try Original(bytes)
    }

    public func newestMessage(conversation: String) throws -> Original? {
        guard let id = newest[conversation]?.id else { return nil }
        return try message(id: id)
    }

    public func ownAddresses() throws -> [String] { [] }

    public func ownName(address: String) throws -> String? { names[address.lowercased()]?.name }
}

extension StoreOriginals {
    /// The store's address rules, with those given on the command line in their place.
    public func rules(with given: AddressRuleFlags) -> AddressRules { given.applied(to: store.rules) }
}
