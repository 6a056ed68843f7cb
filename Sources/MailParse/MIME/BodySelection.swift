/// Which parts a mail client shows as the message, and which are attachments: the best
/// text/plain and text/html of the main alternative, the inline text parts that follow it,
/// text/calendar invitations, and everything else as attachments.
struct BodySelection {
    var text: [MIMEPart] = []
    var html: [MIMEPart] = []
    var calendar: [MIMEPart] = []
    var attachments: [MIMEPart] = []
    /// The RFC 9078 reaction part, in none of the others: it is the text only when the message
    /// says nothing else, or when it holds no reaction (MessageConverter decides).
    var reaction: MIMEPart?

    init(root: MIMEPart) {
        self = Self.select(root, isMain: true)
        reaction = Reaction.part(in: root)
    }

    private init() {}

    private static func select(_ part: MIMEPart, isMain: Bool) -> BodySelection {
        var s = BodySelection()
        let value = part.contentType.value
        if part.isMultipart {
            let children = part.children
            if children.isEmpty { return s }
            switch part.contentType.subtype {
            case "alternative":
                // later alternatives are preferred; each kind comes from the last child that has it
                for child in children {
                    let sub = select(child, isMain: true)
                    if !sub.text.isEmpty { s.text = sub.text }
                    if !sub.html.isEmpty { s.html = sub.html }
                    s.calendar += sub.calendar
                    s.attachments += sub.attachments
                }
            case "related":
                let start = part.contentType.parameters["start"].flatMap { MessageIDs.first($0) }
                let rootIndex = children.firstIndex { start != nil && $0.contentID == start } ?? 0
                for (k, child) in children.enumerated() {
                    if k == rootIndex {
                        s.merge(select(child, isMain: true))
                    } else {
                        s.attachments.append(contentsOf: leaves(child))
                    }
                }
            case "signed":
                s.merge(select(children[0], isMain: true))
                for child in children.dropFirst() { s.attachments.append(contentsOf: leaves(child)) }
            default:  // mixed and anything unknown: the first part is the body, inline text follows it
                for (k, child) in children.enumerated() {
                    if k == 0 {
                        s.merge(select(child, isMain: true))
                    } else if isInlineText(child) {
                        let sub = select(child, isMain: true)
                        s.text += sub.text
                        s.html += sub.html
                        s.calendar += sub.calendar
                        s.attachments += sub.attachments
                    } else if child.isMultipart && !child.isAttachmentDisposition {
                        s.attachments.append(contentsOf: leaves(child))
                    } else {
                        s.merge(select(child, isMain: false))
                    }
                }
            }
            return s
        }
        if Reaction.isReactionPart(part) { return s }
        let inline = !part.isAttachmentDisposition
        switch value {
        case "text/plain" where inline && isMain:
            s.text.append(part)
        case "text/html" where inline && isMain:
            s.html.append(part)
        case "text/calendar":
            s.calendar.append(part)
            if part.filename != nil || part.isAttachmentDisposition { s.attachments.append(part) }
        default:
            // invitations also travel as application/ics or as an .ics file of any type
            if value == "application/ics" || part.filename.map(isCalendarFileName) == true { s.calendar.append(part) }
            s.attachments.append(part)
        }
        return s
    }

    /// A text part that follows the body inline: text/plain or text/html, not an attachment,
    /// without a filename.
    private static func isInlineText(_ part: MIMEPart) -> Bool {
        (part.contentType.value == "text/plain" || part.contentType.value == "text/html")
            && !part.isAttachmentDisposition && part.filename == nil
    }

    private static func isCalendarFileName(_ name: String) -> Bool {
        let lower = name.lowercased()
        return lower.hasSuffix(".ics") || lower.hasSuffix(".ical") || lower.hasSuffix(".ifb")
    }

    /// Every leaf below `part`, as attachments.
    private static func leaves(_ part: MIMEPart) -> [MIMEPart] {
        part.isMultipart ? part.children.flatMap(leaves) : [part]
    }

    private mutating func merge(_ other: BodySelection) {
        text += other.text
        html += other.html
        calendar += other.calendar
        attachments += other.attachments
    }
}
