import Testing
@testable import Conversations

/// Issue 47: Gmail's dots, +tags and googlemail.com are folded by default, in those two domains only.
@Suite struct GmailFoldingTests {
    @Test(arguments: ["alex.rivera@gmail.com", "alexrivera+news@googlemail.com", "ALEX.Rivera@Gmail.com",
                      "a.l.e.x.r.i.v.e.r.a@GOOGLEMAIL.COM", "Alex.Rivera+a+b@gmail.com"])
    func gmailFormsAreOneAddressByDefault(_ form: String) {
        #expect(AddressNormalizer().normalize(form) == "alexrivera@gmail.com")
    }

    @Test(arguments: [
        ("alex.rivera@example.com", "alex.rivera@example.com"),
        ("alex+news@example.com", "alex+news@example.com"),
        ("alex.rivera+x@mail.gmail.com", "alex.rivera+x@mail.gmail.com"),
        ("alex.rivera@gmail.co", "alex.rivera@gmail.co"),
        ("alex.rivera@gmail.com.example.net", "alex.rivera@gmail.com.example.net"),
    ])
    func otherDomainsKeepDotsAndTags(_ raw: String, _ normal: String) {
        #expect(AddressNormalizer().normalize(raw) == normal)
    }

    @Test func theWayOutKeepsGmailAddressesAsWritten() {
        let plain = AddressNormalizer(rules: AddressRules(gmailCanonical: false))
        #expect(plain.normalize("Alex.Rivera+news@GoogleMail.com") == "alex.rivera+news@googlemail.com")
    }
}
