import JSONLines
import SQLite

/// Gmail API `users.history.list` responses applied to the store: label changes and deletions
/// change the messages they name (found by `gmail_id`) and only their conversations are
/// derived again; messages the store lacks are listed for the caller to fetch.
extension MailStore {
    public struct HistoryResult {
        /// Messages to fetch (`messages.get?format=raw`, then mime-parse, the filters and
        /// `add`), as `{gmail_id, thread_id, label_ids}`, in the order the history names them.
        public var toFetch: [[UInt8]] = []
        public var labelChanges = 0
        public var deleted = 0
        public var lastHistoryID: String?
    }

    struct HistoryError: Error, CustomStringConvertible {
        var description: String
    }

    /// Applies one response (a JSON object with `history` and `historyId`). Must run in a batch.
    public func applyHistory(_ response: JSONValue, into result: inout HistoryResult) throws {
        guard case .object = response else { throw HistoryError(description: "not a users.history.list response (a JSON object)") }
        guard response["history"] != nil || response["historyId"] != nil else {
            throw HistoryError(description: "not a users.history.list response: it has neither 'history' nor 'historyId'")
        }
        var wanted: [String: JSONValue] = [:]
        var order: [String] = []
        for h in response["history"]?.arrayValue ?? [] {
            for added in h["messagesAdded"]?.arrayValue ?? [] {
                guard let m = added["message"], let id = m["id"]?.stringValue else { continue }
                guard try rowid(gmailID: id) == nil else { continue }
                if wanted[id] == nil { order.append(id) }
                wanted[id] = m
            }
            for (field, adding) in [("labelsAdded", true), ("labelsRemoved", false)] {
                for change in h[field]?.arrayValue ?? [] {
                    guard let m = change["message"], let id = m["id"]?.stringValue else { continue }
                    let labels = change["labelIds"]?.arrayValue?.compactMap(\.stringValue) ?? []
                    if try changeLabels(gmailID: id, labels, adding: adding) {
                        result.labelChanges += 1
                    } else if wanted[id] != nil {
                        wanted[id] = m  // fetched later with its labels as they are then
                    } else {
                        order.append(id)
                        wanted[id] = m
                    }
                }
            }
            for deleted in h["messagesDeleted"]?.arrayValue ?? [] {
                guard let id = deleted["message"]?["id"]?.stringValue else { continue }
                wanted[id] = nil
                if let r = try rowid(gmailID: id) {
                    try delete(rowid: r)
                    result.deleted += 1
                }
            }
            if let id = Self.historyText(h["id"]) { result.lastHistoryID = Self.later(result.lastHistoryID, id) }
        }
        if let id = Self.historyText(response["historyId"]) { result.lastHistoryID = Self.later(result.lastHistoryID, id) }
        for id in order {
            guard let m = wanted.removeValue(forKey: id) else { continue }
            var w = JSONWriter(capacity: 128)
            w.beginObject()
            w.field("gmail_id", id)
            w.field("thread_id", m["threadId"]?.stringValue)
            w.field("label_ids", strings: m["labelIds"]?.arrayValue?.compactMap(\.stringValue) ?? [])
            w.endObject()
            result.toFetch.append(w.bytes)
        }
        if let last = result.lastHistoryID, Self.later(try historyID(), last) == last {
            try setConfig("history_id", last)
        }
    }

    /// History ids are unsigned 64-bit numbers, written as strings or numbers.
    static func historyText(_ v: JSONValue?) -> String? {
        switch v {
        case .string(let s)?: UInt64(s) != nil ? s : nil
        case .number(let s)?: UInt64(s) != nil ? s : nil
        default: nil
        }
    }

    static func later(_ a: String?, _ b: String) -> String {
        guard let a, let x = UInt64(a), let y = UInt64(b) else { return b }
        return x >= y ? a : b
    }

    func rowid(gmailID: String) throws -> Int? {
        try db.integer("SELECT rowid FROM messages WHERE gmail_id = ?", .text(gmailID))
    }

    /// Adds or removes labels of the message with this Gmail id; false when there is none.
    func changeLabels(gmailID: String, _ changes: [String], adding: Bool) throws -> Bool {
        guard let rowid = try rowid(gmailID: gmailID) else { return false }
        try changeLabels(rowid: rowid, add: adding ? changes : [], remove: adding ? [] : changes)
        return true
    }
}
