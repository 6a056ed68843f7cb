import CivilTime
import JSONLines

extension BubbleRenderer {
    /// The message a mail forwards (text-extract's `forwarded_message`) as a card in its bubble:
    /// who sent it, when, about what, what it says, and its attachments. An inline forward's
    /// attachments are the mail's own, shown under the bubble already.
    func forwardCard(_ r: JSONRecord, clock: inout LocalClock) -> [UInt8] {
        guard let m = r.value("forwarded_message"), case .object = m else { return [] }
        var f = Fields<ForwardField>()
        let from = m["from"]
        let name = from?["name"]?.stringValue.flatMap { $0.isEmpty ? nil : $0 }
        let address = from?["address"]?.stringValue
        f.set(.from, name ?? address)
        if name != nil { f.set(.address, address) }
        if let date = m["date"]?.stringValue, let epoch = CivilDate.epoch(rfc3339: date) {
            let (days, seconds) = clock.local(epoch)
            f.set(.date, words.dayAndTime(days, seconds))
            f.set(.datetime, date)
        }
        f.set(.subject, m["subject"]?.stringValue)
        let to = (m["to"]?.arrayValue ?? []).compactMap { p -> String? in
            p["name"]?.stringValue.flatMap { $0.isEmpty ? nil : $0 } ?? p["address"]?.stringValue
        }
        f.set(.to, to.isEmpty ? nil : to.joined(separator: ", "))
        let text = Array((m["text"]?.stringValue ?? "").utf8)
        if !Self.isBlank(text) {
            var body: [UInt8] = []
            body.reserveCapacity(text.count + text.count / 8)
            LinkedText.html(Reflow.paragraphs(text), into: &body)
            f[.text] = body
            if let lang = TextFacts.cjkLanguage(text) { f.set(.lang, lang) }
        }
        if m["source"]?.stringValue == "attachment" {
            let blocks = attachmentBlocks(m["attachments"]?.arrayValue ?? [])
            f[.pictures] = blocks.pictures
            f[.attachments] = blocks.files
        }
        var out: [UInt8] = []
        templates.forward.render(f.values, into: &out)
        return out
    }
}
