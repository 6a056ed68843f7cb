#if canImport(Glibc)
import Glibc
#endif
import CivilTime
import JSONLines
import SQLite
import UnixFilter

/// Mail I send: stored at once as a sent message of its conversation (its `send_state`
/// "sending"), and queued with its bytes for the source to send: Gmail (users.messages.send,
/// pushed by gmail-sync) when the store syncs a Gmail account, else the local sendmail
/// (`push`). It becomes "sent" when the source accepts it, or "failed" with the reason, as a chat
/// app marks a message it could not send; `retrySend` queues a failed one again. A message is
/// keyed by its id (its Message-ID): sent twice, it is stored and queued once.
extension MailStore {
    public enum SendOutcome: Sendable { case queued, alreadyQueued }

    /// Stores `record` (the record of `raw`, made by the stages as a delivery makes it) as a
    /// message I sent and queues `raw`, with the journal as `deliver` keeps it, in one transaction.
    public func send(_ record: JSONRecord, raw: [UInt8], journal: Journal?) throws -> SendOutcome {
        let sent = try JSONRecord(record.updated([("labels", Array(#"["SENT"]"#.utf8))]))
        var outcome = SendOutcome.queued
        _ = try deliver(sent, journal: journal, meAuto: false) {
            guard let id = sent.string("id"), let (rowid, conversation) = try db.row("SELECT rowid, conversation_id FROM messages WHERE id = ?", [.text(id)],
                                                                                { ($0.integer(0), $0.text(1) ?? "") }) else { return }
            if try db.integer("SELECT id FROM actions WHERE message = ? AND kind = 'send'", .text(id)) != nil {
                outcome = .alreadyQueued
                return
            }
            let thread = try sent.value("in_reply_to")?.arrayValue?.first?.stringValue.flatMap {
                try db.text("SELECT thread_id FROM messages WHERE id = ?", .text($0))
            }
            let source: ActionSource = try historyID() != nil ? .gmail : .sendmail
            try db.run("INSERT INTO actions(message, kind, source, queued, raw, thread_id) VALUES(?, 'send', ?, ?, ?, ?)",
                       .text(id), .text(source.rawValue), .text(CivilDate.rfc3339(now)), .blob(raw),
                       thread.map(SQLValue.text) ?? .null)
            try setSendState(rowid: rowid, conversation: conversation, "sending")
        }
        return outcome
    }

    func setSendState(rowid: Int, conversation: String, _ state: String) throws {
        try db.run("UPDATE messages SET send_state = ?, change = ? WHERE rowid = ?", .text(state), .integer(change), .integer(rowid))
        touchedConversations.insert(conversation)
    }

    /// The bytes and Gmail thread of a queued send.
    public func outgoing(_ action: Action) throws -> (raw: [UInt8], threadID: String?)? {
        try db.row("SELECT raw, thread_id FROM actions WHERE id = ?", [.integer(action.id)]) { ($0.bytes(0), $0.text(1)) }
    }

    /// A send the source accepted (or one found there after a try whose outcome was unknown):
    /// the message is sent, with the Gmail id and thread the source gave it.
    public func sendDone(_ action: Action, gmailID: String? = nil, threadID: String? = nil) throws {
        try batch {
            guard let (rowid, conversation) = try db.row("SELECT rowid, conversation_id FROM messages WHERE id = ?", [.text(action.message)],
                                                         { ($0.integer(0), $0.text(1) ?? "") }) else { return }
            try setSendState(rowid: rowid, conversation: conversation, "sent")
            if let gmailID {
                try db.run("UPDATE messages SET gmail_id = ?, thread_id = coalesce(?, thread_id) WHERE rowid = ?", .text(gmailID), threadID.map(SQLValue.text) ?? .null, .integer(rowid))
                // the store has it: the history that names it asks for nothing to fetch
                try db.run("DELETE FROM gmail_pending WHERE gmail_id = ?", .text(gmailID))
            }
            try db.run("DELETE FROM actions WHERE id = ?", .integer(action.id))
        }
    }

    /// A send that failed: temporarily (it stays queued, tried again at the next push), or for
    /// good (the message is `failed`, with the reason, until `retrySend`).
    public func sendFailed(_ action: Action, reason: String, permanently: Bool) throws {
        try batch {
            try db.run("UPDATE actions SET tries = tries + 1, last_try = ?, last_error = ?, state = ? WHERE id = ?",
                       .text(CivilDate.rfc3339(now)), .text(reason), .text(permanently ? "failed" : "queued"), .integer(action.id))
            if permanently, let (rowid, conversation) = try db.row("SELECT rowid, conversation_id FROM messages WHERE id = ?", [.text(action.message)],
                                                                   { ($0.integer(0), $0.text(1) ?? "") }) {
                try setSendState(rowid: rowid, conversation: conversation, "failed")
            }
        }
    }

    /// A failed send queued again. False when the message has no failed send.
    public func retrySend(message id: String) throws -> Bool {
        try batch {
            guard let action = try db.integer("SELECT id FROM actions WHERE message = ? AND kind = 'send' AND state = 'failed'", .text(id)),
                  let (rowid, conversation) = try db.row("SELECT rowid, conversation_id FROM messages WHERE id = ?", [.text(id)],
                                                         { ($0.integer(0), $0.text(1) ?? "") }) else { return false }
            try db.run("UPDATE actions SET state = 'queued', tries = 0, version = version + 1 WHERE id = ?", .integer(action))
            try setSendState(rowid: rowid, conversation: conversation, "sending")
            return true
        }
    }

    public struct PushReport: Sendable {
        public var done = 0, failed = 0, waiting = 0
        public var messages: [String] = []
        public init() {}
    }

    /// What waits for a source on this machine: sends through `sendmail` (its arguments; the
    /// message on its standard input), and the flags of maildir files as mblaze's mflag sets
    /// them (S read, F starred, T trashed), archived mail moved to `archiveFolder` when named.
    /// A sendmail that exits 75 (EX_TEMPFAIL) leaves the message queued; any other failure
    /// marks it failed.
    public func push(sendmail: [String], archiveFolder: String?) throws -> PushReport {
        var report = PushReport()
        for action in try actions(queuedOnly: true) {
            switch (action.kind, action.source.rawValue) {
            case ("send", "sendmail"):
                guard let (raw, _) = try outgoing(action) else { continue }
                let result = Command.run(sendmail, input: raw)
                if result.status == 0 {
                    try sendDone(action)
                    report.done += 1
                } else {
                    let reason = "\(sendmail.joined(separator: " ")): exit \(result.status)" + (result.standardError.isEmpty ? "" : ": " + result.standardError.trimmingNewlines)
                    try sendFailed(action, reason: reason, permanently: result.status != 75)
                    report.failed += 1
                    report.messages.append("\(action.message): \(reason)")
                }
            case (_, "maildir"):
                do {
                    try MaildirFlags.apply(action, file: try maildirFile(of: action.message), archiveFolder: archiveFolder)
                    try actionDone(action)
                    report.done += 1
                } catch let e as MaildirFlags.Failure {
                    try actionFailed(action, reason: e.description, drop: e.isPermanent)
                    report.failed += 1
                    report.messages.append("\(action.message): \(e.description)")
                }
            default:
                report.waiting += 1  // Gmail's: gmail-sync pushes them; local ones stay
            }
        }
        return report
    }

    private func maildirFile(of message: String) throws -> String? {
        try db.row("SELECT record FROM messages WHERE id = ?", [.text(message)]) { Self.maildirFile($0.bytes(0)) } ?? nil
    }
}

/// A maildir message's flags changed as the Maildir specification and mblaze's mflag do: the
/// file is found by its unique name (the part before ":2,") in cur/ or new/, wherever a mail
/// program has renamed it since, and renamed into cur/ with its flags in ASCII order.
enum MaildirFlags {
    struct Failure: Error, CustomStringConvertible {
        var description: String
        /// The file is gone: trying again will not find it.
        var isPermanent: Bool
    }

    static func apply(_ action: MailStore.Action, file: String?, archiveFolder: String?) throws {
        guard let file else { throw Failure(description: "no maildir file", isPermanent: true) }
        let parts = file.split(separator: "/", omittingEmptySubsequences: false)
        guard parts.count >= 3 else { throw Failure(description: "\(file): not in a maildir", isPermanent: true) }
        let maildir = parts.dropLast(2).joined(separator: "/")
        let unique = String(parts.last!.split(separator: ":", maxSplits: 1).first ?? "")
        guard let (current, flags) = find(unique, in: maildir) else {
            throw Failure(description: "\(maildir): no file named \(unique) any more", isPermanent: true)
        }
        var set = Set(flags)
        let add = action.kind == "trash" ? ["TRASH"] : action.add, remove = action.kind == "untrash" ? ["TRASH"] : action.remove
        for (label, flag, whenAdded) in [("UNREAD", Character("S"), false), ("STARRED", "F", true), ("TRASH", "T", true)] {
            if add.contains(label) { if whenAdded { set.insert(flag) } else { set.remove(flag) } }
            if remove.contains(label) { if whenAdded { set.remove(flag) } else { set.insert(flag) } }
        }
        var folder = maildir
        if remove.contains("INBOX"), let archiveFolder {
            do {
                try PrivateFolder.make(archiveFolder, mode: 0o700)
                for sub in ["cur", "new", "tmp"] { try PrivateFolder.make(archiveFolder + "/" + sub, mode: 0o700) }
            } catch {
                throw Failure(description: error.description, isPermanent: false)
            }
            folder = archiveFolder
        }
        let target = "\(folder)/cur/\(unique):2,\(String(set.sorted()))"
        guard target != current else { return }
        guard rename(current, target) == 0 else {
            throw Failure(description: "\(current): \(String(cString: strerror(errno)))", isPermanent: false)
        }
    }

    /// The file of this unique name in the maildir, and its flags.
    private static func find(_ unique: String, in maildir: String) -> (String, [Character])? {
        for sub in ["cur", "new"] {
            guard let dir = opendir(maildir + "/" + sub) else { continue }
            defer { closedir(dir) }
            while let entry = readdir(dir) {
                let name = withUnsafeBytes(of: entry.pointee.d_name) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
                guard name == unique || name.hasPrefix(unique + ":") else { continue }
                let flags = name.split(separator: ":", maxSplits: 1).dropFirst().first.map { $0.hasPrefix("2,") ? Array($0.dropFirst(2)) : [] } ?? []
                return ("\(maildir)/\(sub)/\(name)", flags)
            }
        }
        return nil
    }
}

extension String {
    var trimmingNewlines: String {
        var s = Substring(self)
        while let l = s.last, l == "\n" || l == " " { s.removeLast() }
        return String(s.replacing("\n", with: " "))
    }
}
