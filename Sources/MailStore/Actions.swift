#if canImport(Glibc)
import Glibc
#endif
import CivilTime
import JSONLines
import SQLite

/// What the user does to mail (read, archive, star, trash) happens in the store at once and is
/// queued for the mail's source, in the same transaction: Gmail (the message has a Gmail id), a
/// maildir (its record names its file), or nothing ("local": the change stays here, and
/// `mailstore pending` says so). One row a message and kind of change: a later change of the
/// same message is folded into the queued row (read then unread again leaves nothing to send).
/// Until the source has it, what Gmail reports of the message is overlaid with it, so that a
/// chat marked read does not flash unread when a sync comes between.
extension MailStore {
    /// A change Gmail makes with its own call rather than with labels.
    static let trashLabel = "TRASH"

    public enum ActionSource: String, Sendable { case gmail, maildir, sendmail, local }

    /// One queued action, as `pending` lists it and a push takes it.
    public struct Action: Sendable {
        public var id: Int
        public var message: String
        public var gmailID: String?
        /// "labels", "trash", "untrash" or "send".
        public var kind: String
        public var add: [String]
        public var remove: [String]
        public var source: ActionSource
        /// "queued"; "dropped" (given up) or, for a send, "failed": `lastError` says why.
        public var state: String
        public var queued: String
        /// Changed each time a later change is folded in: a push removes the row only when it
        /// is still the version it sent.
        public var version: Int
        public var tries: Int
        public var lastTry: String?
        public var lastError: String?
    }

    /// Labels of a message changed by the user (`added` and `removed`: what changed, not what
    /// was asked): the change queued for its source. Must run in a batch.
    func queueAction(rowid: Int, added: [String], removed: [String]) throws {
        guard let (id, gmailID, record) = try db.row("SELECT id, gmail_id, record FROM messages WHERE rowid = ?", [.integer(rowid)],
                                                      { ($0.text(0) ?? "", $0.text(1), $0.bytes(2)) }) else { return }
        let source: ActionSource = gmailID != nil ? .gmail : Self.maildirFile(record) != nil ? .maildir : .local
        let now = CivilDate.rfc3339(self.now)
        // trash is its own call on Gmail (messages.trash, messages.untrash), not a label change;
        // one undoes the other while both wait
        for (kind, opposite, happened) in [("trash", "untrash", added), ("untrash", "trash", removed)] where happened.contains(Self.trashLabel) {
            if let waiting = try db.integer("SELECT id FROM actions WHERE message = ? AND kind = ? AND state = 'queued'", .text(id), .text(opposite)) {
                try db.run("DELETE FROM actions WHERE id = ?", .integer(waiting))
            } else {
                try db.run("INSERT INTO actions(message, kind, source, queued) VALUES(?, ?, ?, ?)", .text(id), .text(kind), .text(source.rawValue), .text(now))
            }
        }
        let added = added.filter { $0 != Self.trashLabel }, removed = removed.filter { $0 != Self.trashLabel }
        guard !added.isEmpty || !removed.isEmpty else { return }
        let queued = try db.row("SELECT id, add_labels, remove_labels FROM actions WHERE message = ? AND kind = 'labels' AND state = 'queued'",
                                [.text(id)], { ($0.integer(0), Self.strings($0.text(1) ?? "[]"), Self.strings($0.text(2) ?? "[]")) })
        // what the source has is the local labels less the queued change: a label added now that
        // waits to be removed there cancels that removal, and the reverse
        var add = queued?.1 ?? [], remove = queued?.2 ?? []
        for l in added { if let i = remove.firstIndex(of: l) { remove.remove(at: i) } else { add.append(l) } }
        for l in removed { if let i = add.firstIndex(of: l) { add.remove(at: i) } else { remove.append(l) } }
        if let row = queued?.0 {
            if add.isEmpty && remove.isEmpty {
                try db.run("DELETE FROM actions WHERE id = ?", .integer(row))
            } else {
                try db.run("UPDATE actions SET add_labels = ?, remove_labels = ?, version = version + 1 WHERE id = ?",
                           .text(Self.json(add)), .text(Self.json(remove)), .integer(row))
            }
        } else {
            try db.run("INSERT INTO actions(message, kind, add_labels, remove_labels, source, queued) VALUES(?, 'labels', ?, ?, ?, ?)",
                       .text(id), .text(Self.json(add)), .text(Self.json(remove)), .text(source.rawValue), .text(now))
        }
    }

    /// The file a record was read from, when it came from a maildir.
    static func maildirFile(_ record: [UInt8]) -> String? {
        guard let r = try? JSONRecord(record), let source = r.value("source"), source["format"]?.stringValue == "maildir",
              let path = source["path"]?.stringValue, !path.isEmpty, path != "-" else { return nil }
        return path
    }

    /// Labels Gmail reports for a message (history, messages.get) with the user's queued changes
    /// laid over them: until Gmail has them, they are what the user sees.
    func withQueuedChanges(rowid: Int, _ labels: [String]) throws -> [String] {
        var result = labels
        // (one indexed lookup a message: a full sync reads the labels of every message through here)
        try db.query("SELECT kind, add_labels, remove_labels FROM actions WHERE message = (SELECT id FROM messages WHERE rowid = ?) AND state = 'queued'",
                     [.integer(rowid)]) { s in
            switch s.text(0) {
            case "trash": if !result.contains(Self.trashLabel) { result.append(Self.trashLabel) }
            case "untrash": result.removeAll { $0 == Self.trashLabel }
            default:
                let add = Self.strings(s.text(1) ?? "[]"), remove = Self.strings(s.text(2) ?? "[]")
                result.removeAll { remove.contains($0) }
                for l in add where !result.contains(l) { result.append(l) }
            }
        }
        return result
    }

    /// The user's waiting changes of these labels of a message given up: the source changed
    /// them since.
    func yieldToSource(rowid: Int, labels: [String]) throws {
        guard let id = try db.text("SELECT id FROM messages WHERE rowid = ?", .integer(rowid)),
              let (row, add, remove) = try db.row("SELECT id, add_labels, remove_labels FROM actions WHERE message = ? AND kind = 'labels' AND state = 'queued'",
                                                  [.text(id)], { ($0.integer(0), Self.strings($0.text(1) ?? "[]"), Self.strings($0.text(2) ?? "[]")) })
        else { return }
        let keptAdd = add.filter { !labels.contains($0) }, keptRemove = remove.filter { !labels.contains($0) }
        guard keptAdd.count != add.count || keptRemove.count != remove.count else { return }
        if keptAdd.isEmpty && keptRemove.isEmpty {
            try db.run("DELETE FROM actions WHERE id = ?", .integer(row))
        } else {
            try db.run("UPDATE actions SET add_labels = ?, remove_labels = ?, version = version + 1 WHERE id = ?",
                       .text(Self.json(keptAdd)), .text(Self.json(keptRemove)), .integer(row))
        }
    }

    /// Gmail reports a message trashed (or out of the trash). When our own trash (untrash) of it
    /// waits, this is that one come back (a pass killed after Gmail did it, before the store
    /// knew): it is done. Otherwise the message was trashed on Gmail: what waits for it there
    /// would be done to mail in the trash, and is dropped (a change made on Gmail after ours wins).
    func trashChanged(rowid: Int, trashed: Bool) throws {
        guard let id = try db.text("SELECT id FROM messages WHERE rowid = ?", .integer(rowid)) else { return }
        let ours = trashed ? "trash" : "untrash"
        if let waiting = try db.integer("SELECT id FROM actions WHERE message = ? AND kind = ? AND state = 'queued'", .text(id), .text(ours)) {
            try db.run("DELETE FROM actions WHERE id = ?", .integer(waiting))
        } else if trashed {
            try dropActions(rowid: rowid, reason: "trashed on Gmail")
        }
    }

    /// The queued actions of a message Gmail has trashed or deleted are dropped, with the
    /// reason: a change made on Gmail after ours wins, and the message's labels go back to what
    /// Gmail has (what the dropped changes did here is undone).
    func dropActions(rowid: Int, reason: String) throws {
        guard let id = try db.text("SELECT id FROM messages WHERE rowid = ?", .integer(rowid)) else { return }
        var undo: (add: [String], remove: [String]) = ([], [])
        try db.query("SELECT kind, add_labels, remove_labels FROM actions WHERE message = ? AND state = 'queued'", [.text(id)]) { s in
            switch s.text(0) {
            case "labels":
                undo.remove += Self.strings(s.text(1) ?? "[]")
                undo.add += Self.strings(s.text(2) ?? "[]")
            case "trash": undo.remove.append(Self.trashLabel)
            case "untrash": undo.add.append(Self.trashLabel)
            default: break
            }
        }
        if !undo.add.isEmpty || !undo.remove.isEmpty,
           let (labels, conversation) = try db.row("SELECT labels, conversation_id FROM messages WHERE rowid = ?", [.integer(rowid)],
                                                   { (Self.strings($0.text(0) ?? "[]"), $0.text(1) ?? "") }) {
            var restored = labels.filter { !undo.remove.contains($0) }
            for l in undo.add where !restored.contains(l) { restored.append(l) }
            if restored != labels { try storeLabels(restored, replacing: labels, rowid: rowid, conversation: conversation) }
        }
        try db.run("""
            UPDATE actions SET state = 'dropped', last_error = ?
            WHERE message = (SELECT id FROM messages WHERE rowid = ?) AND state = 'queued'
            """, .text(reason), .integer(rowid))
    }

    /// Every action, queued first (oldest first), then the dropped ones.
    public func actions(source: ActionSource? = nil, queuedOnly: Bool = false) throws -> [Action] {
        var result: [Action] = []
        var sql = """
            SELECT a.id, a.message, m.gmail_id, a.kind, a.add_labels, a.remove_labels, a.source, a.state, a.queued, a.version, a.tries,
                   a.last_try, a.last_error
            FROM actions a LEFT JOIN messages m ON m.id = a.message WHERE 1
            """
        var values: [SQLValue] = []
        if let source {
            sql += " AND a.source = ?"
            values.append(.text(source.rawValue))
        }
        if queuedOnly { sql += " AND a.state = 'queued'" }
        sql += " ORDER BY a.state = 'dropped', a.id"
        try db.query(sql, values) { s in
            result.append(Action(id: s.integer(0), message: s.text(1) ?? "", gmailID: s.text(2), kind: s.text(3) ?? "",
                                 add: Self.strings(s.text(4) ?? "[]"), remove: Self.strings(s.text(5) ?? "[]"),
                                 source: ActionSource(rawValue: s.text(6) ?? "") ?? .local, state: s.text(7) ?? "queued",
                                 queued: s.text(8) ?? "", version: s.integer(9), tries: s.integer(10), lastTry: s.text(11), lastError: s.text(12)))
        }
        return result
    }

    /// The source has the action: its row goes, unless a later change was folded in meanwhile
    /// (then the row stays, to send again: label changes are the same done twice).
    public func actionDone(_ action: Action) throws {
        try batch { try db.run("DELETE FROM actions WHERE id = ? AND version = ?", .integer(action.id), .integer(action.version)) }
    }

    /// A try that failed: counted, with its reason; dropped when it can never succeed.
    public func actionFailed(_ action: Action, reason: String, drop: Bool) throws {
        try batch {
            try db.run("UPDATE actions SET tries = tries + 1, last_try = ?, last_error = ?, state = ? WHERE id = ?",
                       .text(CivilDate.rfc3339(now)), .text(reason), .text(drop ? "dropped" : "queued"), .integer(action.id))
        }
    }

    /// How many actions were given up (`mailstore pending` lists them).
    public func droppedActionCount() throws -> Int {
        try db.integer("SELECT count(*) FROM actions WHERE state = 'dropped'") ?? 0
    }

    /// Forgets the dropped actions (after they were read).
    public func forgetDroppedActions() throws -> Int {
        try batch {
            let n = try db.integer("SELECT count(*) FROM actions WHERE state = 'dropped'") ?? 0
            try db.run("DELETE FROM actions WHERE state = 'dropped'")
            return n
        }
    }

    /// An action as `mailstore pending` writes it.
    public static func json(_ a: Action) -> [UInt8] {
        var w = JSONWriter(capacity: 256)
        w.beginObject()
        w.field("id", a.id)
        w.field("message_id", a.message)
        w.field("gmail_id", a.gmailID)
        w.field("action", a.kind)
        w.field("add", strings: a.add)
        w.field("remove", strings: a.remove)
        w.field("source", a.source.rawValue)
        w.field("state", a.source == .local && a.state == "queued" ? "local" : a.state)
        w.field("queued", a.queued)
        w.field("tries", a.tries)
        w.field("last_try", a.lastTry)
        w.field("last_error", a.lastError)
        w.endObject()
        return w.bytes
    }
}
