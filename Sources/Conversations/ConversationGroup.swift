#if canImport(Glibc)
import Glibc
#endif
import CivilTime
import Events
import Hashing
import JSONLines
import MailSubject
import UnixFilter
import UTF8Text

/// conversation-group's run: all annotated messages in, one record per conversation out.
/// Keeps a summary per message (not its body, unless `embed`), so memory grows with the
/// number of messages' ids and conversations, not with the mail.
public struct ConversationGroup {
    public enum Grouping: String, CaseIterable, Sendable { case participants, thread }
    public enum SortOrder: String, CaseIterable, Sendable { case lastDate = "last-date", firstDate = "first-date", count, input }

    public var grouping = Grouping.participants
    public var subjectFallback = false
    /// Seconds of silence after which a new conversation starts.
    public var maxGap: Int?
    public var sort = SortOrder.lastDate
    public var embed = false
    /// The input is sorted by participant_hash: write each conversation when the next starts.
    public var sorted = false
    public var rules = AddressRules()
    /// The instant events are upcoming from (their end is not before it).
    public var now = Int(Glibc.time(nil))

    public init() {}

    /// The conversation with nobody that lists the read receipts and bounces whose message is
    /// not in the input: the participant_hash of an empty key.
    public static let noticesID = SHA256.hex([])

    struct MissingField: Error, CustomStringConvertible {
        var name: String
        var description: String {
            name == "participant_hash" ? "the record has no participant_hash (run participant-hash first)" : "the record has no \(name)"
        }
    }

    struct NotSorted: Error, CustomStringConvertible {
        var key: String
        var description: String { "--sorted, but conversation \(key) appears again after others" }
    }

    public func run(_ run: FilterRun) throws {
        let normalizer = AddressNormalizer(rules: rules)
        var conversations: [String: Conversation] = [:]
        var order: [String] = []  // keys in order of first appearance
        var seenIDs: [String: String] = [:]  // message id → conversation key, for duplicates
        let threads = ThreadBuilder()
        var threadInfo: [(id: String, gmailThread: String?, subject: String)] = []
        var flushed = Set<String>()
        var current: String?
        // read receipts and bounces, by the id of the message they are about, until its
        // conversation is written
        var reports = PendingReports()
        var autoReplies: [(id: String, original: String)] = []

        func flush(_ key: String) throws {
            guard var c = conversations.removeValue(forKey: key) else { return }
            var parts = split(&c)
            reports.place(in: &parts, final: false)
            for part in parts { try write(part, to: run) }
            flushed.insert(key)
        }

        try filterRecords(run, progressNoun: "messages") { record in
            guard let id = record.string("id") ?? record.string("message_id") else { throw MissingField(name: "id") }
            let role = StoredConversation.role(of: record)
            switch role {
            case "draft": return nil  // not sent: in no conversation
            case "report":  // a read receipt or a bounce: listed with its message
                reports.add(Self.summary(of: record, id: id, normalizer: normalizer, embed: false))
                return nil
            default: break
            }
            // by participants, the key; by thread, each message alone until all are read
            var groupKey: String
            switch grouping {
            case .participants:
                guard let hash = record.string("participant_hash") else { throw MissingField(name: "participant_hash") }
                groupKey = hash
            case .thread:
                groupKey = id
            }
            // a reaction joins the conversation of its message, as an auto-reply does
            let isReaction = role == "reaction"
            let answered = StoredConversation.answers(record, role: role)
            if sorted, let current {
                // sorted input: the message an auto-reply answers is found only in the run being read
                groupKey = StoredConversation.placement(role: nil, answers: answered, key: groupKey) { seenIDs[$0] == current ? current : nil }
            }
            if let earlier = seenIDs[id] {
                // the same message again (Takeout repeats one per label): merge its labels
                let labels = record.value("labels")?.arrayValue?.compactMap(\.stringValue) ?? []
                if let k = conversations[earlier]?.messages.firstIndex(where: { $0.id == id }) {
                    for l in labels where !conversations[earlier]!.messages[k].labels.contains(l) {
                        conversations[earlier]!.messages[k].labels.append(l)
                    }
                }
                return nil
            }
            let summary = Self.summary(of: record, id: id, normalizer: normalizer, embed: embed)
            if grouping == .thread {
                threads.add(id: id, inReplyTo: record.value("in_reply_to")?.arrayValue?.compactMap(\.stringValue) ?? [],
                            references: record.value("references")?.arrayValue?.compactMap(\.stringValue) ?? [])
                threadInfo.append((id, record.string("thread_id"), record.string("subject") ?? ""))
            }
            if sorted && grouping == .participants {
                if flushed.contains(groupKey) { throw NotSorted(key: groupKey) }
                if let c = current, c != groupKey { try flush(c) }
                current = groupKey
            }
            if conversations[groupKey] == nil {
                let participants = record.value("participants")?.arrayValue?.compactMap(\.stringValue) ?? []
                conversations[groupKey] = Conversation(id: groupKey, participants: participants)
                order.append(groupKey)
            }
            if isReaction {
                conversations[groupKey]!.reactions.append(summary)
            } else {
                conversations[groupKey]!.messages.append(summary)
            }
            seenIDs[id] = groupKey
            if let answered { autoReplies.append((id, answered)) }
            return nil
        }
        if grouping == .participants && !sorted {
            // an auto-reply joins the conversation of the message it answers (a group's, say)
            for (id, original) in autoReplies {
                guard let from = seenIDs[id] else { continue }
                let to = StoredConversation.placement(role: nil, answers: original, key: from) { seenIDs[$0] }
                guard to != from, conversations[to] != nil, conversations[from] != nil else { continue }
                if let k = conversations[from]!.messages.firstIndex(where: { $0.id == id }) {
                    conversations[to]!.messages.append(conversations[from]!.messages.remove(at: k))
                } else if let k = conversations[from]!.reactions.firstIndex(where: { $0.id == id }) {
                    conversations[to]!.reactions.append(conversations[from]!.reactions.remove(at: k))
                } else {
                    continue
                }
                if conversations[from]!.messages.isEmpty && conversations[from]!.reactions.isEmpty { conversations[from] = nil }
                seenIDs[id] = to
            }
        }
        if sorted && grouping == .participants {
            if let c = current { try flush(c) }
            var notices: [Conversation] = []
            reports.place(in: &notices, final: true)
            for c in notices { try write(c, to: run) }
            return
        }
        if grouping == .thread {
            // the user's prefixes file is read only where it matters
            let prefixes = subjectFallback ? try SubjectPrefixes.load(run.diagnostics) : .builtIn
            (conversations, order) = regroupByThread(conversations, order: order, threads: threads, info: threadInfo, prefixes: prefixes)
        }
        var all: [Conversation] = []
        for key in order {
            guard var c = conversations[key] else { continue }
            all += split(&c)
        }
        reports.place(in: &all, final: true)
        switch sort {
        case .lastDate: all.sort { $0.lastDate != $1.lastDate ? $0.lastDate > $1.lastDate : $0.id < $1.id }
        case .firstDate: all.sort { $0.firstDate != $1.firstDate ? $0.firstDate < $1.firstDate : $0.id < $1.id }
        case .count: all.sort { $0.messages.count != $1.messages.count ? $0.messages.count > $1.messages.count : $0.id < $1.id }
        case .input: break
        }
        for c in all { try write(c, to: run) }
    }

    private func write(_ c: Conversation, to run: FilterRun) throws {
        var w = JSONWriter()
        c.write(&w, embed: embed, now: now)
        try run.write(w.bytes)
    }

    /// With --max-gap: a conversation split where its messages fall silent for longer.
    /// The parts after the first get ids with "-2", "-3", ….
    func split(_ c: inout Conversation) -> [Conversation] {
        guard let maxGap, c.messages.count > 1 else { return [c] }
        var parts: [Conversation] = []
        var part = Conversation(id: c.id, participants: c.participants)
        var lastTime: Int?
        for m in c.ordered {
            let t = CivilDate.epoch(rfc3339: m.date)
            if let lastTime, let t, t - lastTime > maxGap {
                parts.append(part)
                part = Conversation(id: c.id + "-\(parts.count + 1)", participants: c.participants)
            }
            part.messages.append(m)
            if t != nil { lastTime = t }
        }
        parts.append(part)
        // a reaction goes with its message (one to a message not in the mail, with the last part)
        for r in c.reactions {
            let k = parts.firstIndex { p in p.messages.contains { $0.id == r.reaction?.of } } ?? parts.count - 1
            parts[k].reactions.append(r)
        }
        return parts
    }

    /// Thread mode: Gmail's thread id when a message has one, else the root of its
    /// References/In-Reply-To thread; with --subject-fallback, threads with one subject
    /// (less Re:, Fwd: and their translations) join.
    private func regroupByThread(_ byMessage: [String: Conversation], order: [String], threads: ThreadBuilder,
                                 info: [(id: String, gmailThread: String?, subject: String)], prefixes: SubjectPrefixes)
        -> ([String: Conversation], [String])
    {
        var result: [String: Conversation] = [:]
        var newOrder: [String] = []
        var bySubject: [String: String] = [:]
        for entry in info {
            guard let single = byMessage[entry.id] else { continue }
            var key = entry.gmailThread.map { "gmail:" + $0 } ?? threads.root(of: entry.id)
            if subjectFallback, entry.gmailThread == nil {
                let subject = Subject.normalized(entry.subject, prefixes: prefixes)
                if !subject.isEmpty {
                    if let existing = bySubject[subject] { key = existing } else { bySubject[subject] = key }
                }
            }
            if result[key] == nil {
                let id = key.hasPrefix("gmail:") ? String(key.dropFirst(6)) : key
                result[key] = Conversation(id: id, participants: [])
                newOrder.append(key)
            }
            result[key]!.messages += single.messages
            result[key]!.reactions += single.reactions
            result[key]!.participants += single.participants
        }
        for key in newOrder { result[key]!.participants = Array(Set(result[key]!.participants)).sorted() }
        return (result, newOrder)
    }

    /// The id of the message an automated reply answers: its In-Reply-To, else the last of its References.
    public static func answered(_ record: JSONRecord) -> String? {
        record.value("in_reply_to")?.arrayValue?.first?.stringValue ?? record.value("references")?.arrayValue?.last?.stringValue
    }

    static func summary(of record: JSONRecord, id: String, normalizer: AddressNormalizer, embed: Bool) -> MessageSummary {
        var names: [(String, String)] = []
        func addName(_ v: JSONValue) {
            if let a = v["address"]?.stringValue.flatMap(normalizer.normalize), let n = v["name"]?.stringValue { names.append((a, n)) }
        }
        let from = record.value("from") ?? .null
        addName(from)
        for field in ["to", "cc"] { for v in record.value(field)?.arrayValue ?? [] { addName(v) } }
        let mailKind = record.string("mail_kind")
        return MessageSummary(
            id: id,
            date: record.string("date") ?? "",
            labels: record.value("labels")?.arrayValue?.compactMap(\.stringValue) ?? [],
            fromGmail: record.string("gmail_id") != nil || record.string("thread_id") != nil,
            fromMe: record.value("from_me") == .bool(true),
            from: from,
            snippet: record.string("snippet") ?? Snippet.of(record.stringPrefix("text", maxBytes: 8192) ?? record.string("subject") ?? ""),
            isNewsletter: mailKind == "newsletter" || (mailKind == nil && record.value("is_newsletter") == .bool(true)),
            isGroup: record.value("is_group") == .bool(true),
            shipments: record.value("shipments")?.arrayValue ?? [],
            events: record.value("events")?.arrayValue ?? [],
            names: names,
            record: embed ? record.bytes : nil,
            isAutomated: mailKind == "automated",
            report: MessageSummary.Report(record.value("report")),
            reaction: record.string("reaction").flatMap { r in StoredConversation.reactsTo(record).map { (Reactions.emoji(r), $0) } })
    }
}

/// Reports (read receipts, bounces) waiting for the conversations that may hold their messages.
struct PendingReports {
    /// By the id of the message each is about ("" for none).
    private var waiting: [String: [MessageSummary]] = [:]
    private var seen = Set<String>()

    mutating func add(_ report: MessageSummary) {
        guard seen.insert(report.id).inserted else { return }  // Takeout's copy of it under another label
        waiting[report.report?.of ?? "", default: []].append(report)
    }

    /// Lists each waiting report where `StoredConversation.placement` puts it, when that is one of
    /// `conversations` (the one that holds its message) or, when `final`, the notices conversation
    /// (appended when it lists any); the others wait for conversations still to come.
    mutating func place(in conversations: inout [Conversation], final: Bool) {
        var index: [String: Int] = [:]  // conversation id → place in `conversations`
        var holding: [String: String] = [:]  // id of a message reports wait for → its conversation's id
        for (k, c) in conversations.enumerated() {
            index[c.id] = k
            for m in c.messages where waiting[m.id] != nil { holding[m.id] = c.id }
        }
        var notices = Conversation(id: ConversationGroup.noticesID, participants: [])
        for original in final ? Array(waiting.keys) : Array(holding.keys) {
            for r in waiting.removeValue(forKey: original) ?? [] {
                // (a report is never placed with its own participants: it needs no key of its own)
                let id = StoredConversation.placement(role: "report", answers: r.report?.of, key: notices.id) { holding[$0] }
                if let k = index[id] { conversations[k].reports.append(r) } else { notices.reports.append(r) }
            }
        }
        if !notices.reports.isEmpty { conversations.append(notices) }
    }
}

enum Subject {
    /// The subject without reply and forward prefixes and [list] tags, lowercased, whitespace collapsed.
    static func normalized(_ subject: String, prefixes: SubjectPrefixes) -> String {
        var s = Substring(subject.lowercased())
        while true {
            s = s.drop(while: { $0.isWhitespace })
            if let prefix = prefixes.prefix(of: s) {
                s = prefix.rest
            } else if s.hasPrefix("["), let close = s.firstIndex(of: "]"), s[..<close].allSatisfy({ $0 != " " }) {
                s = s[s.index(after: close)...]
            } else {
                break
            }
        }
        return s.split(whereSeparator: \.isWhitespace).joined(separator: " ")
    }
}

/// `30d`, `12h`, `90m`, `45s`, `2w` (or a bare number of seconds): a duration in seconds.
public enum Duration {
    public static func seconds(_ text: String) -> Int? {
        if let plain = Int(text) { return plain >= 0 ? plain : nil }
        guard let unit = text.last, let n = Int(text.dropLast()), n >= 0 else { return nil }
        switch unit {
        case "s": return n
        case "m": return n * 60
        case "h": return n * 3600
        case "d": return n * 86400
        case "w": return n * 7 * 86400
        default: return nil
        }
    }
}
