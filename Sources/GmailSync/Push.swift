import HTTP
import JSONLines
import MailStore
import UnixFilter
import UTF8Text

/// The push half of a pass: what the user did in the store (`mailstore mark`, `label`, `send`)
/// and queued for Gmail, done on Gmail once the pass has read Gmail's history (so that a change
/// made on Gmail since wins, and a message trashed there is not changed; the history of the next
/// pass echoes ours, which the store already shows). Each action leaves the queue only once
/// Gmail has it, and a send is never made twice: a send whose outcome is unknown (the connection
/// dropped after Gmail may have taken it, a kill in the middle) is looked for on Gmail by its
/// Message-ID before it is sent again.
extension GmailSync {
    /// Gmail's batchModify takes at most 1,000 ids a call.
    static let batchLimit = 1000

    /// Whether something is left for the next pass (Gmail could not be reached).
    func push(_ store: MailStore) throws(PassEnd) -> Bool {
        let queued = try storeCall { try store.actions(source: .gmail, queuedOnly: true) }
        guard !queued.isEmpty else { return false }
        var unreachable = false
        // label changes, grouped by change: one batchModify for every message given the same labels
        var groups: [[String]: [MailStore.Action]] = [:]
        var order: [[String]] = []
        for action in queued where action.kind == "labels" {
            let key = [action.add.joined(separator: ","), action.remove.joined(separator: ",")]
            if groups[key] == nil { order.append(key) }
            groups[key, default: []].append(action)
        }
        for key in order where !unreachable {
            let group = groups[key]!
            var start = 0
            while start < group.count && !unreachable {
                let batch = Array(group[start..<min(start + Self.batchLimit, group.count)])
                unreachable = try modify(batch, in: store)
                start += Self.batchLimit
            }
        }
        for action in queued where ["trash", "untrash"].contains(action.kind) && !unreachable {
            unreachable = try moveToOrFromTrash(action, in: store)
        }
        for action in queued where action.kind == "send" && !unreachable {
            unreachable = try send(action, in: store)
        }
        if unreachable { diagnostics.note("Gmail could not be reached: what waits to be done there is left for the next pass") }
        return unreachable
    }

    /// One batchModify for actions that make the same change; when Gmail refuses it (an id it no
    /// longer has), each message on its own, so that one gone message does not hold back the
    /// others. Whether Gmail could not be reached (the rest waits for the next pass).
    private func modify(_ actions: [MailStore.Action], in store: MailStore) throws(PassEnd) -> Bool {
        let live = try dropMissing(actions, in: store)
        guard let first = live.first else { return false }
        var w = JSONWriter()
        w.beginObject()
        w.field("ids", strings: live.compactMap(\.gmailID))
        w.field("addLabelIds", strings: first.add)
        w.field("removeLabelIds", strings: first.remove)
        w.endObject()
        switch try api.post("/messages/batchModify", json: w.bytes) {
        case .answer:
            try storeCall { for a in live { try store.actionDone(a) } }
            return false
        case .refused, .notFound:
            for action in live {
                var one = JSONWriter()
                one.beginObject()
                one.field("addLabelIds", strings: action.add)
                one.field("removeLabelIds", strings: action.remove)
                one.endObject()
                let outcome = try api.post("/messages/\(URLText.pathSegment(action.gmailID ?? ""))/modify", json: one.bytes)
                if try settle(action, outcome, in: store) { return true }
            }
            return false
        case .failed, .waitTooLong:
            try storeCall { for a in live { try store.actionFailed(a, reason: "Gmail did not answer (batchModify)", drop: false) } }
            return true
        }
    }

    private func moveToOrFromTrash(_ action: MailStore.Action, in store: MailStore) throws(PassEnd) -> Bool {
        guard let gmailID = try dropMissing([action], in: store).first?.gmailID else { return false }
        return try settle(action, try api.post("/messages/\(URLText.pathSegment(gmailID))/\(action.kind)", json: []), in: store)
    }

    /// The queue after one request for `action`: done, dropped (Gmail no longer has the message,
    /// or refuses the change for good), or kept for the next pass. Whether Gmail could not be
    /// reached.
    private func settle(_ action: MailStore.Action, _ outcome: GmailAPI.Outcome, in store: MailStore) throws(PassEnd) -> Bool {
        switch outcome {
        case .answer:
            try storeCall { try store.actionDone(action) }
        case .notFound:
            try storeCall { try store.actionFailed(action, reason: "the message is no longer on Gmail", drop: true) }
            diagnostics.note("message \(shownText(action.message)) is no longer on Gmail: its \(action.kind) change was dropped")
        case .refused(let why):
            try storeCall { try store.actionFailed(action, reason: why, drop: true) }
            diagnostics.note("Gmail refused the \(action.kind) change of \(shownText(action.message)) (\(why)): dropped")
        case .failed, .waitTooLong:
            try storeCall { try store.actionFailed(action, reason: "Gmail did not answer", drop: false) }
            return true
        }
        return false
    }

    /// The actions whose message the store (and so Gmail) still has; the others are dropped.
    private func dropMissing(_ actions: [MailStore.Action], in store: MailStore) throws(PassEnd) -> [MailStore.Action] {
        var live: [MailStore.Action] = []
        for a in actions {
            if a.gmailID == nil {
                try storeCall { try store.actionFailed(a, reason: "the message is no longer in the store", drop: true) }
            } else {
                live.append(a)
            }
        }
        return live
    }

    /// users.messages.send, in the thread of what the message answers. A send tried before (its
    /// outcome unknown) is first looked for: found, it is sent; else it is sent now. Whether
    /// Gmail could not be reached.
    private func send(_ action: MailStore.Action, in store: MailStore) throws(PassEnd) -> Bool {
        guard let (raw, thread) = try storeCall({ try store.outgoing(action) }) else { return false }
        if action.tries > 0 {
            let query = "rfc822msgid:" + action.message
            switch try api.get("/messages?q=\(URLText.component(query))&includeSpamTrash=true&maxResults=1") {
            case .answer(let bytes):
                if let found = (try? JSONValue.parse(bytes))?["messages"]?.arrayValue?.first, let id = found["id"]?.stringValue {
                    try storeCall { try store.sendDone(action, gmailID: id, threadID: found["threadId"]?.stringValue) }
                    return false
                }
            case .notFound, .refused:
                break
            case .failed, .waitTooLong:
                return true
            }
        }
        // counted before it goes: killed after Gmail took it, the next pass looks before sending
        try storeCall { try store.actionFailed(action, reason: "sending", drop: false) }
        var w = JSONWriter(capacity: raw.count * 4 / 3 + 128)
        w.beginObject()
        w.key("raw")
        w.string(utf8: Base64.encodeURL(LineEnds.crlf(raw)))
        w.field("threadId", thread)
        w.endObject()
        switch try api.post("/messages/send", json: w.bytes, once: true) {
        case .answer(let bytes):
            let sent = try? JSONValue.parse(bytes)
            try storeCall { try store.sendDone(action, gmailID: sent?["id"]?.stringValue, threadID: sent?["threadId"]?.stringValue) }
            return false
        case .refused(let why):
            try storeCall { try store.sendFailed(action, reason: "Gmail refused it: \(why)", permanently: true) }
            diagnostics.note("Gmail refused to send \(shownText(action.message)) (\(why)): marked failed")
            return false
        case .notFound:
            try storeCall { try store.sendFailed(action, reason: "Gmail refused it: no such thread", permanently: true) }
            return false
        case .failed, .waitTooLong:
            try storeCall { try store.sendFailed(action, reason: "Gmail did not answer; looked for before it is sent again", permanently: false) }
            return true
        }
    }
}
