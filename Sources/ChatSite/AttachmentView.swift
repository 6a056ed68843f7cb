import JSONLines
import UTF8Text

/// A bubble's attachments: its images as pictures (a grid for several), a click opening the
/// display copy; its other files as cards that open or download (a PDF with its first page).
/// Everything from the site's copies (SitePictures); an attachment whose bytes were not kept is
/// a card without a link.
struct AttachmentBlocks {
    var pictures: [UInt8] = []
    var pictureCount = 0
    var files: [UInt8] = []
}

extension BubbleRenderer {
    /// What a bubble shows of a message's files: its own attachments, and those of a message it
    /// forwards as an attachment (its forwarded card's).
    static func shownAttachments(_ record: JSONRecord) -> [JSONValue] {
        var all = record.value("attachments")?.arrayValue ?? []
        if let forwarded = record.value("forwarded_message"), forwarded["source"]?.stringValue == "attachment" {
            all += forwarded["attachments"]?.arrayValue ?? []
        }
        return all
    }

    /// `shownInFrame`: the Content-IDs the message's HTML shows in its frame (not shown again).
    func attachmentBlocks(_ attachments: [JSONValue], shownInFrame: Set<String> = []) -> AttachmentBlocks {
        var blocks = AttachmentBlocks()
        for a in attachments {
            if let cid = a["content_id"]?.stringValue, shownInFrame.contains(cid) { continue }
            let name = a["filename"]?.stringValue.flatMap { $0.isEmpty ? nil : $0 } ?? a["content_type"]?.stringValue ?? words.text(.attachment)
            switch pictures.show(a) {
            case let .picture(display, thumbnail, width, height):
                blocks.pictureCount += 1
                blocks.pictures += Array("<li><a class=\"picture\" href=\"../".utf8)
                HTMLEscape.text(display.utf8, into: &blocks.pictures)
                blocks.pictures += Array("\"><img src=\"../".utf8)
                HTMLEscape.text(thumbnail.utf8, into: &blocks.pictures)
                blocks.pictures += Array("\" width=\"\(width)\" height=\"\(height)\" alt=\"".utf8)
                HTMLEscape.text(name.utf8, into: &blocks.pictures)
                blocks.pictures += Array("\" loading=\"lazy\"></a></li>".utf8)
            case let .file(href, download, thumbnail, width, height):
                fileCard(a, name: name, href: href, download: download, thumbnail: thumbnail.map { ($0, width, height) }, into: &blocks.files)
            }
        }
        return blocks
    }

    private func fileCard(_ a: JSONValue, name: String, href: String?, download: String?, thumbnail: (String, Int, Int)?,
                          into out: inout [UInt8]) {
        out += Array("<li class=\"file\">".utf8)
        if let href {
            out += Array("<a href=\"../".utf8)
            HTMLEscape.text(href.utf8, into: &out)
            out += Array("\"".utf8)
            if let download {
                out += Array(" download=\"".utf8)
                HTMLEscape.text(download.utf8, into: &out)
                out += Array("\"".utf8)
            }
            out += Array(">".utf8)
        }
        if let thumbnail {
            out += Array("<img class=\"file-thumbnail\" src=\"../".utf8)
            HTMLEscape.text(thumbnail.0.utf8, into: &out)
            out += Array("\" width=\"\(thumbnail.1)\" height=\"\(thumbnail.2)\" alt=\"\" loading=\"lazy\">".utf8)
        }
        out += Array("<span class=\"file-name\" dir=\"auto\">".utf8)
        HTMLEscape.text(name.utf8, into: &out)
        out += Array("</span> ".utf8)
        var meta: [String] = []
        let type = a["detected_type"]?.stringValue ?? a["content_type"]?.stringValue
        if let type { meta.append(Self.typeName(type, words: words)) }
        if let size = a["size"]?.intValue { meta.append(Self.sizeText(size)) }
        if download != nil { meta.append(words.text(.download)) }
        out += Array("<span class=\"file-meta\">".utf8)
        HTMLEscape.text(meta.joined(separator: " · ").utf8, into: &out)
        out += Array("</span>".utf8)
        out += Array(href == nil ? "</li>".utf8 : "</a></li>".utf8)
    }

    /// The Content-IDs an HTML body refers to (`cid:…` in it).
    static func contentIDs(in html: [UInt8], of attachments: [JSONValue]) -> Set<String> {
        var found = Set<String>()
        for a in attachments {
            guard let cid = a["content_id"]?.stringValue, !cid.isEmpty else { continue }
            let needle = Array(("cid:" + cid).utf8)
            if html.withUnsafeBufferPointer({ ByteSearch.contains($0, needle) }) { found.insert(cid) }
        }
        return found
    }
}
