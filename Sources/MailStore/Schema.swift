import SQLite

/// The database's tables and views, mailstore(5). `PRAGMA user_version` is the schema's
/// version; each released version has its migration to the next in `migrations`.
enum Schema {
    /// 'mlst': how a mailstore database is told from any other SQLite file.
    static let applicationID = 0x6D6C_7374
    static let version = 10

    /// The ids, dates and conversations of messages by row id, for searches (a load makes it
    /// last: a search then maps a few pages in a row rather than pages among the records').
    static let messagesListing = "CREATE INDEX messages_listing ON messages(rowid, date, id, conversation_id);"

    /// The SQL that takes a database of version `k` (0: empty) to `k + 1`.
    static let migrations: [String] = [
        """
        CREATE TABLE config(key TEXT PRIMARY KEY, value TEXT NOT NULL);
        CREATE TABLE messages(
          rowid INTEGER PRIMARY KEY,
          id TEXT NOT NULL UNIQUE,
          gmail_id TEXT,
          thread_id TEXT,
          date TEXT,
          subject TEXT,
          from_address TEXT,
          from_name TEXT,
          mail_kind TEXT,
          labels TEXT NOT NULL DEFAULT '[]',
          attachment_count INTEGER NOT NULL DEFAULT 0,
          conversation_id TEXT NOT NULL,
          participant_kind TEXT NOT NULL,
          summary TEXT NOT NULL,
          record TEXT NOT NULL,
          change INTEGER NOT NULL);
        CREATE INDEX messages_by_conversation ON messages(conversation_id, date);
        CREATE INDEX messages_by_date ON messages(date, id, conversation_id);
        CREATE INDEX messages_by_gmail_id ON messages(gmail_id) WHERE gmail_id IS NOT NULL;
        CREATE INDEX messages_by_kind ON messages(mail_kind) WHERE mail_kind IS NOT NULL;
        CREATE INDEX messages_with_attachments ON messages(attachment_count) WHERE attachment_count > 0;
        CREATE TABLE message_labels(label TEXT NOT NULL COLLATE NOCASE, message INTEGER NOT NULL,
          PRIMARY KEY(label, message)) WITHOUT ROWID;
        CREATE TABLE recipients(message INTEGER NOT NULL, address TEXT NOT NULL);
        CREATE INDEX recipients_by_address ON recipients(address);
        CREATE INDEX recipients_by_message ON recipients(message);
        CREATE TABLE lists(address TEXT PRIMARY KEY) WITHOUT ROWID;
        CREATE TABLE conversations(
          id TEXT PRIMARY KEY,
          kind TEXT NOT NULL,
          last_date TEXT,
          message_count INTEGER NOT NULL,
          unread_count INTEGER NOT NULL,
          archived INTEGER NOT NULL,
          is_group INTEGER NOT NULL,
          is_newsletter INTEGER NOT NULL,
          has_events INTEGER NOT NULL,
          last_from_me INTEGER NOT NULL,
          has_list_mail INTEGER NOT NULL,
          record TEXT NOT NULL,
          change INTEGER NOT NULL);
        CREATE INDEX conversations_by_date ON conversations(archived, last_date);
        CREATE INDEX conversations_listed ON conversations(last_date DESC, id, change, last_from_me, has_list_mail);
        CREATE INDEX conversations_by_change ON conversations(change);
        CREATE TABLE event_observations(
          message INTEGER NOT NULL,
          position INTEGER NOT NULL,
          event_group TEXT NOT NULL,
          event TEXT NOT NULL,
          PRIMARY KEY(message, position)) WITHOUT ROWID;
        CREATE INDEX event_observations_by_group ON event_observations(event_group);
        CREATE TABLE events(
          event_group TEXT NOT NULL,
          sort_key TEXT NOT NULL,
          start TEXT,
          end TEXT,
          status TEXT,
          summary TEXT,
          conversation_id TEXT,
          record TEXT NOT NULL,
          change INTEGER NOT NULL);
        CREATE INDEX events_by_group ON events(event_group);
        CREATE INDEX events_by_sort_key ON events(sort_key);
        CREATE INDEX events_by_change ON events(change);
        CREATE TABLE removed(kind TEXT NOT NULL, id TEXT NOT NULL, change INTEGER NOT NULL);
        CREATE INDEX removed_by_change ON removed(change);
        CREATE TABLE gmail_pending(gmail_id TEXT PRIMARY KEY, thread_id TEXT, label_ids TEXT NOT NULL, format TEXT NOT NULL);
        INSERT INTO config(key, value) VALUES('store_id', lower(hex(randomblob(16))));
        CREATE VIRTUAL TABLE search USING fts5(subject, sender, recipients, body, content='',
          tokenize='porter unicode61 remove_diacritics 2');
        CREATE VIEW chats AS
          SELECT id, kind, last_date, message_count, unread_count, is_group, record FROM conversations
          WHERE archived = 0 ORDER BY last_date DESC, id;
        CREATE VIEW unread AS
          SELECT m.id, m.date, m.subject, m.from_address, m.from_name, m.conversation_id FROM messages m
          WHERE m.rowid IN (SELECT message FROM message_labels WHERE label = 'UNREAD') ORDER BY m.date DESC;
        CREATE VIEW calendar AS
          SELECT start, end, status, summary, conversation_id, record FROM events ORDER BY sort_key;
        CREATE VIEW shipments AS
          SELECT m.id AS message_id, m.date, m.conversation_id,
                 json_extract(s.value, '$.carrier') AS carrier,
                 json_extract(s.value, '$.tracking_number') AS tracking_number,
                 json_extract(s.value, '$.tracking_url') AS tracking_url,
                 s.value AS shipment
          FROM messages m, json_each(json_extract(m.summary, '$.shipments')) s
          ORDER BY m.date DESC;
        """,
        // 2: the ids, dates and conversations of messages by row id, for searches (messages_listing),
        // and a conversation's ids and change counters in page order, for chat-render --store
        """
        DROP INDEX messages_by_conversation;
        CREATE INDEX messages_by_conversation ON messages(conversation_id, date, id, change);
        """ + messagesListing + """
        """,
        // 3: drafts and reports (read receipts, bounces) are in no conversation's messages; a report,
        // and an auto-reply, are placed with the message they answer; parcels, as parcel-group
        // gathers them. `MailStore.init` places the stored ones, derives every conversation again
        // (each record gains `reports`) and reads the stored messages' parcels.
        """
        ALTER TABLE messages ADD COLUMN role TEXT;
        ALTER TABLE messages ADD COLUMN answers TEXT;
        UPDATE messages SET role = CASE
            WHEN json_extract(record, '$.is_draft') = 1 THEN 'draft'
            WHEN json_extract(record, '$.report.type') IS NOT NULL THEN 'report' END;
        UPDATE messages SET answers = CASE
            WHEN role = 'report' THEN json_extract(record, '$.report.original_message_id')
            WHEN role IS NULL AND mail_kind = 'automated'
              THEN coalesce(json_extract(record, '$.in_reply_to[0]'), json_extract(record, '$.references[#-1]')) END;
        UPDATE messages SET summary = json_set(summary, '$.report', json(record -> '$.report'),
            '$.is_draft', json(record -> '$.is_draft')) WHERE role IS NOT NULL;
        DROP INDEX messages_by_conversation;
        CREATE INDEX messages_by_conversation ON messages(conversation_id, role, date, id, change);
        CREATE INDEX messages_answering ON messages(answers) WHERE answers IS NOT NULL;
        CREATE TABLE parcel_observations(
          message INTEGER NOT NULL,
          position INTEGER NOT NULL,
          number_key TEXT,
          code_key TEXT,
          shipment TEXT NOT NULL,
          PRIMARY KEY(message, position)) WITHOUT ROWID;
        CREATE INDEX parcel_observations_by_number ON parcel_observations(number_key) WHERE number_key IS NOT NULL;
        CREATE INDEX parcel_observations_by_code ON parcel_observations(code_key) WHERE code_key IS NOT NULL;
        CREATE TABLE parcels(
          id TEXT PRIMARY KEY,
          status TEXT,
          last_date TEXT,
          deadline TEXT,
          expected_delivery TEXT,
          record TEXT NOT NULL,
          change INTEGER NOT NULL);
        CREATE INDEX parcels_by_date ON parcels(last_date DESC, id);
        CREATE INDEX parcels_by_change ON parcels(change);
        """,
        // 4: whether a message is yours beside its summary, which a site's pages read for every
        // message: a column costs nothing to read there, the summary's JSON a parse each
        """
        ALTER TABLE messages ADD COLUMN from_me INTEGER NOT NULL DEFAULT 0;
        UPDATE messages SET from_me = 1 WHERE json_extract(summary, '$.from_me') = 1;
        """,
        // 5: a report that names no message is in the notices conversation, as conversation-group
        // lists it, not in its participants'; and each event's sort key is written whole (it
        // stopped at its first NUL). `MailStore.init` places the stored reports again and
        // derives every event again
        "-- no table or column changes",
        // 6: a message's labels in one place, the `labels` column: `message_labels`, its index, is
        // made again from it (a label removed took with it the row of another of the same letters
        // in another case, which the column kept), and each record's `labels` member, a copy of them
        // as they were added, is made null (`MailStore.clearLabelsInRecords`, in the same transaction)
        """
        DELETE FROM message_labels;
        INSERT OR IGNORE INTO message_labels(label, message) SELECT l.value, m.rowid FROM messages m, json_each(m.labels) l;
        """,
        // 7: what the user did (read, archive, star, trash, send) queued for the mail's source,
        // one row a message and kind of change, until the source has it (`MailStore.queueAction`);
        // a message I send is stored at once, its state (sending, sent, failed) beside it
        """
        ALTER TABLE messages ADD COLUMN send_state TEXT;
        CREATE TABLE actions(
          id INTEGER PRIMARY KEY,
          message TEXT NOT NULL,
          kind TEXT NOT NULL,
          add_labels TEXT NOT NULL DEFAULT '[]',
          remove_labels TEXT NOT NULL DEFAULT '[]',
          source TEXT NOT NULL,
          state TEXT NOT NULL DEFAULT 'queued',
          queued TEXT NOT NULL,
          version INTEGER NOT NULL DEFAULT 1,
          tries INTEGER NOT NULL DEFAULT 0,
          last_try TEXT,
          last_error TEXT,
          raw BLOB,
          thread_id TEXT);
        CREATE INDEX actions_by_message ON actions(message, kind);
        """,
        // 8: each attachment of each message in a row, its bytes kept in `<database>.attachments/`
        // under its SHA-256 (`AttachmentFolder`). The rows of stored messages are made here, not
        // kept; `MailStore.keepAttachmentsAfterSchema8` then copies in the files their records name
        // that still hold their bytes
        """
        CREATE TABLE attachments(
          message INTEGER NOT NULL,
          part TEXT,
          position INTEGER NOT NULL,
          filename TEXT,
          content_type TEXT,
          detected_type TEXT,
          size INTEGER,
          sha256 TEXT,
          kept INTEGER NOT NULL);
        CREATE INDEX attachments_by_message ON attachments(message, position);
        CREATE INDEX attachments_by_sha256 ON attachments(sha256) WHERE sha256 IS NOT NULL;
        INSERT INTO attachments(message, part, position, filename, content_type, detected_type, size, sha256, kept)
          SELECT m.rowid, json_extract(a.value, '$.part'), a.key, json_extract(a.value, '$.filename'),
                 json_extract(a.value, '$.content_type'), json_extract(a.value, '$.detected_type'),
                 json_extract(a.value, '$.size'), json_extract(a.value, '$.sha256'), 0
          FROM messages m, json_each(m.record, '$.attachments') a
          WHERE m.attachment_count > 0 AND json_type(m.record, '$.attachments') = 'array' AND a.type = 'object';
        """,
        // 9: a sender's appointments read from text are one event group (a mail may move or
        // cancel any of them); `MailStore.deriveEveryEventGroup` then groups the observations again
        "SELECT 1;",
        // 10: the words a message's HTML alternative adds to its body text, in a column of their
        // own (`body:` reads both): the index is made again from every stored record
        // (`MailStore.indexEverySearchText`, in the same transaction)
        """
        DROP TABLE search;
        CREATE VIRTUAL TABLE search USING fts5(subject, sender, recipients, body, html, content='',
          tokenize='porter unicode61 remove_diacritics 2');
        """,
    ]

    /// The database at `db` made current: a new file gets the schema; an older version is
    /// migrated; a newer one, or a file of another application, is refused untouched.
    /// The version the database had before, when it was migrated from a released one (not made).
    @discardableResult
    static func prepare(_ db: Database) throws -> Int? {
        let application = try db.integer("PRAGMA application_id") ?? 0
        let current = try db.integer("PRAGMA user_version") ?? 0
        let tables = try db.integer("SELECT count(*) FROM sqlite_schema") ?? 0
        if application != applicationID && (application != 0 || tables > 0) {
            throw StoreError.notAStore(db.path)
        }
        if current > version { throw StoreError.newerSchema(db.path, current) }
        guard current < version else { return nil }
        var from = 0
        try db.transaction {
            // read again under the write lock: another process may have made it meanwhile
            from = try db.integer("PRAGMA user_version") ?? 0
            for k in from..<version {
                try db.execute(migrations[k])
                if k + 1 == 6 { try MailStore.clearLabelsInRecords(db) }
                if k + 1 == 10 { try MailStore.indexEverySearchText(db) }
            }
            try db.execute("PRAGMA application_id = \(applicationID); PRAGMA user_version = \(version)")
        }
        return from > 0 ? from : nil
    }
}
