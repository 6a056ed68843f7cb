import JSONLines
import SQLite

/// A message's labels: added by a record, changed by `label` (notmuch tag) and Gmail's history.
/// They are kept in one place, the `labels` column (a JSON array, in their order), written by
/// `insert` and `storeLabels` alone; the `message_labels` table that search reads is its index
/// (`indexLabels`), and the stored record's own `labels` member is null (schema 6).
extension MailStore {
    private static let null = Array("null".utf8)

    /// A record's bytes as they are stored: its `labels` member, when it has one, null in its
    /// place, where reading a message puts the labels back (`messageRecord`).
    static func withoutLabels(_ record: JSONRecord) -> [UInt8] {
        guard let labels = record.rawValue("labels"), !labels.elementsEqual(null) else { return record.bytes }
        return record.updated([("labels", null)])
    }

    /// Adds and removes labels of a stored message; its conversation is derived again when
    /// they change. Must run in a `batch`. Whether they changed.
    /// A change Gmail reports (history) wins over the user's waiting change of the same labels:
    /// it was made after the last sync, most likely after ours; the user's other waiting
    /// changes stay laid over the labels.
    func changeLabels(rowid: Int, add: [String], remove: [String]) throws {
        try yieldToSource(rowid: rowid, labels: add + remove)
        try updateLabels(rowid: rowid) { labels in
            labels.removeAll { remove.contains($0) }
            for l in add where !labels.contains(l) { labels.append(l) }
            labels = try withQueuedChanges(rowid: rowid, labels)
        }
    }

    /// Gives a stored message exactly these labels (Gmail's labelIds of it now), with the
    /// user's changes that wait for Gmail laid over them.
    func setLabels(rowid: Int, _ new: [String]) throws {
        try updateLabels(rowid: rowid) { labels in
            // the stored order kept for the labels that stay: a record's labels keep their order
            let wanted = try withQueuedChanges(rowid: rowid, new)
            labels = labels.filter(wanted.contains) + wanted.filter { !labels.contains($0) }
        }
    }

    /// The labels a message had before and has after `change`, stored when they changed; nil
    /// for no such message.
    @discardableResult
    private func updateLabels(rowid: Int, _ change: (inout [String]) throws -> Void) throws -> (before: [String], after: [String])? {
        guard case (var labels, let conversation)? = try db.row("SELECT labels, conversation_id FROM messages WHERE rowid = ?", [.integer(rowid)],
                                                                { s in (Self.strings(s.text(0) ?? "[]"), s.text(1) ?? "") }) else { return nil }
        let before = labels
        try change(&labels)
        if labels != before { try storeLabels(labels, replacing: before, rowid: rowid, conversation: conversation) }
        return (before, labels)
    }

    /// Labels the user changed (not the source): the change is queued for the source.
    private func changeLabelsForUser(rowid: Int, add: [String], remove: [String]) throws -> Bool {
        guard let (before, after) = try updateLabels(rowid: rowid, { labels in
            labels.removeAll { remove.contains($0) }
            for l in add where !labels.contains(l) { labels.append(l) }
        }), before != after else { return false }
        try queueAction(rowid: rowid, added: after.filter { !before.contains($0) }, removed: before.filter { !after.contains($0) })
        return true
    }

    /// The labels of a stored message changed from `old`: where they are written after `insert`.
    func storeLabels(_ labels: [String], replacing old: [String], rowid: Int, conversation: String) throws {
        try db.run("UPDATE messages SET labels = ?, change = ? WHERE rowid = ?", .text(Self.json(labels)), .integer(change), .integer(rowid))
        try indexLabels(rowid: rowid, from: old, to: labels)
        touchedConversations.insert(conversation)
    }

    /// `message_labels`, the index of the `labels` column that search's label: and is: read, made
    /// to hold what the column of message `rowid` holds now (`new`; `old` before). Its labels
    /// compare without case, as search's do: a label's row stays while the message has it in any
    /// case. (Triggers would keep it by themselves, but any trigger on `messages` costs each
    /// insert about 0.1 ms, a load of 9,860 messages 70% more CPU: bench/store-ab.py.)
    func indexLabels(rowid: Int, from old: [String], to new: [String]) throws {
        let gone = old.filter { !new.contains($0) }, came = new.filter { !old.contains($0) }
        if !gone.isEmpty {
            try db.run("""
                DELETE FROM message_labels WHERE message = ?1
                  AND label IN (SELECT value FROM json_each(?2)) AND label NOT IN (SELECT value FROM json_each(?3))
                """, .integer(rowid), .text(Self.json(gone)), .text(Self.json(new)))
        }
        if !came.isEmpty {
            try db.run("INSERT OR IGNORE INTO message_labels(label, message) SELECT value, ?1 FROM json_each(?2)", .integer(rowid), .text(Self.json(came)))
        }
    }

    /// Labels the messages a query finds (notmuch tag): what a client does when a chat is read
    /// (`-UNREAD`) or archived (`-INBOX`). Returns how many messages changed.
    public func label(_ query: SearchQuery, add: [String], remove: [String]) throws -> Int {
        try batch {
            var rowids: [Int] = []
            try db.query("SELECT m.rowid FROM \(query.messagesForIDs) WHERE \(query.sql)", query.parameters) { rowids.append($0.integer(0)) }
            var changed = 0
            for r in rowids where try changeLabelsForUser(rowid: r, add: add, remove: remove) { changed += 1 }
            return changed
        }
    }
}
