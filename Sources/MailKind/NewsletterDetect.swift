#if canImport(Glibc)
import Glibc
#endif
import JSONLines
import MailParse
import MailSubject
import UnixFilter

/// newsletter-detect's run: each record gets `mail_kind`, `is_newsletter`, `newsletter_reasons`
/// and `unsubscribe` (see mailpipe(5)); or, for procmail, one raw message is stamped with
/// X-Mail-Kind and X-Newsletter, or only answers through its exit status.
public struct NewsletterDetect {
    public enum Mode: Sendable { case records, mail, quiet }

    public var mode = Mode.records
    /// Rules files (or directories of them) named on the command line, read after the user's.
    public var ruleFiles: [String] = []
    public var program = "newsletter-detect"

    public init() {}

    /// The built-in rules, then `$XDG_CONFIG_HOME/mailpipe/mail-kind.json` (or a folder of that
    /// name), then each `--rules` file.
    public func loadRules(_ diagnostics: Diagnostics) throws -> MailKindRules {
        try DataFiles.extend(MailKindRules.builtIn, user: ["mail-kind.json", "mail-kind"], extra: ruleFiles,
                             diagnostics: diagnostics)
    }

    public func run(_ run: FilterRun) throws {
        try stage(run.diagnostics).run(run)
    }

    func classifier(_ diagnostics: Diagnostics) throws -> Classifier {
        Classifier(rules: try loadRules(diagnostics), subjectPrefixes: try SubjectPrefixes.load(diagnostics))
    }

    public func stage(_ diagnostics: Diagnostics) throws -> RecordStage {
        let classifier = try self.classifier(diagnostics)
        return RecordStage(name: "newsletter-detect") { record in
            let verdict = classifier.classify(try MessageFacts(record: record))
            return record.updated(Self.fields(verdict))
        }
    }

    static func fields(_ v: Verdict) -> [(key: String, value: [UInt8]?)] {
        var kind = JSONWriter(capacity: 16)
        kind.string(v.kind.rawValue)
        var reasons = JSONWriter(capacity: 128)
        reasons.beginArray()
        for r in v.reasons { reasons.string(r) }
        reasons.endArray()
        var unsubscribe = JSONWriter(capacity: 128)
        if let u = v.unsubscribe {
            unsubscribe.beginObject()
            unsubscribe.field("url", u.url)
            unsubscribe.field("mailto", u.mailto)
            unsubscribe.field("one_click", u.oneClick)
            unsubscribe.endObject()
        } else {
            unsubscribe.null()
        }
        var care = JSONWriter(capacity: 16)
        if let c = v.care { care.string(c.rawValue) } else { care.null() }
        // absent (removed when running again) on the mail they do not describe
        func string(_ value: String?) -> [UInt8]? {
            guard let value else { return nil }
            var w = JSONWriter(capacity: 32)
            w.string(value)
            return w.bytes
        }
        var actedBy: [UInt8]? = nil
        if let person = v.actedBy {
            var w = JSONWriter(capacity: 96)
            w.beginObject()
            w.field("name", person.name)
            w.field("address", person.address)
            w.endObject()
            actedBy = w.bytes
        }
        return [
            ("mail_kind", kind.bytes),
            ("is_newsletter", Array((v.isNewsletter ? "true" : "false").utf8)),
            ("newsletter_reasons", reasons.bytes),
            ("unsubscribe", unsubscribe.bytes),
            ("care", care.bytes),
            ("automated_kind", string(v.automatedKind?.rawValue)),
            ("acted_by", actedBy),
            ("service_action", string(v.serviceAction?.rawValue)),
        ]
    }

    /// `--mail` and `-q`: one raw message from standard input (or the one file named). With
    /// `-q` the exit status is the answer: 0 a newsletter, 1 not, 64 and up an error.
    public func runMail(inputs: [String]) -> Never {
        let diagnostics = Diagnostics(program: program)
        signal(SIGPIPE, SIG_DFL)
        let name = inputs.first ?? "-"
        let message: [UInt8]
        let classifier: Classifier
        do {
            classifier = try self.classifier(diagnostics)
            let input = try Input.open(name)
            defer { input.close() }
            message = try readWholeFile(fd: input.fd)
        } catch let e as Exit {
            exit(e.status.rawValue)
        } catch let e as InputError {
            diagnostics.error(e.description, file: name)
            // Delivery agents requeue on 75: a message that cannot be read now may be read later.
            exit(e.status == .noInput ? e.status.rawValue : ExitStatus.temporaryFailure.rawValue)
        } catch {
            diagnostics.error("\(error)", file: name)
            exit(ExitStatus.temporaryFailure.rawValue)
        }
        guard !message.isEmpty else {
            diagnostics.error("empty message", file: name)
            exit(ExitStatus.dataError.rawValue)
        }
        let verdict = classifier.classify(Self.facts(ofRawMessage: message, name: name))
        if mode == .quiet { exit(verdict.isNewsletter ? 0 : 1) }
        let stamped = stampHeaders(message, [("X-Mail-Kind", verdict.kind.rawValue),
                                             ("X-Newsletter", verdict.isNewsletter ? "yes" : "no")])
        guard writeAll(fd: 1, stamped) else {
            diagnostics.error(OutputError(errno: errno).description)
            exit(ExitStatus.temporaryFailure.rawValue)
        }
        exit(0)
    }

    static func facts(ofRawMessage message: [UInt8], name: String) -> MessageFacts {
        var body = message[...]
        if body.starts(with: Array("From ".utf8)), let nl = body.firstIndex(of: 0x0A) { body = body[(nl + 1)...] }
        let raw = RawMessage(bytes: Array(body), source: MessageSource(path: name, offset: 0, length: body.count, format: "eml"))
        let (json, _) = MessageConverter().record(for: raw)
        // The converter always writes a JSON object with headers.
        return (try? MessageFacts(record: JSONRecord(json))) ?? MessageFacts()
    }
}
