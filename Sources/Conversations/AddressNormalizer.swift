import ArgumentParser
import UnicodeServices

/// Which optional rules make two addresses one person.
public struct AddressRules: Sendable {
    /// `j.doe+news@googlemail.com` is `jdoe@gmail.com`: Gmail ignores dots and `+tag`.
    public var gmailCanonical = false
    /// `jdoe+anything@x` is `jdoe@x`, for every domain.
    public var stripPlus = false

    public init(gmailCanonical: Bool = false, stripPlus: Bool = false) {
        self.gmailCanonical = gmailCanonical
        self.stripPlus = stripPlus
    }
}

/// The flags that set `AddressRules`, shared by participant-hash and conversation-group
/// (which must be given the same). ArgumentParser's values exist only once parsed, so the
/// rules themselves stay a plain value.
public struct AddressRuleFlags: ParsableArguments {
    @Flag(name: .customLong("gmail-canonical"), help: "In gmail.com and googlemail.com addresses, ignore dots and +tags, as Gmail does.")
    var gmailCanonical = false

    @Flag(name: .customLong("strip-plus"), help: "Ignore +tags in every address.")
    var stripPlus = false

    public init() {}

    public var rules: AddressRules { AddressRules(gmailCanonical: gmailCanonical, stripPlus: stripPlus) }
}

/// Addresses in the form a conversation key uses: the local part NFKC-casefolded, the domain
/// in ASCII by UTS 46 IDNA (lowercase), then the optional rules. Display names play no part.
/// Caches what it has seen: a mailbox names the same few hundred people again and again.
public final class AddressNormalizer {
    public let rules: AddressRules
    private let idna = IDNAConverter()
    private var cache: [String: String] = [:]

    public init(rules: AddressRules = AddressRules()) { self.rules = rules }

    /// The normal form of `address`; nil for an empty one.
    public func normalize(_ address: String) -> String? {
        if let known = cache[address] { return known.isEmpty ? nil : known }
        let result = compute(address)
        if cache.count < 100_000 { cache[address] = result ?? "" }
        return result
    }

    private func compute(_ address: String) -> String? {
        var text = Substring(address)
        while let f = text.first, f == " " || f == "<" || f == "\t" { text.removeFirst() }
        while let l = text.last, l == " " || l == ">" || l == "\t" || l == "." { text.removeLast() }
        guard !text.isEmpty else { return nil }
        guard let at = text.lastIndex(of: "@") else { return Casefold.nfkc(String(text)) }  // a local user
        var local = Casefold.nfkc(String(text[..<at]))
        let rawDomain = String(text[text.index(after: at)...])
        var domain = idna.toASCII(rawDomain) ?? Casefold.nfkc(rawDomain)
        if rules.gmailCanonical, domain == "gmail.com" || domain == "googlemail.com" {
            local = Self.withoutTag(local).filter { $0 != "." }
            domain = "gmail.com"
        } else if rules.stripPlus {
            local = Self.withoutTag(local)
        }
        return local + "@" + domain
    }

    private static func withoutTag(_ local: String) -> String {
        guard let plus = local.firstIndex(of: "+"), plus != local.startIndex else { return local }
        return String(local[..<plus])
    }
}
