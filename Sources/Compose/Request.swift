import ICalendar
import JSONLines
import MailParse

/// One line of mail-compose's input: what to write. mail-compose(1) documents every field.
public struct ComposeRequest {
    public enum Kind: Equatable {
        /// A reply to one message; `all` answers everyone it went to.
        case reply(id: String, all: Bool)
        /// An answer in a chat: to its newest message, to everyone in it but me.
        case conversation(String)
        case forward(id: String, asAttachment: Bool)
        /// The iMIP REPLY to an invitation.
        case rsvp(id: String, answer: ParticipationAnswer)
        case new
    }

    public var kind: Kind
    public var text = ""
    public var to: [Mailbox] = []
    public var cc: [Mailbox] = []
    public var bcc: [Mailbox] = []
    public var subject: String?
    public var attachments: [String] = []
    public var from: Mailbox?
    /// The RSVP's COMMENT.
    public var comment: String?
    /// Overrides --quote for this request.
    public var quote: Bool?
    /// Overrides --to-list / --to-author for this request: "list", "author" or "sender".
    public var listReply: ListReply?

    public struct Invalid: Error, CustomStringConvertible {
        public var description: String
        init(_ d: String) { description = d }
    }

    static let fields: Set<String> = ["reply", "all", "conversation", "forward", "as_attachment", "rsvp", "partstat", "comment",
                                      "text", "to", "cc", "bcc", "subject", "attachments", "from", "quote", "list_reply"]

    /// The request a line holds.
    public static func parse(_ line: [UInt8], addresses: AddressListReader) throws -> ComposeRequest {
        let value: JSONValue
        do { value = try JSONValue.parse(line) } catch { throw Invalid("\(error)") }
        guard case .object(let members) = value else { throw Invalid("a request is a JSON object") }
        for (key, _) in members where !fields.contains(key) { throw Invalid("unknown field '\(key)'") }

        func string(_ key: String) throws -> String? {
            guard let v = value[key], v != .null else { return nil }
            guard let s = v.stringValue else { throw Invalid("\(key): not a string") }
            return s
        }
        func flag(_ key: String) throws -> Bool? {
            guard let v = value[key], v != .null else { return nil }
            guard case .bool(let b) = v else { throw Invalid("\(key): not true or false") }
            return b
        }
        func messageID(_ key: String) throws -> String? {
            guard let s = try string(key) else { return nil }
            let id = s.trimmingSpaces.trimmingAngles
            guard !id.isEmpty else { throw Invalid("\(key): an empty message id") }
            return id
        }

        let named = ["reply", "conversation", "forward", "rsvp"].filter { value[$0] != nil && value[$0] != .null }
        guard named.count <= 1 else { throw Invalid("one of reply, conversation, forward and rsvp, not \(named.joined(separator: " and "))") }
        let kind: Kind
        switch named.first {
        case "reply": kind = .reply(id: try messageID("reply")!, all: try flag("all") ?? false)
        case "conversation":
            guard let c = try string("conversation"), !c.isEmpty else { throw Invalid("conversation: an empty id") }
            kind = .conversation(c)
        case "forward": kind = .forward(id: try messageID("forward")!, asAttachment: try flag("as_attachment") ?? false)
        case "rsvp":
            guard let p = try string("partstat") else { throw Invalid("rsvp: partstat is missing (accepted, declined or tentative)") }
            guard let answer = ParticipationAnswer(rawValue: p.lowercased()) else {
                throw Invalid("partstat: '\(p)' is not accepted, declined or tentative")
            }
            kind = .rsvp(id: try messageID("rsvp")!, answer: answer)
        default: kind = .new
        }
        if value["all"] != nil, case .reply = kind {} else if value["all"] != nil { throw Invalid("all: only with reply") }
        if value["as_attachment"] != nil, case .forward = kind {} else if value["as_attachment"] != nil { throw Invalid("as_attachment: only with forward") }
        if value["partstat"] != nil, case .rsvp = kind {} else if value["partstat"] != nil { throw Invalid("partstat: only with rsvp") }

        var request = ComposeRequest(kind: kind)
        request.text = try string("text") ?? ""
        request.subject = try string("subject")
        request.comment = try string("comment")
        request.quote = try flag("quote")
        if let l = try string("list_reply") {
            guard let mode = ListReply(rawValue: l) else { throw Invalid("list_reply: '\(l)' is not list, author or sender") }
            request.listReply = mode
        }
        request.to = try Self.mailboxes(value["to"], "to", addresses)
        request.cc = try Self.mailboxes(value["cc"], "cc", addresses)
        request.bcc = try Self.mailboxes(value["bcc"], "bcc", addresses)
        if let from = value["from"], from != .null {
            let boxes = try Self.mailboxes(from, "from", addresses)
            guard boxes.count == 1 else { throw Invalid("from: one address, not \(boxes.count)") }
            request.from = boxes[0]
        }
        if let list = value["attachments"], list != .null {
            guard let items = list.arrayValue else { throw Invalid("attachments: not a list of paths") }
            for item in items {
                guard let path = item.stringValue, !path.isEmpty else { throw Invalid("attachments: not a list of paths") }
                request.attachments.append(path)
            }
        }

        switch kind {
        case .new:
            guard !(request.to.isEmpty && request.cc.isEmpty && request.bcc.isEmpty) else { throw Invalid("a new message needs to, cc or bcc") }
        case .forward:
            guard !(request.to.isEmpty && request.cc.isEmpty && request.bcc.isEmpty) else { throw Invalid("forward: to whom? (to, cc or bcc)") }
        case .rsvp:
            guard request.to.isEmpty && request.cc.isEmpty && request.bcc.isEmpty && request.attachments.isEmpty else {
                throw Invalid("rsvp: the answer goes to the organizer alone (no to, cc, bcc or attachments)")
            }
        case .reply, .conversation:
            break
        }
        return request
    }

    /// A list of addresses: one string ("A <a@x>, b@y") or an array of them; each must be an
    /// address (a local part, "@", a domain).
    static func mailboxes(_ value: JSONValue?, _ key: String, _ reader: AddressListReader) throws -> [Mailbox] {
        guard let value, value != .null else { return [] }
        let texts: [String]
        if let s = value.stringValue {
            texts = [s]
        } else if let items = value.arrayValue, items.allSatisfy({ $0.stringValue != nil }) {
            texts = items.compactMap(\.stringValue)
        } else {
            throw Invalid("\(key): not an address or a list of addresses")
        }
        var result: [Mailbox] = []
        for text in texts {
            let boxes = reader.mailboxes(text)
            guard !boxes.isEmpty else { throw Invalid("\(key): '\(text)' is not an address") }
            for box in boxes {
                guard Self.isAddress(box.address) else { throw Invalid("\(key): '\(text)' is not an address") }
                result.append(box)
            }
        }
        return result
    }

    /// local@domain: both parts present, no spaces or control characters, a domain of labels, a
    /// local part without the specials that would end it in a header ("A<a@x" is not one)
    /// unless it is quoted.
    static func isAddress(_ a: String) -> Bool {
        guard let at = a.lastIndex(of: "@") else { return false }
        let local = a[..<at], domain = a[a.index(after: at)...]
        guard !local.isEmpty, !domain.isEmpty, !a.utf8.contains(where: { $0 <= 0x20 || $0 == 0x7F }) else { return false }
        let quoted = local.count >= 2 && local.first == "\"" && local.last == "\""
        guard quoted || !local.contains(where: { "<>()[],;:\\\"@".contains($0) }) else { return false }
        guard !domain.contains("@"), !domain.hasPrefix("."), !domain.hasSuffix("."), !domain.contains("..") else { return false }
        return !domain.contains(where: { "<>()[],;:\\\"".contains($0) })
    }
}

/// Where a reply to list mail goes.
public enum ListReply: String, Sendable {
    /// To the list's posting address (List-Post), as mutt's list-reply.
    case list
    /// To the author alone (From), whatever Reply-To says.
    case author
    /// To Reply-To, else From, as notmuch does (a Reply-To a list munged in is passed over).
    case sender
}

extension String {
    var trimmingAngles: String {
        var s = Substring(self)
        if s.first == "<" && s.last == ">" && s.count >= 2 { s = s.dropFirst().dropLast() }
        return String(s)
    }
}
