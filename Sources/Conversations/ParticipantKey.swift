import Hashing
import JSONLines

/// Who a message is with, as a conversation key: the participants (normalized addresses,
/// sorted, without the user's own), and the hex SHA-256 of them joined by ",".
///
/// - A discussion list (`mail_kind` "list", or without a `mail_kind` a `List-Id` with a
///   `List-Post` or `Precedence: list`: people post to it) is keyed on the list: its posting address
///   (`List-Post: <mailto:…>`), else the To/Cc address that matches the List-Id, else
///   `list:` and the List-Id.
/// - A message to a known list (the list's address in To or Cc, as in the user's own reply to a
///   post, which has no list headers, or an author's direct copy) is keyed on that list too.
/// - A newsletter (`mail_kind` "newsletter" or `is_newsletter`) is keyed on its sender.
/// - Anything else on everyone in From, To and Cc but the user. With no one left (a note to
///   oneself), on the user's primary address.
public struct ParticipantKey: Equatable, Sendable {
    public var participants: [String]
    public var fromMe: Bool
    public var kind: Kind

    public enum Kind: String, Sendable { case people, list, newsletter, myself }

    /// The joined participants: what is hashed, and readable.
    public var conversationKey: String { participants.joined(separator: ",") }
    public var hash: String { Self.hash(participants) }
    /// The participant_hash of a key's participants.
    public static func hash(_ participants: [String]) -> String { SHA256.hex(Array(participants.joined(separator: ",").utf8)) }
    public var isGroup: Bool { kind == .people && participants.count > 1 }

    public struct MissingFields: Error, CustomStringConvertible {
        public var description: String { "the record has no from, to or cc (is it a mime-parse record?)" }
    }

    /// `lists` are the posting addresses of the lists known so far; a list message of the record
    /// adds its own.
    public static func of(_ record: JSONRecord, me: OwnAddresses, lists: inout Set<String>,
                          normalizer: AddressNormalizer) throws -> ParticipantKey {
        guard record.member("from") != nil || record.member("to") != nil || record.member("cc") != nil else {
            throw MissingFields()
        }
        func address(_ v: JSONValue?) -> String? { v?["address"]?.stringValue.flatMap(normalizer.normalize) }
        let from = address(record.value("from"))
        let fromMe = from.map(me.contains) ?? false
        let recipients = (record.value("to")?.arrayValue ?? []) + (record.value("cc")?.arrayValue ?? [])
        let mailKind = record.string("mail_kind")
        let isNewsletter = mailKind == "newsletter" || (mailKind == nil && record.value("is_newsletter") == .bool(true))
        if isNewsletter, let from, !fromMe {
            return ParticipantKey(participants: [from], fromMe: false, kind: .newsletter)
        }
        let headers = record.rawValue("headers").flatMap { try? JSONRecord(Array($0)) }
        if let list = list(of: record, headers: headers, recipients: recipients, normalizer: normalizer) {
            if !list.hasPrefix("list:") { lists.insert(list) }
            return ParticipantKey(participants: [list], fromMe: fromMe, kind: .list)
        }
        let recipientAddresses = recipients.compactMap(address)
        if let list = recipientAddresses.first(where: lists.contains) {
            return ParticipantKey(participants: [list], fromMe: fromMe, kind: .list)
        }
        var people = Set<String>(recipientAddresses)
        if let from { people.insert(from) }
        let others = people.filter { !me.contains($0) }.sorted()
        if others.isEmpty, let primary = me.primary {
            return ParticipantKey(participants: [primary], fromMe: fromMe, kind: .myself)
        }
        return ParticipantKey(participants: others, fromMe: fromMe, kind: .people)
    }

    /// The list a list's own mail came through (`mail_kind` "list", or without a `mail_kind` a
    /// List-Id with a List-Post or `Precedence: list`): its posting address, the recipient that
    /// matches its List-Id, or `list:` and the List-Id; nil for any other mail. `--me-auto`'s
    /// first pass learns lists with it, so a reply earlier in the input than its list's mail
    /// still finds the list.
    public static func list(of record: JSONRecord, headers: JSONRecord?, recipients: [JSONValue],
                            normalizer: AddressNormalizer) -> String? {
        guard let headers else { return nil }
        let mailKind = record.string("mail_kind")
        let listID = first(headers, "list-id")
        let precedence = first(headers, "precedence")?.lowercased() ?? ""
        let canPost = first(headers, "list-post") != nil
        let isList = mailKind == "list" || (mailKind == nil && listID != nil && (canPost || precedence == "list"))
        return isList ? listAddress(headers, listID: listID, recipients: recipients, normalizer: normalizer) : nil
    }

    private static func first(_ headers: JSONRecord, _ name: String) -> String? {
        headers.value(name)?.arrayValue?.first?.stringValue
    }

    private static func listAddress(_ headers: JSONRecord, listID: String?, recipients: [JSONValue],
                                    normalizer: AddressNormalizer) -> String? {
        if let post = first(headers, "list-post"), let mailto = mailtoAddress(post), let a = normalizer.normalize(mailto) {
            return a
        }
        guard let listID else { return nil }
        let id = Self.bracketed(listID).lowercased()
        for r in recipients {
            if let a = r["address"]?.stringValue.flatMap(normalizer.normalize), a.replacingAt(with: ".") == id { return a }
        }
        return id.isEmpty ? nil : "list:" + id
    }

    /// The address of the first `<mailto:…>` in a List-Post value.
    static func mailtoAddress(_ value: String) -> String? {
        let lower = value.lowercased()
        guard let r = lower.firstRange(of: "mailto:") else { return nil }
        let rest = lower[r.upperBound...]
        let address = rest.prefix { $0 != ">" && $0 != "?" && $0 != "," && $0 != " " }
        return address.isEmpty ? nil : String(address)
    }

    /// The text between the first `<` and `>`, or the whole value.
    static func bracketed(_ value: String) -> String {
        guard let open = value.firstIndex(of: "<"), let close = value[open...].firstIndex(of: ">") else {
            return value.trimmingCharacters(in: " \t")
        }
        return String(value[value.index(after: open)..<close]).trimmingCharacters(in: " \t")
    }
}

extension String {
    func replacingAt(with replacement: Character) -> String {
        String(map { $0 == "@" ? replacement : $0 })
    }
}
