import Conversations
import MailParse

/// Who a reply goes to and which of my addresses it comes from. The rules follow `notmuch
/// reply` (its reply-to munging test, its order of headers, its handling of a reply to my own
/// message), and add what notmuch leaves out: Mail-Followup-To and List-Post for list mail, no
/// address twice, never to myself unless the original was a note to self. Addresses are
/// compared as participant-hash compares them.
struct Addressing {
    let me: [String]
    let normalizer: AddressNormalizer
    private let ownSet: Set<String>
    private let reader = AddressListReader()

    init(me: [String], normalizer: AddressNormalizer) {
        self.me = me
        self.normalizer = normalizer
        ownSet = Set(me.compactMap(normalizer.normalize))
    }

    func isMine(_ address: String) -> Bool { normalizer.normalize(address).map(ownSet.contains) ?? false }

    struct Recipients {
        var to: [Mailbox] = []
        var cc: [Mailbox] = []
        var bcc: [Mailbox] = []

        var isEmpty: Bool { to.isEmpty && cc.isEmpty && bcc.isEmpty }
    }

    /// The recipients of a reply to `original`.
    func replyRecipients(_ original: Original, all: Bool, list: ListReply) -> Recipients {
        var result = Recipients()
        if list == .list, let post = listPost(original) {
            result.to = [post]
        } else if all, list != .author, let followUp = original.header("mail-followup-to").last {
            // the author of list mail says where its replies belong (mutt's group reply)
            result.to = reader.mailboxes(followUp).filter { !isMine($0.address) }
        } else {
            let headers: [([Mailbox], WritableKeyPath<Recipients, [Mailbox]>)] = [
                (sender(original, list), \.to), (original.to, \.to), (original.cc, \.cc), (original.bcc, \.bcc),
            ]
            for (mailboxes, field) in headers {
                let others = mailboxes.filter { Self.canBeWrittenTo($0.address) && !isMine($0.address) }
                result[keyPath: field] += others
                // a reply to the sender stops at the first header naming someone else: the
                // sender, or, for my own message, those I wrote to
                if !all && !others.isEmpty { break }
            }
        }
        if result.isEmpty, let from = original.from, isMine(from.address) {
            result.to = [from]  // a note to self
        }
        return deduplicated(result)
    }

    /// An address a reply can go to: local@domain, or a local name alone (root, a user of the
    /// machine, as sendmail takes it); not a group's name read as an address, nor "<>".
    static func canBeWrittenTo(_ address: String) -> Bool {
        if address.contains("@") { return ComposeRequest.isAddress(address) }
        return !address.isEmpty && address.utf8.allSatisfy { $0 >= 0x80 || isAtext($0) }
    }

    private static func isAtext(_ b: UInt8) -> Bool {
        switch b {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "0")...UInt8(ascii: "9"): true
        default: Array("!#$%&'*+-/=?^_`{|}~.".utf8).contains(b)
        }
    }

    /// Reply-To, else From: the authors when Reply-To is one a list put in, or when asked.
    private func sender(_ original: Original, _ list: ListReply) -> [Mailbox] {
        let replyTo = original.replyTo
        if replyTo.isEmpty || list == .author || replyToIsRedundant(original) { return authors(original) }
        return replyTo
    }

    /// Every author: From may name several (RFC 5322 section 3.6.2), of whom the record's
    /// `from` is the first; a reply without Reply-To goes to them all (section 3.6.3).
    private func authors(_ original: Original) -> [Mailbox] {
        let all = original.header("from").flatMap(reader.mailboxes)
        guard all.count > 1, let first = original.from else { return original.from.map { [$0] } ?? [] }
        return [first] + all.filter { $0.address != first.address }
    }

    /// notmuch's test for a Reply-To a list put in: one address, found in To or Cc.
    private func replyToIsRedundant(_ original: Original) -> Bool {
        let replyTo = original.replyTo
        guard replyTo.count == 1, let address = normalizer.normalize(replyTo[0].address) else { return false }
        return (original.to + original.cc).contains { normalizer.normalize($0.address) == address }
    }

    /// The list's posting address: List-Post's mailto: URL (RFC 2369).
    func listPost(_ original: Original) -> Mailbox? {
        guard let value = original.header("list-post").first else { return nil }
        for bracketed in value.split(separator: "<", omittingEmptySubsequences: false).dropFirst() {
            let url = bracketed.prefix { $0 != ">" }
            guard url.lowercased().hasPrefix("mailto:") else { continue }
            let address = AddressListReader.percentDecoded(String(url.dropFirst(7).prefix { $0 != "?" }))
            if ComposeRequest.isAddress(address) { return Mailbox(name: "", address: address) }
        }
        return nil
    }

    /// Each address once, in To before Cc before Bcc, as first written (its display name kept).
    func deduplicated(_ r: Recipients) -> Recipients {
        var seen = Set<String>()
        func keep(_ list: [Mailbox]) -> [Mailbox] {
            list.filter { seen.insert(normalizer.normalize($0.address) ?? $0.address.lowercased()).inserted }
        }
        return Recipients(to: keep(r.to), cc: keep(r.cc), bcc: keep(r.bcc))
    }

    /// The address of mine a reply comes from: the first of mine among the original's From or
    /// Reply-To, To, Cc and Bcc (so a reply to my own message keeps its sender), then in
    /// Envelope-To, X-Original-To and Delivered-To (where the mail was delivered), as notmuch
    /// looks; else my first address. Written as I gave it.
    func fromAddress(_ original: Original?) -> String? {
        guard let original else { return me.first }
        var candidates = sender(original, .sender).map(\.address)
        candidates += (original.to + original.cc + original.bcc).map(\.address)
        for header in ["envelope-to", "x-original-to", "delivered-to"] {
            for value in original.header(header) { candidates += reader.mailboxes(value).map(\.address) }
        }
        for candidate in candidates {
            guard let n = normalizer.normalize(candidate) else { continue }
            if let mine = me.first(where: { normalizer.normalize($0) == n }) { return mine }
        }
        return me.first
    }
}
