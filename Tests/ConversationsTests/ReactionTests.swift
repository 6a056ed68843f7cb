import Testing
import JSONLines
@testable import Conversations

@Suite struct ReactionTests {
    func record(_ json: String) throws -> JSONRecord { try JSONRecord(json) }

    /// A reaction's summary: `emoji` as mime-parse's `reaction` holds them, from `from`.
    func reaction(_ id: String, to of: String, _ emoji: String, from: String = "bob@x", date: String = "2026-01-02T00:00:00Z") -> MessageSummary {
        var m = message(id, date: date)
        m.from = .object([("name", .null), ("address", .string(from))])
        m.reaction = (Reactions.emoji(emoji), of)
        return m
    }

    @Test func aReactionAnswersTheMessageItNames() throws {
        let r = try record(#"{"id":"r","is_draft":false,"report":null,"reaction":"👍","in_reply_to":["m","n"]}"#)
        #expect(StoredConversation.role(of: r) == "reaction")
        #expect(StoredConversation.answers(r, role: "reaction") == "m")
        // without In-Reply-To it reacts to nothing: a message like any other
        let alone = try record(#"{"id":"a","is_draft":false,"report":null,"reaction":"👍","in_reply_to":[]}"#)
        #expect(StoredConversation.role(of: alone) == nil)
        let plain = try record(#"{"id":"p","is_draft":false,"report":null,"reaction":null,"in_reply_to":["m"]}"#)
        #expect(StoredConversation.role(of: plain) == nil)
        // a draft stays a draft
        let draft = try record(#"{"id":"d","is_draft":true,"report":null,"reaction":"👍","in_reply_to":["m"]}"#)
        #expect(StoredConversation.role(of: draft) == "draft")
    }

    @Test func emojiAreCountedOnceEachAndSequencesAreOne() {
        #expect(Reactions.emoji("👍 👍😀") == ["👍", "😀"])
        #expect(Reactions.emoji("👨‍👩‍👧 🇫🇷 👍🏽") == ["👨‍👩‍👧", "🇫🇷", "👍🏽"])
        #expect(Reactions.emoji("") == [])
    }

    @Test func aLaterReactionOfTheSamePersonReplacesTheirEarlierOne() {
        let all = [
            reaction("r1", to: "m", "👍", from: "bob@x", date: "2026-01-02T00:00:00Z"),
            reaction("r2", to: "m", "😂", from: "Bob@X", date: "2026-01-03T00:00:00Z"),
            reaction("r3", to: "m", "👍", from: "carol@x", date: "2026-01-02T10:00:00Z"),
            reaction("r4", to: "n", "❤️", from: "bob@x", date: "2026-01-01T00:00:00Z"),
        ]
        // in any order they come
        for list in [all, all.reversed()] {
            let current = Reactions.current(list)
            #expect(current.map(\.id) == ["r3", "r2", "r4"])
        }
    }

    @Test func anEmptyReactionTakesItBack() {
        let current = Reactions.current([
            reaction("r1", to: "m", "👍", date: "2026-01-02T00:00:00Z"),
            reaction("r2", to: "m", "", date: "2026-01-03T00:00:00Z"),
        ])
        #expect(current.isEmpty)
        // an older empty one takes back nothing sent after it
        #expect(Reactions.current([
            reaction("r1", to: "m", "👍", date: "2026-01-04T00:00:00Z"),
            reaction("r2", to: "m", "", date: "2026-01-03T00:00:00Z"),
        ]).map(\.id) == ["r1"])
    }

    @Test func theRecordListsReactionsAndDoesNotCountThemAsMessages() throws {
        var c = Conversation(id: "c", participants: ["bob@x"])
        c.messages = [message("m", date: "2026-01-01T00:00:00Z")]
        c.reactions = [reaction("r", to: "m", "👍 🎉")]
        var w = JSONWriter()
        c.write(&w, embed: false, now: 0)
        let out = try JSONValue.parse(w.bytes)
        #expect(out["message_count"]?.intValue == 1)
        #expect(out["message_ids"] == .array([.string("m")]))
        #expect(out["last_date"] == .string("2026-01-01T00:00:00Z"))
        let listed = try #require(out["reactions"]?.arrayValue)
        #expect(listed.count == 1)
        #expect(listed[0]["message_id"] == .string("r") && listed[0]["of"] == .string("m"))
        #expect(listed[0]["emoji"] == .array([.string("👍"), .string("🎉")]))
        #expect(listed[0]["from"]?["address"] == .string("bob@x"))
        #expect(listed[0]["from_me"] == .bool(false))
        #expect(listed[0]["date"] == .string("2026-01-02T00:00:00Z"))
    }

    @Test func maxGapKeepsAReactionWithItsMessage() {
        var g = ConversationGroup()
        g.maxGap = 86_400
        var c = Conversation(id: "h", participants: ["a@x"])
        c.messages = [message("1", date: "2026-01-01T00:00:00Z"), message("2", date: "2026-02-01T00:00:00Z")]
        c.reactions = [reaction("r", to: "1", "👍", date: "2026-02-02T00:00:00Z"), reaction("s", to: "gone", "👍")]
        let parts = g.split(&c)
        #expect(parts.map { $0.reactions.map(\.id) } == [["r"], ["s"]])
    }

    /// The store's summaries: a reaction is its conversation's `reactions`, and a message added
    /// later (the store's quick way) keeps them as deriving the whole does.
    @Test func storedConversationsListReactionsTheSameEitherWay() throws {
        let key = ParticipantKey.hash(["bob@x"])
        func stored(_ json: String, labels: [String] = ["INBOX"]) throws -> StoredConversation.Message {
            let r = try record(json)
            let summary = StoredConversation.summaryRecord(of: r, id: r.string("id")!, key: ParticipantKey(participants: ["bob@x"], fromMe: false, kind: .people))
            return StoredConversation.Message(summary: try JSONRecord(summary), labels: labels)
        }
        let m1 = try stored(#"{"id":"m1","date":"2026-01-01T00:00:00Z","from":{"name":"Bob","address":"bob@x"},"text":"hi","reaction":null,"in_reply_to":[]}"#)
        let m2 = try stored(#"{"id":"m2","date":"2026-01-01T01:00:00Z","from":{"name":"Bob","address":"bob@x"},"text":"there","reaction":null,"in_reply_to":[]}"#)
        let r = try stored(#"{"id":"r","date":"2026-01-01T02:00:00Z","from":{"name":"Bob","address":"bob@x"},"text":"👍","reaction":"👍","in_reply_to":["m1"]}"#)
        let m3 = try stored(#"{"id":"m3","date":"2026-01-01T03:00:00Z","from":{"name":"Bob","address":"bob@x"},"text":"more","reaction":null,"in_reply_to":[]}"#)
        #expect(r.summary.string("reaction") == "👍")
        #expect(m1.summary.member("reaction") == nil)  // only a reaction's summary carries it

        let before = try #require(StoredConversation.derive(id: key, messages: [m1, m2, r], rules: AddressRules(), now: 0))
        #expect(before.messageCount == 2)
        let old = try JSONRecord(before.record)
        #expect(old.value("reactions")?.arrayValue?.first?["of"] == .string("m1"))
        #expect(old.value("message_ids") == .array([.string("m1"), .string("m2")]))

        let whole = try #require(StoredConversation.derive(id: key, messages: [m1, m2, r, m3], rules: AddressRules(), now: 0))
        let quick = try #require(StoredConversation.appending(m3, to: old, id: key, hadListMail: false, hadEvents: false, rules: AddressRules(), now: 0))
        #expect(quick.record == whole.record)
        // a reaction is never added the quick way: its message's bubble changes
        #expect(StoredConversation.appending(r, to: old, id: key, hadListMail: false, hadEvents: false, rules: AddressRules(), now: 0) == nil)
    }
}
