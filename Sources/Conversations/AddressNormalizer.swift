import ArgumentParser
import UnicodeServices

/// Which optional rules make two addresses one person.
public struct AddressRules: Equatable, Sendable {
    /// `j.doe+news@googlemail.com` is `jdoe@gmail.com`: Gmail ignores dots and `+tag`. On by
    /// default (issue 47): the two forms are one mailbox, and so one participant.
    public var gmailCanonical = true
    /// `jdoe+anything@x` is `jdoe@x`, for every domain.
    public var stripPlus = false

    public init(gmailCanonical: Bool = true, stripPlus: Bool = false) {
        self.gmailCanonical = gmailCanonical
        self.stripPlus = stripPlus
    }

    /// Neither rule: addresses as written (casefolded).
    public static let plain = AddressRules(gmailCanonical: false, stripPlus: false)
}

/// The flags that set `AddressRules`, shared by participant-hash and conversation-group
/// (which must be given the same). ArgumentParser's values exist only once parsed, so the
/// rules themselves stay a plain value.
public struct AddressRuleFlags: ParsableArguments {
    @Flag(name: .customLong("gmail-canonical"), inversion: .prefixedNo,
          help: "In gmail.com and googlemail.com addresses, ignore dots and +tags, as Gmail does (the default; --no-gmail-canonical keeps them as written).")
    var gmailCanonical: Bool?

    @Flag(name: .customLong("strip-plus"), help: "Ignore +tags in every address.")
    var stripPlus = false

    public init() {}

    /// The rules the flags give, the defaults where none was given.
    public var rules: AddressRules { AddressRules(gmailCanonical: gmailCanonical ?? true, stripPlus: stripPlus) }

    /// Whether any rule was given on the command line.
    public var givesAny: Bool { gmailCanonical != nil || stripPlus }

    /// `base` (a store's recorded rules) with the rules given on the command line in their place.
    public func applied(to base: AddressRules) -> AddressRules {
        AddressRules(gmailCanonical: gmailCanonical ?? base.gmailCanonical, stripPlus: stripPlus || base.stripPlus)
    }
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
