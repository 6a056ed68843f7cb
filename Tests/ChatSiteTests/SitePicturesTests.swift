#if canImport(Glibc)
import Glibc
#endif
import JSONLines
import MailSubject
import Testing
@testable import ChatSite

/// A folder of its own for each test, with a kept file or two and a mail-thumbnail that answers
/// as the real one does (a shell script: `.png` files are images, `.pdf` PDFs, anything else
/// refused; a file named `crash*` ends it with SIGKILL) and counts its runs.
final class PictureFixture {
    let dir: String
    let site: String
    let program: String

    init() {
        var template = Array("/tmp/chat-site-pictures-XXXXXX".utf8CString)
        dir = template.withUnsafeMutableBufferPointer { String(cString: mkdtemp($0.baseAddress!)!) }
        site = dir + "/site"
        program = dir + "/mail-thumbnail"
        mkdir(site, 0o755)
        mkdir(dir + "/kept", 0o700)
        let script = #"""
            #!/bin/sh
            [ "$1" = --out ] || exit 64
            out=$2; shift 2
            echo run >> "$out/../../runs"
            for f; do
              sha=$(sha256sum < "$f" | cut -c1-64)
              case "$f" in
              *crash*) kill -9 $$ ;;
              *.png) : > "$out/$sha.t.jpg"; : > "$out/$sha.jpg"
                printf '{"file":"%s","sha256":"%s","kind":"image","width":1280,"height":960,"thumbnail":"%s","display":"%s","error":null}\n' "$f" "$sha" "$out/$sha.t.jpg" "$out/$sha.jpg" ;;
              *.pdf) : > "$out/$sha.t.jpg"
                printf '{"file":"%s","sha256":"%s","kind":"pdf","width":595,"height":842,"thumbnail":"%s","display":null,"error":null}\n' "$f" "$sha" "$out/$sha.t.jpg" ;;
              *) printf '{"file":"%s","sha256":"%s","kind":"file","width":null,"height":null,"thumbnail":null,"display":null,"error":"not an image"}\n' "$f" "$sha" ;;
              esac
            done
            """#
        write(program, script)
        chmod(program, 0o755)
    }

    deinit {
        _ = system("rm -rf '\(dir)'")
    }

    func write(_ path: String, _ text: String) {
        let fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
        _ = Array(text.utf8).withUnsafeBytes { Glibc.write(fd, $0.baseAddress, $0.count) }
        close(fd)
    }

    /// A kept file and its attachment object.
    func kept(_ name: String, _ bytes: String, type: String, cid: String? = nil) -> JSONValue {
        let path = dir + "/kept/" + name
        write(path, bytes)
        var json = #"{"filename":"\#(name)","content_type":"\#(type)","size":\#(bytes.utf8.count),"saved_as":"\#(path)""#
        if let cid { json += #","content_id":"\#(cid)""# }
        return try! JSONValue.parse(Array((json + "}").utf8))
    }

    var runs: Int {
        guard let bytes = SiteWriter.read(dir + "/runs") else { return 0 }
        return bytes.filter { $0 == UInt8(ascii: "\n") }.count
    }

    func pictures(program: String? = nil) -> SitePictures {
        let p = program ?? self.program
        return SitePictures(root: site) { p }
    }

    func exists(_ name: String) -> Bool { access(site + "/" + name, F_OK) == 0 }
}

@Suite struct SitePicturesTests {
    @Test func aTypeThatRunsIsOfferedOnlyAsADownloadUnderAHarmlessName() {
        let sha = String(repeating: "a", count: 64)
        #expect(SitePictures.siteName(sha: sha, type: "text/html", name: "invoice.html") == ("f/\(sha).txt", "invoice.html.txt"))
        #expect(SitePictures.siteName(sha: sha, type: "image/svg+xml", name: "logo.svg") == ("f/\(sha).txt", "logo.svg.txt"))
        #expect(SitePictures.siteName(sha: sha, type: "application/javascript", name: "x.js") == ("f/\(sha).txt", "x.js.txt"))
        #expect(SitePictures.siteName(sha: sha, type: "application/x-msdownload", name: "setup.exe") == ("f/\(sha).bin", "setup.exe.bin"))
        #expect(SitePictures.siteName(sha: sha, type: "application/x-unknown", name: "") == ("f/\(sha).bin", "attachment.bin"))
        #expect(SitePictures.siteName(sha: sha, type: "application/pdf", name: "a.html") == ("f/\(sha).pdf", nil))
        #expect(SitePictures.siteName(sha: sha, type: "text/plain", name: "notes") == ("f/\(sha).txt", nil))
        #expect(SitePictures.siteName(sha: sha, type: "application/zip", name: "Photos.ZIP") == ("f/\(sha).zip", "Photos.ZIP"))
        // no folder, control character or direction override in the name a download is saved under
        #expect(SitePictures.siteName(sha: sha, type: "application/zip", name: "../../.x\u{202E}piz.exe\u{1}") == ("f/\(sha).zip", "xpiz.exe.zip"))
    }

    @Test func aPictureIsFittedInItsBox() {
        #expect(SitePictures.fitted(1280, 960) == (320, 240))
        #expect(SitePictures.fitted(960, 1280) == (240, 320))
        #expect(SitePictures.fitted(100, 50) == (100, 50))
        #expect(SitePictures.fitted(100_000, 1) == (320, 1))
    }

    @Test func onlyANameMailThumbnailMayHaveChosenInItsFolderIsTaken() {
        let sha = String(repeating: "b", count: 64)
        #expect(SitePictures.madeName("/s/a/\(sha).t.jpg", sha: sha, in: "/s/a") == "\(sha).t.jpg")
        #expect(SitePictures.madeName("/etc/\(sha).jpg", sha: sha, in: "/s/a") == nil)
        #expect(SitePictures.madeName("/s/a/\(String(repeating: "c", count: 64)).jpg", sha: sha, in: "/s/a") == nil)
        #expect(SitePictures.madeName("/s/a/\(sha).html", sha: sha, in: "/s/a") == nil)
        #expect(SitePictures.madeName("/s/a/\(sha)/../x.jpg", sha: sha, in: "/s/a") == nil)
    }

    @Test func oneRunMakesThePicturesOfAllAndARenderOfWhatIsMadeStartsNone() {
        let f = PictureFixture()
        let attachments = [f.kept("one.png", "1", type: "image/png"), f.kept("two.png", "2", type: "image/png"),
                           f.kept("map.pdf", "%PDF", type: "application/pdf"), f.kept("notes.txt", "hi", type: "text/plain")]
        let pictures = f.pictures()
        #expect(pictures.needsMaking(attachments))
        pictures.make(attachments)
        #expect(f.runs == 1)
        #expect(!pictures.needsMaking(attachments))
        guard case let .picture(display, thumbnail, width, height) = pictures.show(attachments[0]) else {
            Issue.record("not a picture")
            return
        }
        #expect(f.exists(display) && f.exists(thumbnail) && display.hasPrefix("a/") && (width, height) == (320, 240))
        guard case let .file(href, download, pdfThumbnail, _, _) = pictures.show(attachments[2]) else {
            Issue.record("not a file")
            return
        }
        #expect(href?.hasPrefix("f/") == true && href?.hasSuffix(".pdf") == true && download == nil && pdfThumbnail != nil)
        #expect(f.exists(href!))
        pictures.finish(sweep: false)

        // another render: the index says it all, no process
        let again = f.pictures()
        #expect(!again.needsMaking(attachments))
        again.make(attachments)
        #expect(f.runs == 1)
    }

    @Test func aRefusalIsRememberedAndAFileItEndsOnIsAFile() {
        let f = PictureFixture()
        let attachments = [f.kept("ok.png", "1", type: "image/png"), f.kept("crash.png", "2", type: "image/png"),
                           f.kept("after.png", "3", type: "image/png"), f.kept("fake.gif", "<svg/>", type: "image/gif")]
        let pictures = f.pictures()
        pictures.make(attachments)
        #expect(f.runs == 2)  // ended on crash.png, then again for the rest
        guard case .picture = pictures.show(attachments[0]), case .picture = pictures.show(attachments[2]) else {
            Issue.record("not pictures")
            return
        }
        guard case let .file(href, download, _, _, _) = pictures.show(attachments[1]) else {
            Issue.record("the file it ended on is not a file")
            return
        }
        #expect(href?.hasSuffix(".png") == true && download == "crash.png")
        guard case .file = pictures.show(attachments[3]) else {
            Issue.record("a refused image is not a file")
            return
        }
        pictures.finish(sweep: false)
        let again = f.pictures()
        #expect(!again.needsMaking(attachments))
        #expect(f.runs == 2)
    }

    @Test func withoutMailThumbnailEveryAttachmentIsAFileHardLinked() {
        let f = PictureFixture()
        let photo = f.kept("photo.png", "1", type: "image/png")
        let pictures = SitePictures(root: f.site) { nil }
        pictures.make([photo])
        guard case let .file(href?, download, nil, _, _) = pictures.show(photo) else {
            Issue.record("not a file")
            return
        }
        #expect(download == "photo.png" && f.runs == 0)
        var kept = stat(), copy = stat()
        stat(photo["saved_as"]!.stringValue!, &kept)
        stat(f.site + "/" + href, &copy)
        #expect(kept.st_ino == copy.st_ino)

        // kept through a symbolic link: the site holds the file, not the link
        let target = f.kept("report.pdf", "%PDF-1", type: "application/pdf")
        let link = f.dir + "/kept/link.pdf"
        symlink(target["saved_as"]!.stringValue!, link)
        let linked = try! JSONValue.parse(Array(#"{"filename":"link.pdf","content_type":"application/pdf","saved_as":"\#(link)"}"#.utf8))
        guard case let .file(pdf?, nil, _, _, _) = pictures.show(linked) else {
            Issue.record("not a file")
            return
        }
        var site = stat()
        lstat(f.site + "/" + pdf, &site)
        stat(target["saved_as"]!.stringValue!, &kept)
        #expect((site.st_mode & S_IFMT) == S_IFREG && site.st_ino == kept.st_ino)
    }

    @Test func aWholeRenderRemovesWhatNoPageShows() {
        let f = PictureFixture()
        let one = f.kept("one.png", "1", type: "image/png"), two = f.kept("two.pdf", "%PDF-2", type: "application/pdf")
        let pictures = f.pictures()
        pictures.make([one, two])
        _ = pictures.show(one)
        _ = pictures.show(two)
        pictures.finish(sweep: true)
        let later = f.pictures()
        _ = later.show(two)
        later.finish(sweep: true)
        guard case let .file(href?, _, thumbnail?, _, _) = later.show(two) else {
            Issue.record("the PDF is gone")
            return
        }
        #expect(f.exists(href) && f.exists(thumbnail))
        let left = (try? listFolder(f.site + "/a")) ?? []
        #expect(left.count == 1)  // the PDF's thumbnail; the image's two pictures went
    }

    @Test func aBubbleShowsPicturesAsAGridFilesAsCardsAndAnInlineImageFromItsDisplayCopy() throws {
        let f = PictureFixture()
        let site = try SiteWriter(root: f.site, folders: ["c", "m"])
        let attachments = [f.kept("one.png", "1", type: "image/png"), f.kept("two.png", "2", type: "image/png"),
                           f.kept("page.html", "<script>", type: "text/html")]
        let unkept = try JSONValue.parse(Array(#"{"filename":"gone.pdf","content_type":"application/pdf","size":1,"saved_as":null}"#.utf8))
        let p = f.pictures()
        p.make(attachments)
        var withPictures = BubbleRenderer(templates: .builtIn, remoteImages: false, site: site, subjectPrefixes: .builtIn)
        withPictures.pictures = p
        let blocks = withPictures.attachmentBlocks(attachments + [unkept])
        let pictures = String(decoding: blocks.pictures, as: UTF8.self), files = String(decoding: blocks.files, as: UTF8.self)
        #expect(blocks.pictureCount == 2)
        #expect(pictures.contains(#"<a class="picture" href="../a/"#) && pictures.contains(#"width="320" height="240" alt="one.png""#))
        #expect(files.contains(#".txt" download="page.html.txt">"#) && !files.contains("../kept"))
        #expect(files.contains(#"<li class="file"><span class="file-name" dir="auto">gone.pdf</span> <span class="file-meta">PDF · 1 B</span></li>"#))

        let inline = f.kept("inline.png", "3", type: "image/png", cid: "p1")
        p.make([inline])
        var out: [UInt8] = []
        withPictures.rewriteImages(Array(#"<p><img src="cid:p1"><img src="cid:nope"></p>"#.utf8), attachments: [inline], into: &out)
        let html = String(decoding: out, as: UTF8.self)
        #expect(html.contains(#"<img src="data:image/jpeg;base64,""#) && html.contains(#"data-cid="nope""#) && !html.contains("kept/"))
        _ = try site.finishWriting()
        site.removeScratchFolder()
    }
}

func listFolder(_ path: String) throws -> [String] {
    guard let dir = opendir(path) else { return [] }
    defer { closedir(dir) }
    var names: [String] = []
    while let entry = readdir(dir) {
        let name = withUnsafeBytes(of: entry.pointee.d_name) { String(decoding: $0.prefix(while: { $0 != 0 }), as: UTF8.self) }
        if !name.hasPrefix(".") { names.append(name) }
    }
    return names
}
