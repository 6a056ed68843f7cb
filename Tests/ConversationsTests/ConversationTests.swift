import Testing
import JSONLines
import MailSubject
import UTF8Text
@testable import Conversations

func message(_ id: String, date: String = "2026-01-01T00:00:00Z", labels: [String] = ["INBOX"], fromMe: Bool = false,
             fromGmail: Bool = false) -> MessageSummary {
    MessageSummary(id: id, date: date, labels: labels, fromGmail: fromGmail, fromMe: fromMe, from: .null, snippet: "", isNewsletter: false,
                   isGroup: false, shipments: [], events: [], names: [], record: nil)
}

@Suite struct VisibilityTests {
    func conversation(_ messages: [MessageSummary]) -> Conversation {
        var c = Conversation(id: "c", participants: ["a@x"])
        c.messages = messages
        return c
    }

    @Test func anyMessageInTheInboxKeepsItVisible() {
        #expect(!conversation([message("1", labels: ["Archived"]), message("2", labels: ["INBOX"])]).archived)
    }

    @Test func allMessagesOutOfTheInboxIsArchived() {
        #expect(conversation([message("1", labels: ["Archived"]), message("2", labels: ["IMPORTANT"])]).archived)
    }

    @Test func onlySentStaysVisibleUntilArchived() {
        #expect(!conversation([message("1", labels: ["SENT"], fromMe: true)]).archived)
        #expect(conversation([message("1", labels: ["SENT", "Archived"], fromMe: true)]).archived)
        #expect(conversation([message("1", labels: ["SENT"], fromMe: true), message("2", labels: ["TRASH"], fromMe: true)]).archived)
    }

    /// Mail delivered by procmail or fetchmail, or read from a maildir or a plain mbox, has no
    /// labels: it is in the inbox, not archived (the chat list would be empty otherwise).
    @Test func mailWithoutLabelsIsInTheInbox() {
        #expect(!conversation([message("1", labels: [])]).archived)
        #expect(!conversation([message("1", labels: []), message("2", labels: [], fromMe: true)]).archived)
        #expect(conversation([message("1", labels: ["IMPORTANT"])]).archived)
    }

    /// A Gmail message whose labels were all taken away (archived, read) has left the inbox.
    @Test func gmailMailWithoutLabelsHasLeftTheInbox() {
        #expect(conversation([message("1", labels: [], fromGmail: true)]).archived)
        #expect(!conversation([message("1", labels: [], fromGmail: true), message("2", labels: ["INBOX"], fromGmail: true)]).archived)
    }

    @Test func aNewerMessageInTheInboxBringsItBack() {
        let old = message("1", date: "2025-01-01T00:00:00Z", labels: ["Archived"])
        #expect(conversation([old]).archived)
        #expect(!conversation([old, message("2", date: "2026-01-01T00:00:00Z", labels: ["INBOX", "UNREAD"])]).archived)
    }
}

@Suite struct ThreadingTests {
    @Test func repliesFindTheirRoot() {
        let t = ThreadBuilder()
        t.add(id: "a", inReplyTo: [], references: [])
        t.add(id: "b", inReplyTo: ["a"], references: ["a"])
        t.add(id: "c", inReplyTo: ["b"], references: ["a", "b"])
        #expect(t.root(of: "c") == "a")
        #expect(t.root(of: "b") == "a")
    }

    @Test func missingParentsArePlaceholders() {
        let t = ThreadBuilder()
        t.add(id: "c", inReplyTo: [], references: ["lost-root", "lost-middle"])
        t.add(id: "d", inReplyTo: ["lost-root"], references: [])
        #expect(t.root(of: "c") == "lost-root")
        #expect(t.root(of: "d") == "lost-root")
    }

    @Test func inReplyToWinsUnlessItIsNotOneID() {
        let t = ThreadBuilder()
        t.add(id: "x", inReplyTo: ["p"], references: ["q"])
        #expect(t.root(of: "x") == "p")
        let u = ThreadBuilder()
        u.add(id: "y", inReplyTo: ["p1", "p2"], references: ["r1", "r2"])  // ambiguous: notmuch takes References
        #expect(u.root(of: "y") == "r1")
    }

    @Test func cyclesAreNotMade() {
        let t = ThreadBuilder()
        t.add(id: "a", inReplyTo: ["b"], references: [])
        t.add(id: "b", inReplyTo: ["a"], references: [])
        let ra = t.root(of: "a"), rb = t.root(of: "b")
        #expect(ra == rb)  // one thread, and root() came back: no loop
        t.add(id: "self", inReplyTo: ["self"], references: ["self"])
        #expect(t.root(of: "self") == "self")
    }

    @Test func aDuplicateIDDoesNotBreakTheTree() {
        let t = ThreadBuilder()
        t.add(id: "a", inReplyTo: [], references: [])
        t.add(id: "b", inReplyTo: ["a"], references: ["a"])
        t.add(id: "a", inReplyTo: ["b"], references: ["b"])  // a second message claiming id "a"
        #expect(t.root(of: "b") == t.root(of: "a"))
    }
}

@Suite struct GroupingHelperTests {
    @Test(arguments: [("30d", 2_592_000), ("12h", 43_200), ("90m", 5_400), ("45s", 45), ("2w", 1_209_600), ("60", 60)])
    func durations(_ text: String, _ seconds: Int) {
        #expect(Duration.seconds(text) == seconds)
    }

    @Test func badDurations() {
        #expect(Duration.seconds("soon") == nil)
        #expect(Duration.seconds("3y") == nil)
    }

    @Test(arguments: [("Re: RE: Fwd: Lunch", "lunch"), ("回覆: 午餐", "午餐"), ("[swift-dev] Re: Streaming", "streaming"), ("AW: Treffen  morgen", "treffen morgen")])
    func subjects(_ raw: String, _ normalized: String) {
        #expect(Subject.normalized(raw, prefixes: .builtIn) == normalized)
    }

    @Test func snippetsCountCharactersNotBytes() {
        let family = "👨‍👩‍👧‍👦"
        let text = String(repeating: family, count: 200)
        let s = Snippet.of(text)
        #expect(s.count == 140)
        #expect(s.allSatisfy { $0 == Character(family) })
        #expect(Snippet.of("  a \n\n b\tc ") == "a b c")
    }
}

@Suite struct ConversationGroupRunTests {
    @Test func maxGapSplits() {
        var g = ConversationGroup()
        g.maxGap = 86_400
        var c = Conversation(id: "h", participants: ["a@x"])
        c.messages = [message("1", date: "2026-01-01T00:00:00Z"), message("2", date: "2026-01-01T12:00:00Z"),
                      message("3", date: "2026-02-01T00:00:00Z")]
        let parts = g.split(&c)
        #expect(parts.map(\.id) == ["h", "h-2"])
        #expect(parts.map { $0.messages.map(\.id) } == [["1", "2"], ["3"]])
    }
}

@Suite struct SubjectTests {
    @Test func prefixesAndListTagsGoInAnyOrder() {
        #expect(Subject.normalized("Re: Fwd: [list] Dinner", prefixes: .builtIn) == "dinner")
        #expect(Subject.normalized("[list] RE:AW: 転送： Dinner", prefixes: .builtIn) == "dinner")
    }
}

@Suite struct ReportTests {
    func record(_ json: String) throws -> JSONRecord { try JSONRecord(json) }

    @Test func rolesAndWhatTheyAnswer() throws {
        let draft = try record(#"{"id":"d","is_draft":true,"report":null,"in_reply_to":["x"],"mail_kind":"automated"}"#)
        let bounce = try record(#"{"id":"b","is_draft":false,"report":{"type":"failed","original_message_id":"m","recipients":[]},"in_reply_to":["x"]}"#)
        let autoReply = try record(#"{"id":"a","is_draft":false,"report":null,"in_reply_to":[],"references":["r1","r2"],"mail_kind":"automated"}"#)
        let personal = try record(#"{"id":"p","is_draft":false,"report":null,"in_reply_to":["x"],"mail_kind":"personal"}"#)
        #expect(StoredConversation.role(of: draft) == "draft" && StoredConversation.answers(draft, role: "draft") == nil)
        #expect(StoredConversation.role(of: bounce) == "report" && StoredConversation.answers(bounce, role: "report") == "m")
        #expect(StoredConversation.role(of: autoReply) == nil && StoredConversation.answers(autoReply, role: nil) == "r2")
        #expect(StoredConversation.answers(personal, role: nil) == nil)
    }

    @Test func aConversationOfReportsAloneIsDatedAndVisibleByThem() {
        var notices = Conversation(id: ConversationGroup.noticesID, participants: [])
        var r = message("r", date: "2026-02-01T00:00:00Z", labels: ["Archived"])
        r.report = MessageSummary.Report(.object([("type", .string("failed"))]))
        notices.reports = [r]
        #expect(notices.archived && notices.lastDate == "2026-02-01T00:00:00Z")
        notices.reports[0].labels = ["INBOX"]
        #expect(!notices.archived)
        #expect(ConversationGroup.noticesID == "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855")
    }

    @Test func anAutoReplyIsNeverUnread() {
        var m = message("a", labels: ["INBOX", "UNREAD"])
        #expect(m.isUnread)
        m.isAutomated = true
        #expect(!m.isUnread)
    }
}
