import JSONLines
import SQLite

/// Attachments kept by the store (`AttachmentFolder`): each record's attachments rewritten to
/// name the kept files, listed in the `attachments` table, and their files removed once no
/// message refers to them.
extension MailStore {
    /// The record as the store keeps it: each attachment (and each attachment of a forwarded
    /// message's, in its `message`) whose bytes the folder holds gets `saved_as` = the kept
    /// file; one whose `saved_as` names another file (mime-parse --save-attachments) has it
    /// copied in when its bytes are those its `sha256` names, else `saved_as` null. An
    /// attachment without `saved_as` whose bytes the folder does not hold is left as it is.
    /// The attachments of `forwarded_message` (text-extract's copy of a forwarded message's)
    /// are rewritten the same way; their rows are those of the message/rfc822 part's.
    func keepingAttachments(_ record: JSONRecord) throws -> JSONRecord {
        var updates: [(key: String, value: [UInt8]?)] = []
        if let list = record.value("attachments")?.arrayValue, !list.isEmpty {
            var changed = false
            let kept = try list.map { try keeping($0, &changed) }
            if changed {
                var w = JSONWriter(capacity: 1024)
                w.value(.array(kept))
                updates.append(("attachments", w.bytes))
            }
        }
        if case .object(var forwarded)? = record.value("forwarded_message"),
           let k = forwarded.firstIndex(where: { $0.0 == "attachments" }), case .array(let list) = forwarded[k].1, !list.isEmpty {
            var changed = false
            let kept = try list.map { try keeping($0, &changed) }
            if changed {
                forwarded[k].1 = .array(kept)
                var w = JSONWriter(capacity: 1024)
                w.value(.object(forwarded))
                updates.append(("forwarded_message", w.bytes))
            }
        }
        return updates.isEmpty ? record : try JSONRecord(record.updated(updates))
    }

    private func keeping(_ attachment: JSONValue, _ changed: inout Bool) throws -> JSONValue {
        guard case .object(var members) = attachment else { return attachment }
        let given = attachment["saved_as"]
        var path: String?
        do {
            if let sha = attachment["sha256"]?.stringValue {
                path = try attachments.existing(sha)
                if path == nil, case .string(let source)? = given { path = try attachments.copy(from: source, sha256: sha) }
            }
        } catch let e as AttachmentFolder.Failed {
            throw e.storeError
        }
        let saved: JSONValue? = path.map(JSONValue.string) ?? (given == nil ? nil : .null)
        if let saved, saved != given {
            changed = true
            if let k = members.firstIndex(where: { $0.0 == "saved_as" }) { members[k].1 = saved } else { members.append(("saved_as", saved)) }
        }
        if let k = members.firstIndex(where: { $0.0 == "message" }), case .object(var inner) = members[k].1,
           let j = inner.firstIndex(where: { $0.0 == "attachments" }), case .array(let list) = inner[j].1, !list.isEmpty {
            var innerChanged = false
            let kept = try list.map { try keeping($0, &innerChanged) }
            if innerChanged {
                inner[j].1 = .array(kept)
                members[k].1 = .object(inner)
                changed = true
            }
        }
        return .object(members)
    }

    /// Each attachment of a stored record, those of forwarded messages after the one that
    /// holds them, in a row of `attachments`.
    func storeAttachments(of record: JSONRecord, rowid: Int) throws {
        guard let list = record.value("attachments")?.arrayValue, !list.isEmpty else { return }
        var position = 0
        func store(_ list: [JSONValue]) throws {
            for a in list {
                guard case .object = a else { continue }
                let sha = a["sha256"]?.stringValue
                let kept = sha.map { AttachmentFolder.isDigest($0) && a["saved_as"]?.stringValue == attachments.file($0) } ?? false
                func text(_ key: String) -> SQLValue { a[key]?.stringValue.map(SQLValue.text) ?? .null }
                try db.run("""
                    INSERT INTO attachments(message, part, position, filename, content_type, detected_type, size, sha256, kept)
                    VALUES(?, ?, ?, ?, ?, ?, ?, ?, ?)
                    """, .integer(rowid), text("part"), .integer(position), text("filename"), text("content_type"), text("detected_type"),
                    a["size"]?.intValue.map(SQLValue.integer) ?? .null, text("sha256"), .integer(kept ? 1 : 0))
                position += 1
                if let inner = a["message"]?["attachments"]?.arrayValue { try store(inner) }
            }
        }
        try store(list)
    }

    /// A message's rows go (it is deleted, or replaced); its files are removed after the
    /// transaction when no other row names them.
    func unstoreAttachments(rowid: Int) throws {
        if try db.integer("SELECT 1 FROM attachments WHERE message = ? AND kept = 1 LIMIT 1", .integer(rowid)) != nil {
            removedKeptAttachment = true
        }
        try db.run("DELETE FROM attachments WHERE message = ?", .integer(rowid))
    }

    /// After a batch: the files it kept are in rows or not (it rolled back), so removal may run;
    /// it does when the batch removed a row of a kept file.
    func attachmentsAfterBatch(committed: Bool) {
        attachments.release()
        if committed && removedKeptAttachment { _ = try? removeUnreferencedAttachments() }
        removedKeptAttachment = false
    }

    /// Removes the kept files no row names any more: those of deleted messages, and those a
    /// run that was killed (or a delivery that failed) kept before its transaction committed.
    /// How many. Outside a batch.
    @discardableResult
    public func removeUnreferencedAttachments() throws -> Int {
        do {
            return try attachments.removeUnreferenced { sha in
                try db.integer("SELECT 1 FROM attachments WHERE sha256 = ? AND kept = 1 LIMIT 1", .text(sha)) != nil
            }
        } catch let e as AttachmentFolder.Failed {
            throw e.storeError
        } catch let e as SQLiteError {
            throw StoreError.sqlite(path, e)
        }
    }

    /// One attachment of a stored message, as `mailstore attachment` writes it out.
    public struct StoredAttachment {
        public var filename: String?
        public var contentType: String?
        public var size: Int?
        public var sha256: String?
        public var kept: Bool
        /// The kept file, where the folder has it now.
        public var file: String?
    }

    public enum AttachmentLookup {
        case found(StoredAttachment)
        case noMessage
        case noAttachment
    }

    /// The attachment `part` (its `part`, e.g. "2" or "1.2"; or "#N", the one at position N,
    /// as the table numbers them from 0: how a uuencoded file, which has no part, is named) of
    /// the message whose id is `messageID`.
    public func attachment(messageID: String, part: String) throws -> AttachmentLookup {
        guard let rowid = try db.integer("SELECT rowid FROM messages WHERE id = ?", .text(messageID)) else { return .noMessage }
        let position = part.hasPrefix("#") ? Int(part.dropFirst()) : nil
        if part.hasPrefix("#") && position == nil { return .noAttachment }
        let found = try db.row("""
            SELECT filename, content_type, size, sha256, kept FROM attachments
            WHERE message = ? AND \(position == nil ? "part = ?" : "position = ?") ORDER BY position LIMIT 1
            """, [.integer(rowid), position.map(SQLValue.integer) ?? .text(part)]) { s in
            StoredAttachment(filename: s.text(0), contentType: s.text(1), size: s.isNull(2) ? nil : s.integer(2), sha256: s.text(3), kept: s.bool(4))
        }
        guard var found else { return .noAttachment }
        if found.kept, let sha = found.sha256, AttachmentFolder.isDigest(sha), AttachmentFolder.isFile(attachments.file(sha)) {
            found.file = attachments.file(sha)
        }
        return .found(found)
    }

    /// Schema 8: the attachments the records of older versions name in files that still hold
    /// their bytes are copied in (their rows, which the migration made, become kept); the
    /// others' `saved_as` becomes null. Files of messages stored without `saved_as` are lost.
    func keepAttachmentsAfterSchema8() throws {
        var after = 0
        while true {  // a few records at a time: a store may hold more than memory does
            var rows: [(rowid: Int, record: [UInt8])] = []
            try db.query("""
                SELECT rowid, record FROM messages WHERE rowid > ? AND attachment_count > 0
                  AND EXISTS(SELECT 1 FROM json_each(record, '$.attachments') a WHERE json_type(a.value, '$.saved_as') = 'text')
                ORDER BY rowid LIMIT 256
                """, [.integer(after)]) { rows.append(($0.integer(0), $0.bytes(1))) }
            guard let last = rows.last else { return }
            after = last.rowid
            try batch {
                for row in rows {
                    let record = try JSONRecord(row.record)
                    let kept = try keepingAttachments(record)
                    guard kept.bytes != record.bytes else { continue }
                    try db.run("UPDATE messages SET record = ?, change = ? WHERE rowid = ?", .textBytes(kept.bytes), .integer(change), .integer(row.rowid))
                    try db.run("DELETE FROM attachments WHERE message = ?", .integer(row.rowid))
                    try storeAttachments(of: kept, rowid: row.rowid)
                    if let c = try db.text("SELECT conversation_id FROM messages WHERE rowid = ?", .integer(row.rowid)) { touchedConversations.insert(c) }
                }
            }
        }
    }
}

extension AttachmentFolder.Failed {
    var storeError: StoreError {
        if let refused { return .refused(refused) }
        return .attachments(description)
    }
}
