import ArgumentParser
import MailKind
import UnixFilter

struct NewsletterDetectCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "newsletter-detect",
        abstract: "Say what kind of mail each message is: mail_kind, is_newsletter, newsletter_reasons, unsubscribe, care.",
        discussion: """
            Kinds: personal, newsletter, notification (receipts, shipping, password resets, and \
            care mail: a patient's appointments and prescriptions, whatever bulk headers they \
            carry, with care set), list (posts to a discussion list) and automated (auto-replies, \
            bounces, read receipts, TLS and DMARC reports, named by automated_kind). A service \
            acting for a person (a share, a comment, a mention, an access request, a calendar \
            answer) is a notification with acted_by {name, address} and service_action. The signals \
            live in a data file; add your own with --rules or ~/.config/mailpipe/mail-kind.json. \
            See newsletter-detect(1) and mailpipe(5).

            Examples:
              mime-parse mail.mbox | newsletter-detect | jq -r .mail_kind | sort | uniq -c
              newsletter-detect --mail < message.eml    # stamps X-Mail-Kind, X-Newsletter
              newsletter-detect -q < message.eml && echo newsletter
            """,
        version: mailpipeVersion)

    @OptionGroup var common: CommonOptions

    @Flag(name: .customLong("mail"), help: "Read one raw message and write it back with X-Mail-Kind and X-Newsletter headers.")
    var mail = false

    @Flag(name: .customShort("q"), help: "Read one raw message; write nothing; exit 0 for a newsletter, 1 otherwise.")
    var quiet = false

    @Option(name: .customLong("rules"), help: ArgumentHelp("Extra signals: a JSON file (or folder of them) with mail-kind.json's keys (repeatable).", valueName: "file"))
    var rules: [String] = []

    func validate() throws {
        if (mail || quiet) && common.inputs.count > 1 {
            throw ValidationError("--mail and -q read one message: name at most one file")
        }
    }

    func run() throws {
        var tool = NewsletterDetect()
        tool.ruleFiles = rules
        if mail || quiet {
            tool.mode = quiet ? .quiet : .mail
            tool.runMail(inputs: common.inputs)
        }
        FilterRun.main(program: "newsletter-detect", options: common) { try tool.run($0) }
    }
}

NewsletterDetectCommand.main()
