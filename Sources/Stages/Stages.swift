#if canImport(Glibc)
import Glibc
#endif
import BodyText
import Events
import JSONLines
import MailKind
import MailParse
import MailSubject
import Parcels
import Sanitize
import UnixFilter

/// The per-message stages after mime-parse, in the one order every chain runs them: `make
/// pipeline` (mbox-to-conversations), the live path (`mailstore deliver`, which mailpipe-log
/// runs) and Spark. event-extract reads the HTML as it came (its schema.org markup is in
/// scripts), before html-sanitize; text-extract reads the sanitized HTML; newsletter-detect
/// reads carrier-detect's shipments (a sign of a carrier's notification). Shells ask `mailstore
/// stages` for the list rather than restating it.
public enum Stages {
    public static let names = ["event-extract", "html-sanitize", "text-extract", "carrier-detect", "newsletter-detect"]

    /// The stages with their built-in rules and the user's, ready to run.
    public static func prepared(_ diagnostics: Diagnostics) throws -> [RecordStage] {
        // event-extract finds where a message's new text ends as text-extract does: the reply
        // patterns compiled once (the costliest part of a delivery's start), on a second core
        // while the other stages' rules are made
        let patterns = try TextExtract().loadPatterns(diagnostics)
        let extractor = Background { Extractor(patterns: patterns) }
        let sanitize = try HTMLSanitize().stage(diagnostics), newsletters = try NewsletterDetect().stage(diagnostics)
        let carriers = try CarrierDetect().stage(diagnostics)
        return [try EventExtract().stage(diagnostics, extractor: extractor.value), sanitize,
                try TextExtract().stage(diagnostics, extractor: extractor.value), carriers, newsletters]
    }
}

/// One delivery in one process: the messages of one input (one message as procmail or
/// fetchmail hands it over, or Gmail API lines) parsed once and run through the stages.
public struct Delivery {
    let converter = MessageConverter()
    let stages: [RecordStage]

    public init(_ diagnostics: Diagnostics) throws {
        stages = try Stages.prepared(diagnostics)
        converter.subjectPrefixes = try SubjectPrefixes.load(diagnostics)
    }

    /// Where each message's attachments are kept (the store's folder); none by default, as
    /// mime-parse without --save-attachments.
    public func keepAttachments(with keeper: AttachmentKeeper?) {
        converter.attachmentSaver = keeper
    }

    public struct Failed: Error, CustomStringConvertible {
        public var description: String
        /// Nothing of the input could be a message (an empty one): trying again will not help.
        public var isEmpty = false
    }

    /// Standard input read whole and left to be read again from its start (kept in a file when
    /// it is a pipe): a message to stamp is parsed too.
    public static func keepStandardInput() throws -> [UInt8] {
        _ = try spoolStandardInput()
        let message = try readWholeFile(fd: 0)
        lseek(0, 0, SEEK_SET)
        return message
    }

    /// The message as it came, with the fields procmail's recipes file it by (as newsletter-detect
    /// --mail stamps them), from its record; the sender's own fields of those names are replaced.
    public static func stamped(_ message: [UInt8], by record: JSONRecord) -> [UInt8] {
        stampHeaders(message, [("X-Mail-Kind", record.string("mail_kind") ?? "personal"),
                               ("X-Newsletter", record.value("is_newsletter") == .bool(true) ? "yes" : "no")])
    }

    /// The record of one Gmail API message resource (messages.get's answer with `format=raw`),
    /// the same bytes `forEachRecord` makes of it as a line of its input.
    public func record(gmailMessage bytes: [UInt8], name: String) throws -> JSONRecord {
        let raw: RawMessage
        do { raw = try MailboxInput.gmailAPIMessage(bytes, path: name) } catch { throw Failed(description: error.message) }
        var record = try JSONRecord(converter.record(for: raw).json)
        for stage in stages {
            do { record = try JSONRecord(stage.transform(record)) } catch {
                throw Failed(description: "\(stage.name): \(error)")
            }
        }
        return record
    }

    /// The record of each message in `fd`, as the pipeline's programs would write it, handed to
    /// `body` as soon as it is made, so that memory stays that of one message. A message a stage
    /// cannot take ends the delivery there: the mail system hands the input over again (the
    /// messages before it are then found unchanged).
    public func forEachRecord(fd: Int32, name: String, _ body: (JSONRecord) throws -> Void) throws {
        try forEachRaw(fd: fd, name: name) { _, record in try body(record) }
    }

    /// Each message's bytes as the mailbox holds them (without an mbox's From_ line and
    /// quoting) with its record, as `forEachRecord` hands them.
    public func forEachMessage(fd: Int32, name: String, _ body: (_ message: [UInt8], _ record: JSONRecord) throws -> Void) throws {
        try forEachRaw(fd: fd, name: name) { raw, record in try body(Array(raw.bytes), record) }
    }

    /// Each message as the reader holds it (not copied: a large one is held once) with its record.
    private func forEachRaw(fd: Int32, name: String, _ body: (RawMessage, JSONRecord) throws -> Void) throws {
        do {
            try MailboxInput.read(fd: fd, path: name, isDirectory: false, format: nil, message: { raw in
                var record = try JSONRecord(converter.record(for: raw).json)
                for stage in stages {
                    do { record = try JSONRecord(stage.transform(record)) } catch {
                        throw Failed(description: "\(stage.name): \(error)")
                    }
                }
                try body(raw, record)
            }, bad: { bad in
                throw Failed(description: (bad.line.map { "line \($0): " } ?? "") + bad.message)
            })
        } catch let e as MailboxError {
            if case .empty = e { throw Failed(description: "an empty message: nothing to deliver", isEmpty: true) }
            throw Failed(description: e.description)
        }
    }
}
