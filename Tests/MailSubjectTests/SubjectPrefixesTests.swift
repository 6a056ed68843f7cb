import Testing
import MailSubject

@Suite struct SubjectPrefixesTests {
    let builtIn = SubjectPrefixes.builtIn

    @Test func theBuiltInFileHoldsTheRepliesAndForwardsOfEveryFormerList() {
        #expect(builtIn.replies == ["re", "aw", "sv", "vs", "r", "回覆", "回复", "答复"])
        #expect(builtIn.forwards == ["fwd", "fw", "wg", "tr", "rv", "vb", "vl", "enc", "轉寄", "转发", "転送"])
    }

    @Test(arguments: ["Re: Dinner", "RE:Dinner", "  aw: Termin", " 回覆：晚餐", "回复: 午饭", "答复：会议", "R: Cena", "SV: Middag"])
    func replies(_ subject: String) {
        #expect(builtIn.isReply(subject) && builtIn.isReplyOrForward(subject))
    }

    // a count between the word and the colon, and the space French puts before a colon
    @Test(arguments: ["Re[2]: Dinner", "RE^3: Dinner", "Re(12): Dinner", "RE : Dîner", "Re\u{A0}: Dîner", "SV[2] : Middag"])
    func repliesAsSomeProgramsWriteThem(_ subject: String) {
        #expect(builtIn.isReply(subject))
    }

    @Test(arguments: ["Fwd: Dinner", "FW: Invoice", "WG: Termin", "TR: Dîner", "TR : Dîner", "RV: Factura", "VB: Middag",
                      "VL: Päivällinen", "轉寄：晚餐", "転送: 会議"])
    func forwards(_ subject: String) {
        #expect(!builtIn.isReply(subject) && builtIn.isReplyOrForward(subject))
    }

    @Test(arguments: ["Recipes", "Reunion", "Re Dinner", "Re[2] Dinner", "Re[]: Dinner", "Re[2: Dinner", "Rev: 3", "回覆確認",
                      "転送設定のお知らせ", "Trip: Taroko", "", "  "])
    func neither(_ subject: String) {
        #expect(!builtIn.isReplyOrForward(subject))
    }

    @Test func theRestFollowsThePrefix() throws {
        let prefix = try #require(builtIn.prefix(of: " Re:  Fwd: Lunch"))
        #expect(prefix.kind == .reply && prefix.rest == "  Fwd: Lunch")
        #expect(builtIn.prefix(of: prefix.rest)?.rest == " Lunch")
    }

    @Test func aUsersFileAddsWordsInAnyCase() throws {
        var prefixes = builtIn
        #expect(!prefixes.isReply("Odp: Obiad"))
        try prefixes.add(json: Array(#"{"comment": "Polish", "reply": ["ODP"], "forward": ["PD"]}"#.utf8))
        #expect(prefixes.isReply("Odp: Obiad") && prefixes.isReply("odp：obiad"))
        #expect(prefixes.isReplyOrForward("PD: Obiad") && !prefixes.isReply("PD: Obiad"))
        #expect(prefixes.isReply("Re: Obiad"))
    }

    @Test(arguments: [(#"{"replies": ["odp"]}"#, "unknown key 'replies'"),
                      (#"{"reply": ["re:"]}"#, "reply: not a word without its colon: 're:'"),
                      (#"{"reply": ["odp "]}"#, "reply: not a word without its colon: 'odp '"),
                      (#"{"forward": [""]}"#, "forward: not a word without its colon: ''"),
                      (#"{"reply": "odp"}"#, "reply: expected an array of strings")])
    func badFilesSayWhatIsWrong(_ json: String, _ message: String) {
        var prefixes = builtIn
        #expect(throws: SubjectPrefixes.FileError.self) { try prefixes.add(json: Array(json.utf8)) }
        do { try prefixes.add(json: Array(json.utf8)) } catch { #expect(error.description == message) }
    }
}
