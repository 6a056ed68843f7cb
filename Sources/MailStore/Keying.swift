import Conversations
import JSONLines
import SQLite

/// Keying: the user's addresses, the address rules and the known lists, which decide each
/// message's participants and so its conversation; a change keys the stored messages again.
extension MailStore {
    /// Your addresses as they were given (`own` holds them normalized).
    public func givenAddresses() throws -> [String] { try config("me").map(Self.strings) ?? [] }

    /// The address rules the database keys with (participant-hash's --gmail-canonical and
    /// --strip-plus).
    public var rules: AddressRules { normalizer.rules }

    static func rules(_ json: String) -> AddressRules {
        let names = strings(json)
        return AddressRules(gmailCanonical: names.contains("gmail-canonical"), stripPlus: names.contains("strip-plus"))
    }

    /// The address rules recorded in `db`. A database that records none was made before Gmail
    /// folding was the default (issue 47) and keyed its messages without it: it keeps that
    /// (`mailstore config --gmail-canonical` folds); one that holds no message yet takes today's
    /// defaults. Either is written down when the database may be written, so that its keys
    /// never change under it.
    static func recordedRules(_ db: Database, writable: Bool) throws -> AddressRules {
        if let json = try db.text("SELECT value FROM config WHERE key = 'address_rules'") { return rules(json) }
        let keyed = try db.integer("SELECT EXISTS(SELECT 1 FROM messages)") == 1
        let kept = keyed ? AddressRules.plain : AddressRules()
        if writable {
            try db.run("INSERT OR IGNORE INTO config(key, value) VALUES('address_rules', ?)", .text(json(kept)))
        }
        return kept
    }

    static func json(_ rules: AddressRules) -> String {
        json((rules.gmailCanonical ? ["gmail-canonical"] : []) + (rules.stripPlus ? ["strip-plus"] : []))
    }

    /// Remembers the user's addresses (as given: they are normalized with the rules in force)
    /// and the address rules, either of them left as it is when nil, and keys every message
    /// again, its recipients too.
    public func setKeying(addresses: [String]? = nil, rules: AddressRules? = nil) throws {
        let given = try addresses ?? givenAddresses()
        let newRules = rules ?? normalizer.rules
        let newNormalizer = AddressNormalizer(rules: newRules)
        var fresh = OwnAddresses()
        for a in given {
            guard let n = newNormalizer.normalize(a), n.contains("@") else { throw StoreError.badAddress(a) }
            fresh.add(n)
        }
        try batch {
            normalizer = newNormalizer
            own = fresh
            try setConfig("me", Self.json(given))
            try setConfig("address_rules", Self.json(newRules))
            try keyEveryMessageAgain(recipientsToo: true)
        }
    }

    /// Adds the addresses the records show to be the user's (participant-hash's --me-auto),
    /// when the database knows none: what was inferred, or nil when nothing was (then everyone
    /// is a participant until they are known: `keysWithoutOwnAddresses`). The messages stored
    /// before (deliveries that showed no address of yours) are keyed again as `setKeying`
    /// keys them: you are no longer a member of your own conversations.
    public func inferOwnAddresses(_ inference: OwnAddressInference) throws -> String? {
        let addresses = inference.addresses
        guard own.isEmpty else { return nil }
        guard !addresses.isEmpty else {
            keysWithoutOwnAddresses = true
            return nil
        }
        do {
            try batch {
                for a in addresses { own.add(a) }
                try setConfig("me", Self.json(own.addresses))
                try keyEveryMessageAgain(recipientsToo: false)
            }
        } catch {
            own = OwnAddresses()  // the database took none of them
            throw error
        }
        return inference.report
    }

    /// The one rule of a change of your addresses or the address rules: every stored message
    /// keyed again (with `recipientsToo`, its normalized recipients stored again, as a change of
    /// the rules needs).
    private func keyEveryMessageAgain(recipientsToo: Bool) throws {
        var rowids: [Int] = []
        try db.query("SELECT rowid FROM messages") { rowids.append($0.integer(0)) }
        for r in rowids { try rekey(r, recipientsToo: recipientsToo) }
    }


    /// The normalized To and Cc addresses: where a list learned later is looked for.
    func storeRecipients(of record: JSONRecord, rowid: Int, replacing: Bool) throws {
        if replacing { try db.run("DELETE FROM recipients WHERE message = ?", .integer(rowid)) }
        var addresses = Set<String>()
        for field in ["to", "cc"] {
            for v in record.value(field)?.arrayValue ?? [] {
                if let a = v["address"]?.stringValue.flatMap(normalizer.normalize) { addresses.insert(a) }
            }
        }
        for a in addresses { try db.run("INSERT INTO recipients(message, address) VALUES(?, ?)", .integer(rowid), .text(a)) }
    }

    /// Lists learned from the last message: remembered, and the messages to them that were
    /// keyed on people are keyed again (participant-hash --me-auto knows every list of its
    /// input before it keys a message; the store learns them as they come).
    func learnLists() throws {
        guard lists.count != savedLists.count else { return }
        for list in lists.subtracting(savedLists).sorted() {
            savedLists.insert(list)
            try db.run("INSERT OR IGNORE INTO lists(address) VALUES(?)", .text(list))
            var rowids: [Int] = []
            try db.query("""
                SELECT m.rowid FROM recipients r JOIN messages m ON m.rowid = r.message
                WHERE r.address = ? AND m.participant_kind IN ('people', 'myself')
                """, [.text(list)]) { rowids.append($0.integer(0)) }
            for r in rowids { try rekey(r) }
        }
    }

    /// Keys a stored message again (the user's addresses or the known lists changed; with
    /// `recipientsToo`, the address rules).
    private func rekey(_ rowid: Int, recipientsToo: Bool = false) throws {
        guard let (bytes, old, id, oldSummary, role, answers) = try db.row(
            "SELECT record, conversation_id, id, summary, role, answers FROM messages WHERE rowid = ?", [.integer(rowid)],
            { s in (s.bytes(0), s.text(1) ?? "", s.text(2) ?? "", s.bytes(3), s.text(4), s.text(5)) }) else { return }
        let record = try JSONRecord(bytes)
        if recipientsToo { try storeRecipients(of: record, rowid: rowid, replacing: true) }
        let key = try ParticipantKey.of(record, me: own, lists: &lists, normalizer: normalizer)
        let summary = StoredConversation.summaryRecord(of: record, id: id, key: key)
        let conversation = try placement(role: role, answers: answers, key: key.hash)
        guard conversation != old || summary != oldSummary else { return }
        try db.run("UPDATE messages SET conversation_id = ?, participant_kind = ?, summary = ?, from_me = ?, change = ? WHERE rowid = ?",
                   .text(conversation), .text(key.kind.rawValue), .textBytes(summary), .integer(key.fromMe ? 1 : 0), .integer(change),
                   .integer(rowid))
        touchedConversations.insert(old)
        touchedConversations.insert(conversation)
        if role == nil && conversation != old { try placeAnswers(to: id) }
        if conversation != old { try touchParcels(ofMessage: rowid) }
        try db.query("SELECT DISTINCT event_group FROM event_observations WHERE message = ?", [.integer(rowid)]) {
            touchedEventGroups.insert($0.text(0) ?? "")
        }
        try learnLists()
    }
}
