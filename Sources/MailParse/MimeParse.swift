import UnixFilter

/// mime-parse's run: every input read as a mailbox, every message written as a record.
/// With `--strict`, a message with defects is a failed record.
public func parseMail(run: FilterRun, converter: MessageConverter, format: MailboxFormat?, shard: Shard? = nil) throws {
    var overLimits = 0
    defer {
        if let why = converter.fileTypeError {
            run.diagnostics.note("attachments have no detected_type: \(why)")
        }
        if overLimits > 0 {
            run.diagnostics.note("\(overLimits) message\(overLimits == 1 ? " was" : "s were") over the limits of mailpipe(5): what was over is left out, and named in the record's defects")
        }
    }
    try run.forEachInput { input in
        // a shard's progress counts from where it starts
        let part = input.size.map { size in shard?.range(of: size) ?? 0..<size }
        let progress = Progress(totalBytes: part?.count, enabled: !run.settings.noProgress, noun: "messages")
        run.diagnostics.beforeWrite = progress.clear
        defer {
            progress.clear()
            run.diagnostics.beforeWrite = nil
        }
        var count = 0
        do {
            try MailboxInput.read(
                fd: input.fd, path: input.name, isDirectory: input.isDirectory, format: format, shard: shard,
                message: { raw in
                    let (json, defects) = converter.record(for: raw)
                    count += 1
                    if defects.contains(where: RecordLimits.defects.contains) { overLimits += 1 }
                    if run.settings.strict, !defects.isEmpty {
                        try run.recordFailed("malformed message at byte \(raw.source.offset): " + defects.joined(separator: ", "),
                                             file: raw.source.path, line: raw.source.line, record: nil)
                    }
                    try run.write(json)
                    progress.update(bytes: raw.source.offset + raw.source.length - (part?.lowerBound ?? 0), records: count)
                },
                bad: { bad in
                    try run.recordFailed(bad.message, file: input.name, line: bad.line, record: nil)
                })
        } catch let error as MailboxError {
            switch error {
            case .notAMaildir:
                run.diagnostics.error(error.description, file: input.name)
                run.raise(.noInput)
            case .cannotShard:
                run.diagnostics.error(error.description, file: input.name)
                throw Exit(.usage)
            case .io(let path, _):
                run.diagnostics.error(error.description, file: path)
                throw Exit(.ioError)
            case .empty:
                run.diagnostics.error(error.description, file: input.name)
                run.raise(.dataError)
            }
        }
    }
}
