import SQLite

/// A message's labels: added by a record, changed by `label` (notmuch tag) and Gmail's history.
extension MailStore {
    /// `message_labels`, which search's label: and is: read instead of every message's labels:
    /// the rows of a message whose labels went from `old` to `new`.
    func labelRows(rowid: Int, from old: [String], to new: [String]) throws {
        for l in old where !new.contains(l) {
            try db.run("DELETE FROM message_labels WHERE label = ? AND message = ?", .text(l), .integer(rowid))
        }
        for l in new where !old.contains(l) {
            try db.run("INSERT OR IGNORE INTO message_labels(label, message) VALUES(?, ?)", .text(l), .integer(rowid))
        }
    }

    /// Adds and removes labels of a stored message; its conversation is derived again when
    /// they change. Must run in a `batch`. Whether they changed.
    @discardableResult
    func changeLabels(rowid: Int, add: [String], remove: [String]) throws -> Bool {
        try updateLabels(rowid: rowid) { labels in
            labels.removeAll { remove.contains($0) }
            for l in add where !labels.contains(l) { labels.append(l) }
        }
    }

    /// Gives a stored message exactly these labels (Gmail's labelIds of it now).
    @discardableResult
    func setLabels(rowid: Int, _ new: [String]) throws -> Bool {
        try updateLabels(rowid: rowid) { labels in
            // the stored order kept for the labels that stay: a record's labels keep their order
            labels = labels.filter(new.contains) + new.filter { !labels.contains($0) }
        }
    }

    private func updateLabels(rowid: Int, _ change: (inout [String]) -> Void) throws -> Bool {
        guard case (var labels, let conversation)? = try db.row("SELECT labels, conversation_id FROM messages WHERE rowid = ?", [.integer(rowid)],
                                                                { s in (Self.strings(s.text(0) ?? "[]"), s.text(1) ?? "") }) else { return false }
        let before = labels
        change(&labels)
        guard labels != before else { return false }
        try db.run("UPDATE messages SET labels = ?, change = ? WHERE rowid = ?", .text(Self.json(labels)), .integer(self.change), .integer(rowid))
        try labelRows(rowid: rowid, from: before, to: labels)
        touchedConversations.insert(conversation)
        return true
    }

    /// Labels the messages a query finds (notmuch tag): what a client does when a chat is read
    /// (`-UNREAD`) or archived (`-INBOX`). Returns how many messages changed.
    public func label(_ query: SearchQuery, add: [String], remove: [String]) throws -> Int {
        try batch {
            var rowids: [Int] = []
            try db.query("SELECT m.rowid FROM \(query.messagesForIDs) WHERE \(query.sql)", query.parameters) { rowids.append($0.integer(0)) }
            var changed = 0
            for r in rowids where try changeLabels(rowid: r, add: add, remove: remove) { changed += 1 }
            return changed
        }
    }
}
