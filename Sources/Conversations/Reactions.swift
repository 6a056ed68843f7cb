import JSONLines

/// RFC 9078 reactions as a conversation lists them: each person's latest reaction to a message
/// is their reaction to it (a later one replaces it; an empty one takes it back).
enum Reactions {
    /// The emoji of a reaction (mime-parse's `reaction`), each once, in the order sent.
    static func emoji(_ reaction: String) -> [String] {
        var seen = Set<Character>()
        return reaction.filter { !$0.isWhitespace && seen.insert($0).inserted }.map { String($0) }
    }

    /// Who reacted: the sender's address, lowercased.
    static func sender(_ r: MessageSummary) -> String {
        r.from["address"]?.stringValue?.lowercased() ?? ""
    }

    /// Of `all`, each sender's latest reaction to each message (by date, then id), those not
    /// taken back, ordered by the message they react to, then by date and id.
    static func current(_ all: [MessageSummary]) -> [MessageSummary] {
        var latest: [String: MessageSummary] = [:]
        for r in all {
            guard let of = r.reaction?.of else { continue }
            let key = of + "\u{0}" + sender(r)
            if let kept = latest[key], (kept.date, kept.id) > (r.date, r.id) { continue }
            latest[key] = r
        }
        return latest.values.filter { !($0.reaction?.emoji.isEmpty ?? true) }.sorted {
            ($0.reaction!.of, $0.date, $0.id) < ($1.reaction!.of, $1.date, $1.id)
        }
    }
}

extension Conversation {
    /// The `reactions` of its record: every sender's current reaction to each message.
    func writeReactions(_ w: inout JSONWriter) {
        w.beginArray()
        for r in Reactions.current(reactions) {
            w.beginObject()
            w.field("message_id", r.id)
            w.field("of", r.reaction?.of)
            w.key("from")
            w.value(r.from)
            w.field("from_me", r.fromMe)
            w.field("date", r.date.isEmpty ? nil : r.date)
            w.field("emoji", strings: r.reaction?.emoji ?? [])
            w.endObject()
        }
        w.endArray()
    }
}
