import BodyText
import Events
import JSONLines
import MailKind
import MailParse
import Parcels
import Sanitize
import UnixFilter

/// The per-message stages after mime-parse, in the one order every chain runs them: `make
/// pipeline` (mbox-to-conversations), the live path (`mailstore deliver`, which mailpipe-log
/// runs) and Spark. event-extract reads the HTML as it came (its schema.org markup is in
/// scripts), before html-sanitize; text-extract reads the sanitized HTML. Shells ask `mailstore
/// stages` for the list rather than restating it.
public enum Stages {
    public static let names = ["event-extract", "html-sanitize", "text-extract", "newsletter-detect", "carrier-detect"]

    /// The stages with their built-in rules and the user's, ready to run.
    public static func prepared(_ diagnostics: Diagnostics) throws -> [RecordStage] {
        [try EventExtract().stage(diagnostics), try HTMLSanitize().stage(diagnostics), try TextExtract().stage(diagnostics),
         try NewsletterDetect().stage(diagnostics), try CarrierDetect().stage(diagnostics)]
    }
}

/// One delivery in one process: the messages of one input (one message as procmail or
/// fetchmail hands it over, or Gmail API lines) parsed once and run through the stages.
public struct Delivery {
    let converter = MessageConverter()
    let stages: [RecordStage]

    public init(_ diagnostics: Diagnostics) throws {
        stages = try Stages.prepared(diagnostics)
    }

    public struct Failed: Error, CustomStringConvertible {
        public var description: String
        /// Nothing of the input could be a message (an empty one): trying again will not help.
        public var isEmpty = false
    }

    /// The records of the messages in `fd`, each as the pipeline's programs would write it.
    /// A message a stage cannot take fails the whole delivery: the mail system keeps it.
    public func records(fd: Int32, name: String) throws -> [JSONRecord] {
        var records: [JSONRecord] = []
        do {
            try MailboxInput.read(fd: fd, path: name, isDirectory: false, format: nil, message: { raw in
                var record = try JSONRecord(converter.record(for: raw).json)
                for stage in stages {
                    do { record = try JSONRecord(stage.transform(record)) } catch {
                        throw Failed(description: "\(stage.name): \(error)")
                    }
                }
                records.append(record)
            }, bad: { bad in
                throw Failed(description: (bad.line.map { "line \($0): " } ?? "") + bad.message)
            })
        } catch let e as MailboxError {
            if case .empty = e { throw Failed(description: "an empty message: nothing to deliver", isEmpty: true) }
            throw Failed(description: e.description)
        }
        return records
    }
}
