import ArgumentParser
import MailParse
import MailSubject
import UnixFilter

extension MailboxFormat: ExpressibleByArgument {}
extension Shard: ExpressibleByArgument {
    public init?(argument: String) { self.init(argument) }
}

struct MimeParse: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "mime-parse",
        abstract: "Read mail (mbox, maildir, .eml, Gmail API JSON) and write one JSON record per message.",
        discussion: """
            The format of each input is detected from its first bytes: a From_ line is an mbox, \
            a '{' Gmail API JSON Lines, a directory a maildir, anything else one message. \
            The record is described in mailpipe(5).

            Example:
              mime-parse ~/mail/archive.mbox | jq -r .subject
            """,
        version: mailpipeVersion)

    @OptionGroup var common: CommonOptions

    @Option(help: ArgumentHelp("Read inputs as this format instead of detecting it: \(MailboxFormat.allCases.map(\.rawValue).joined(separator: ", ")).", valueName: "format"))
    var format: MailboxFormat?

    @Option(name: .customLong("save-attachments"), help: ArgumentHelp("Write attachments into this folder under safe names; each record says where.", valueName: "dir"))
    var saveAttachments: String?

    @Option(help: ArgumentHelp("Read only part K of N of each input, cut at message boundaries, so that N processes can share a big mailbox; their outputs, one after the other, are the whole.", valueName: "K/N"))
    var shard: Shard?

    @Option(name: .customLong("max-recipients"), help: ArgumentHelp("Keep at most this many addresses of To, Cc and Bcc together; the rest are left out with the defect too_many_recipients.", valueName: "n"))
    var maxRecipients = RecordLimits().recipients

    @Option(name: .customLong("max-header-fields"), help: ArgumentHelp("Keep at most this many header fields of the message and of each part (too_many_header_fields).", valueName: "n"))
    var maxHeaderFields = RecordLimits().headerFields

    @Option(name: .customLong("max-text"), help: ArgumentHelp("Keep at most this many bytes of the text body, of the HTML body and of each calendar part (text_over_limit, html_over_limit, calendar_over_limit).", valueName: "bytes"))
    var maxText = RecordLimits().textBytes

    func validate() throws {
        for (name, value) in [("--max-recipients", maxRecipients), ("--max-header-fields", maxHeaderFields), ("--max-text", maxText)] where value < 1 {
            throw ValidationError("\(name) must be at least 1")
        }
    }

    func run() throws {
        FilterRun.main(program: "mime-parse", options: common) { run in
            let converter = MessageConverter()
            converter.limits.recipients = maxRecipients
            converter.limits.headerFields = maxHeaderFields
            converter.limits.textBytes = maxText
            converter.subjectPrefixes = try SubjectPrefixes.load(run.diagnostics)
            if let dir = saveAttachments {
                do {
                    converter.attachmentSaver = try AttachmentSaver(directory: dir)
                } catch {
                    run.diagnostics.error("cannot create the folder", file: dir)
                    throw Exit(.ioError)
                }
            }
            try parseMail(run: run, converter: converter, format: format, shard: shard)
        }
    }
}

MimeParse.main()
