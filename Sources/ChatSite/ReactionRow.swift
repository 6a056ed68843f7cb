import JSONLines

/// A person's current reaction to a message, as its conversation lists it (conversation-group's
/// `reactions`): shown on the bubble of the message it reacts to, never as a bubble of its own.
struct ReactionNote {
    /// The reaction's own message id, and the id of the message it reacts to.
    var messageID: String?
    var of: String
    var name: String?
    var address: String
    var fromMe: Bool
    var emoji: [String]

    init?(_ v: JSONValue) {
        guard let of = v["of"]?.stringValue, let emoji = v["emoji"]?.arrayValue?.compactMap(\.stringValue), !emoji.isEmpty else { return nil }
        self.of = of
        self.emoji = emoji
        messageID = v["message_id"]?.stringValue
        name = v["from"]?["name"]?.stringValue.flatMap { $0.isEmpty ? nil : $0 }
        address = v["from"]?["address"]?.stringValue ?? ""
        fromMe = v["from_me"] == .bool(true)
    }
}

extension ConversationSummary {
    /// The most people a reaction names; the others are counted.
    static let namesShown = 20

    /// The reactions row of message `id`: each emoji once, in the order first sent, with how
    /// many people reacted so, and who (as its title, and as text for screen readers). Empty
    /// when nobody reacted.
    func reactionRow(for id: String, words: SiteWords = .english) -> [UInt8] {
        guard let reactions = self.reactions[id] else { return [] }
        let names = self.names
        var order: [String] = []
        var people: [String: [String]] = [:]
        for r in reactions {
            let who = r.fromMe ? words.text(.you) : names[r.address.lowercased()] ?? r.name.map(TextFacts.displayName) ?? r.address
            for e in r.emoji {
                if people[e] == nil { order.append(e) }
                people[e, default: []].append(who)
            }
        }
        var out: [UInt8] = []
        for e in order {
            let all = people[e]!
            // a hostile mailbox's thousands of senders are a count, not a page of names
            let named = all.prefix(Self.namesShown).joined(separator: ", ")
            let who = all.count > Self.namesShown ? words.text(.reaction_and_more, ["names": named, "n": String(all.count - Self.namesShown)]) : named
            out += Array("<li class=\"reaction\" title=\"".utf8)
            HTMLEscape.text(who.utf8, into: &out)
            out += Array("\"><span aria-hidden=\"true\">".utf8)
            HTMLEscape.text(e.utf8, into: &out)
            out += Array(" <span class=\"reaction-count\">\(people[e]!.count)</span></span><span class=\"visually-hidden\">".utf8)
            HTMLEscape.text(words.text(.reaction_from, ["emoji": e, "names": who]).utf8, into: &out)
            out += Array("</span></li>".utf8)
        }
        return out
    }
}
