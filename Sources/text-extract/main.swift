import ArgumentParser
import BodyText
import UnixFilter

struct TextExtractCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "text-extract",
        abstract: "Add what each message says as plain text: body_text, and reply_text without quotes and signature.",
        discussion: """
            body_text is the whole message as text (from text, format=flowed undone, else from \
            html); reply_text only the new text, quoted_text and signature what was taken out of \
            it, forwarded whether it only forwards a message, snippet its first 140 characters, \
            forwarded_message the message it forwards (from, to, date, subject, text, attachments; \
            a message/rfc822 attachment, or a Gmail, Outlook, Apple Mail or Thunderbird forward in \
            the text, in their languages), list_header and list_footer what a mailing list added \
            in text parts of their own (Schleuder's header block before the post, a footer part \
            after it), read from mime-parse's text_parts and kept out of reply_text and snippet. \
            The attribution lines, separators and signatures it knows are data: add your own with \
            --patterns or ~/.config/mailpipe/reply-patterns.json. See text-extract(1) and mailpipe(5).

            Examples:
              mime-parse mail.mbox | text-extract | jq -r .reply_text
              mime-parse mail.mbox | text-extract | jq -r 'select(.forwarded) | .subject'
              mime-parse mail.mbox | text-extract | jq -c '.forwarded_message | select(.) | [.from.address, .date, .subject]'
            """,
        version: mailpipeVersion)

    @OptionGroup var common: CommonOptions

    @Option(name: .customLong("patterns"), help: ArgumentHelp("Extra patterns: a JSON file (or folder of them) with reply-patterns.json's keys (repeatable).", valueName: "file"))
    var patterns: [String] = []

    func run() throws {
        var tool = TextExtract()
        tool.patternFiles = patterns
        FilterRun.main(program: "text-extract", options: common) { try tool.run($0) }
    }
}

TextExtractCommand.main()
