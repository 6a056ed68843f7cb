import JSONLines
import UnixFilter

/// participant-hash's run: each record gets `participants`, `participant_hash`,
/// `conversation_key`, `is_group` and `from_me` (see mailpipe(5)).
public struct ParticipantHash {
    public var me: [String] = []
    public var meFiles: [String] = []
    public var meAuto = false
    /// Lists whose mail may not be in the input (`--list`): mail to them is keyed on them.
    public var lists: [String] = []
    public var rules = AddressRules()

    public init() {}

    public func run(_ run: FilterRun) throws {
        let normalizer = AddressNormalizer(rules: rules)
        var own = OwnAddresses()
        for address in me {
            guard let a = normalizer.normalize(address) else {
                run.diagnostics.error("--me: not an address: '\(address)'")
                throw Exit(.usage)
            }
            own.add(a)
        }
        for path in meFiles {
            let text: String
            do {
                let input = try Input.open(path)
                defer { input.close() }
                text = String(decoding: try readWholeFile(fd: input.fd), as: UTF8.self)
            } catch {
                run.diagnostics.error(error.description, file: path)
                throw Exit(error.status)
            }
            for line in OwnAddresses.parseFile(text) { normalizer.normalize(line).map { own.add($0) } }
        }
        var knownLists = Set<String>()
        for address in lists {
            guard let a = normalizer.normalize(address) else {
                run.diagnostics.error("--list: not an address: '\(address)'")
                throw Exit(.usage)
            }
            knownLists.insert(a)
        }
        if meAuto {
            let inference = try OwnAddressInference(firstPassOver: run, normalizer: normalizer)
            for a in inference.addresses { own.add(a) }
            knownLists.formUnion(inference.lists)
            guard !own.isEmpty else {
                run.diagnostics.error("--me-auto: no message labelled SENT and no Delivered-To in the input; say who you are with --me")
                throw Exit(.usage)
            }
            run.diagnostics.note("--me-auto: you are " + inference.report)
        }
        guard !own.isEmpty else {
            run.diagnostics.error("no address of yours: give --me ADDR, --me-file FILE or --me-auto")
            throw Exit(.usage)
        }
        try filterRecords(run) { record in
            let key = try ParticipantKey.of(record, me: own, lists: &knownLists, normalizer: normalizer)
            var participants = JSONWriter()
            participants.beginArray()
            for p in key.participants { participants.string(p) }
            participants.endArray()
            var quotedKey = JSONWriter()
            quotedKey.string(key.conversationKey)
            var quotedHash = JSONWriter()
            quotedHash.string(key.hash)
            return record.updated([
                ("participants", participants.bytes),
                ("participant_hash", quotedHash.bytes),
                ("conversation_key", quotedKey.bytes),
                ("is_group", Array((key.isGroup ? "true" : "false").utf8)),
                ("from_me", Array((key.fromMe ? "true" : "false").utf8)),
            ])
        }
    }
}
