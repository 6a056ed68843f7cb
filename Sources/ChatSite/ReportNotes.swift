import CivilTime
import JSONLines

/// A read receipt or a bounce as its conversation lists it (conversation-group's `reports`),
/// shown as a small line under the message it is about, or in the notices conversation.
struct ReportNote {
    /// The report's own message id, and the id of the message it is about.
    var messageID: String?
    var of: String?
    var type: String
    var recipient: String?
    var date: String?
    var diagnostic: String?

    init?(_ v: JSONValue) {
        guard let type = v["type"]?.stringValue else { return nil }
        self.type = type
        messageID = v["message_id"]?.stringValue
        of = v["of"]?.stringValue
        recipient = v["recipient"]?.stringValue
        date = v["date"]?.stringValue
        diagnostic = v["diagnostic"]?.stringValue
    }

    /// "Read by Alex", "Not delivered to jordan@example.org: user unknown"; `names` by
    /// lowercase address.
    func text(names: [String: String], words: SiteWords) -> String {
        let address = recipient ?? words.text(.a_recipient)
        let person = recipient.flatMap { names[$0.lowercased()] } ?? address
        switch type {
        case "read": return words.text(.read_by, ["person": person])
        case "not_read": return words.text(.not_read_by, ["person": person])
        case "delivered": return words.text(.delivered_to, ["address": address])
        case "delayed": return words.text(.not_delivered_yet_to, ["address": address]) + Self.reason(diagnostic)
        default: return words.text(.not_delivered_to, ["address": address]) + Self.reason(diagnostic)
        }
    }

    /// The server's words without the reply and status codes before them: "550 5.1.1 User
    /// unknown" is ": User unknown"; long ones are cut at a word.
    static func reason(_ diagnostic: String?) -> String {
        guard let diagnostic else { return "" }
        var words = diagnostic.split(separator: " ")[...]
        while let w = words.first, w.allSatisfy({ $0.isNumber || $0 == "." || $0 == "-" || $0 == "#" }) { words = words.dropFirst() }
        guard !words.isEmpty else { return "" }
        var text = ""
        for w in words {
            if text.count + w.count > 100 {
                text += "…"
                break
            }
            text += (text.isEmpty ? "" : " ") + w
        }
        return ": " + text
    }

    /// The line as a list item, with the report's time (and its day, when not `day`).
    func item(names: [String: String], day: Int?, clock: inout LocalClock, words: SiteWords, into out: inout [UInt8]) {
        out += Array("<li class=\"\(type == "failed" ? "failed" : type == "read" ? "read" : "report")\">".utf8)
        HTMLEscape.text(text(names: names, words: words).utf8, into: &out)
        if let date, let epoch = CivilDate.epoch(rfc3339: date) {
            let (days, seconds) = clock.local(epoch)
            let when = (days == day ? "" : words.shortDay(days) + " ") + words.clock(seconds)
            out += Array(" · <time datetime=\"".utf8)
            HTMLEscape.text(date.utf8, into: &out)
            out += Array("\">".utf8)
            HTMLEscape.text(when.utf8, into: &out)
            out += Array("</time>".utf8)
        }
        out += Array("</li>".utf8)
    }
}
