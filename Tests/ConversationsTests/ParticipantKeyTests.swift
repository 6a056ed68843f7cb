import Testing
import Hashing
import JSONLines
@testable import Conversations

@Suite struct AddressNormalizerTests {
    @Test(arguments: [
        ("John.Doe@Example.COM", "john.doe@example.com"),
        ("<a@b.org>", "a@b.org"),
        ("Ｊｏｈｎ．Ｄｏｅ@Bücher.Example", "john.doe@xn--bcher-kva.example"),
        ("jürgen@müller.de", "jürgen@xn--mller-kva.de"),
        ("STRASSE@x.de", "strasse@x.de"),
        ("root", "root"),
        ("j.doe+news@example.com", "j.doe+news@example.com"),  // no rule asked for: kept
    ])
    func normalizes(_ raw: String, _ normal: String) {
        #expect(AddressNormalizer().normalize(raw) == normal)
    }

    @Test func gmailCanonical() {
        let n = AddressNormalizer(rules: AddressRules(gmailCanonical: true))
        #expect(n.normalize("J.Doe+news@GoogleMail.com") == "jdoe@gmail.com")
        #expect(n.normalize("j.doe+news@example.com") == "j.doe+news@example.com")
    }

    @Test func stripPlus() {
        let n = AddressNormalizer(rules: AddressRules(stripPlus: true))
        #expect(n.normalize("j.doe+news@example.com") == "j.doe@example.com")
        #expect(n.normalize("+only@example.com") == "+only@example.com")
    }

    @Test func emptyIsNothing() {
        #expect(AddressNormalizer().normalize("") == nil)
        #expect(AddressNormalizer().normalize(" <> ") == nil)
    }
}

@Suite struct OwnAddressTests {
    @Test func meFileSkipsCommentsAndBlanks() {
        let text = "# my addresses\nme@example.com\n\n  alias@example.org  # work\r\n#old@example.net\n"
        #expect(OwnAddresses.parseFile(text) == ["me@example.com", "alias@example.org"])
    }

    @Test func inferenceUsesSentAndDeliveredTo() throws {
        let n = AddressNormalizer()
        var inference = OwnAddressInference()
        let sent = #"{"from":{"name":"Me","address":"Me@Example.com"},"labels":["SENT"],"headers":{}}"#
        let received = #"{"from":{"name":null,"address":"a@x"},"labels":["INBOX"],"headers":{"delivered-to":["me@example.com"],"x-original-to":["<alias@example.com>"]}}"#
        let list = #"{"from":{"name":null,"address":"b@x"},"labels":["INBOX"],"headers":{}}"#
        inference.observe(try JSONRecord(sent), normalizer: n)
        for _ in 0..<3 { inference.observe(try JSONRecord(received), normalizer: n) }
        inference.observe(try JSONRecord(list), normalizer: n)
        #expect(inference.addresses == ["me@example.com", "alias@example.com"])
        #expect(inference.report.contains("From of 1 sent message"))
    }
}

@Suite struct ParticipantKeyTests {
    var me: OwnAddresses {
        var m = OwnAddresses()
        m.add("me@example.com")
        m.add("alias@example.com")
        return m
    }

    func key(_ json: String, rules: AddressRules = AddressRules(), lists: Set<String> = []) throws -> ParticipantKey {
        var lists = lists
        return try ParticipantKey.of(try JSONRecord(json), me: me, lists: &lists, normalizer: AddressNormalizer(rules: rules))
    }

    @Test func everyoneButMeSortedAndDeduplicated() throws {
        let k = try key(#"{"from":{"name":"B","address":"B@x.org"},"to":[{"name":null,"address":"me@example.com"},{"name":"A","address":"a@x.org"}],"cc":[{"name":null,"address":"b@X.org"},{"name":null,"address":"Alias@Example.com"}]}"#)
        #expect(k.participants == ["a@x.org", "b@x.org"])
        #expect(k.isGroup)
        #expect(!k.fromMe)
        #expect(k.conversationKey == "a@x.org,b@x.org")
        #expect(k.hash == SHA256.hex(Array("a@x.org,b@x.org".utf8)))
    }

    @Test func whatISentIsWithTheRecipients() throws {
        let k = try key(#"{"from":{"name":"Me","address":"ME@example.com"},"to":[{"name":null,"address":"friend@x.org"}],"cc":[]}"#)
        #expect(k.participants == ["friend@x.org"])
        #expect(k.fromMe)
        #expect(!k.isGroup)
    }

    @Test func aNoteToMyselfIsAConversationWithMyself() throws {
        let k = try key(#"{"from":{"name":null,"address":"me@example.com"},"to":[{"name":null,"address":"alias@example.com"}],"cc":[]}"#)
        #expect(k.participants == ["me@example.com"])
        #expect(k.kind == .myself)
        #expect(!k.isGroup)
    }

    @Test func aListIsKeyedOnItsPostingAddress() throws {
        let post = #"{"from":{"name":null,"address":"poster@x.org"},"to":[{"name":null,"address":"dev@lists.x.org"}],"cc":[],"headers":{"list-id":["Dev <dev.lists.x.org>"],"list-post":["<mailto:dev@lists.x.org>"]}}"#
        #expect(try key(post).participants == ["dev@lists.x.org"])
        let other = post.replacingOccurrences("poster@x.org", "someone@y.org")
        #expect(try key(other).hash == key(post).hash)  // everyone's posts: one conversation
    }

    @Test func mailToAKnownListJoinsIt() throws {
        // The user's reply: no list headers, the list in To or Cc, the post's author beside it.
        let reply = #"{"from":{"name":null,"address":"me@example.com"},"to":[{"name":null,"address":"poster@x.org"}],"cc":[{"name":null,"address":"Dev@Lists.x.org"}],"headers":{}}"#
        #expect(try key(reply).participants == ["dev@lists.x.org", "poster@x.org"])
        let k = try key(reply, lists: ["dev@lists.x.org"])
        #expect(k.participants == ["dev@lists.x.org"] && k.kind == .list && k.fromMe && !k.isGroup)
        // The list's own mail teaches its address to the records after it.
        var lists = Set<String>()
        let post = #"{"from":{"name":null,"address":"poster@x.org"},"to":[{"name":null,"address":"dev@lists.x.org"}],"cc":[],"headers":{"list-id":["Dev <dev.lists.x.org>"],"list-post":["<mailto:dev@lists.x.org>"]}}"#
        let n = AddressNormalizer(rules: AddressRules())
        _ = try ParticipantKey.of(try JSONRecord(post), me: me, lists: &lists, normalizer: n)
        #expect(lists == ["dev@lists.x.org"])
        #expect(try ParticipantKey.of(try JSONRecord(reply), me: me, lists: &lists, normalizer: n).hash
                == ParticipantKey.of(try JSONRecord(post), me: me, lists: &lists, normalizer: n).hash)
        // What --me-auto's first pass learns: the list of the list's mail, nothing of the reply.
        var inference = OwnAddressInference()
        inference.observe(try JSONRecord(reply), normalizer: n)
        #expect(inference.lists.isEmpty)
        inference.observe(try JSONRecord(post), normalizer: n)
        #expect(inference.lists == ["dev@lists.x.org"])
    }

    @Test func aListWithoutListPostIsFoundByItsRecipient() throws {
        let json = #"{"from":{"name":null,"address":"p@x.org"},"to":[{"name":null,"address":"dev@lists.x.org"}],"cc":[],"headers":{"list-id":["<dev.lists.x.org>"],"precedence":["list"]}}"#
        #expect(try key(json).participants == ["dev@lists.x.org"])
        let unknown = #"{"from":{"name":null,"address":"p@x.org"},"to":[{"name":null,"address":"me@example.com"}],"cc":[],"headers":{"list-id":["<dev.lists.x.org>"],"precedence":["list"]}}"#
        #expect(try key(unknown).participants == ["list:dev.lists.x.org"])
    }

    @Test func mailKindDecidesWhenPresent() throws {
        let news = #"{"from":{"name":null,"address":"news@shop.x"},"to":[{"name":null,"address":"friends@shop.x"}],"cc":[],"mail_kind":"newsletter","headers":{"list-id":["<n.shop.x>"],"list-post":["<mailto:n@shop.x>"]}}"#
        #expect(try key(news).participants == ["news@shop.x"])
        #expect(try key(news).kind == .newsletter)
        let personal = #"{"from":{"name":null,"address":"colleague@x.org"},"to":[{"name":null,"address":"me@example.com"}],"cc":[],"mail_kind":"personal","headers":{"list-id":["<team.x.org>"],"list-post":["<mailto:team@x.org>"]}}"#
        #expect(try key(personal).participants == ["colleague@x.org"])
        let flagged = #"{"from":{"name":null,"address":"deals@shop.x"},"to":[],"cc":[],"is_newsletter":true}"#
        #expect(try key(flagged).participants == ["deals@shop.x"])
    }

    @Test func aNewsletterWithAListIdIsNotAList() throws {
        let json = #"{"from":{"name":null,"address":"deals@shop.x"},"to":[{"name":null,"address":"me@example.com"}],"cc":[],"headers":{"list-id":["<123.list-id.shop.x>"],"list-unsubscribe":["<https://shop.x/u>"]}}"#
        #expect(try key(json).participants == ["deals@shop.x"])
    }

    @Test func aRecordWithoutAddressFieldsIsAnError() {
        #expect(throws: ParticipantKey.MissingFields.self) { try key(#"{"subject":"x"}"#) }
    }

    @Test func gmailRuleJoinsSpellings() throws {
        let a = try key(#"{"from":{"name":null,"address":"j.doe+x@gmail.com"},"to":[],"cc":[]}"#, rules: AddressRules(gmailCanonical: true))
        let b = try key(#"{"from":{"name":null,"address":"JDoe@googlemail.com"},"to":[],"cc":[]}"#, rules: AddressRules(gmailCanonical: true))
        #expect(a.hash == b.hash)
    }
}

extension String {
    func replacingOccurrences(_ a: String, _ b: String) -> String {
        split(separator: a, omittingEmptySubsequences: false).joined(separator: b)
    }
}
