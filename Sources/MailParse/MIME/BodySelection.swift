/// Which parts a mail client shows as the message, and which are attachments: the best
/// text/plain and text/html of the main alternative, the inline text parts that follow it,
/// text/calendar invitations, and everything else as attachments.
struct BodySelection {
    var text: [MIMEPart] = []
    var html: [MIMEPart] = []
    var calendar: [MIMEPart] = []
    var attachments: [MIMEPart] = []
    /// The paths of the text parts shaped as a relay's addition to a whole message (a list's
    /// footer part): see `isAppendedAfterPost`.
    var appended: Set<String> = []
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
                    s.appended.formUnion(sub.appended)
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
                // the signer wrote all of it: no part inside was appended by a relay
                var signed = select(children[0], isMain: true)
                signed.appended = []
                s.merge(signed)
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
                    } else if isPostAfterText(child, children[..<k]) {
                        // a list manager's text part before the post (Schleuder's header block)
                        s.merge(select(child, isMain: true))
                    } else if child.isMultipart && !child.isAttachmentDisposition {
                        s.attachments.append(contentsOf: leaves(child))
                    } else {
                        s.merge(select(child, isMain: false))
                    }
                }
                if part.contentType.subtype == "mixed", isAppendedAfterPost(children), let last = children.last {
                    s.appended.insert(last.path)
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

    /// A multipart/mixed's last child is a text/plain part that a relay added to a whole message
    /// (a list manager's footer part) when it is inline text and every child before it is the
    /// post: a text/plain part or a multipart (signed, encrypted, alternative, related, or mixed
    /// with the post's own attachments inside). A leaf attachment among them (a mail program's
    /// text, image, text) makes it the sender's own text.
    private static func isAppendedAfterPost(_ children: [MIMEPart]) -> Bool {
        guard children.count >= 2, let last = children.last, last.contentType.value == "text/plain", isInlineText(last) else { return false }
        return children.dropLast().allSatisfy { child in
            child.isMultipart ? !child.isAttachmentDisposition : child.contentType.value == "text/plain" && isInlineText(child)
        }
    }

    /// A multipart/alternative or multipart/signed that follows only inline text/plain parts in
    /// a multipart/mixed is a message of its own put after them (Schleuder puts its header
    /// block first and the post after it): its text is the body too, not an attachment.
    private static func isPostAfterText(_ child: MIMEPart, _ before: ArraySlice<MIMEPart>) -> Bool {
        guard child.isMultipart, !child.isAttachmentDisposition,
              child.contentType.subtype == "alternative" || child.contentType.subtype == "signed" else { return false }
        return before.allSatisfy { $0.contentType.value == "text/plain" && isInlineText($0) }
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
        appended.formUnion(other.appended)
    }
}
