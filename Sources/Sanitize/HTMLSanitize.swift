import JSONLines
import UnixFilter

/// html-sanitize's run: each record's `html` replaced by its sanitized form, and a `sanitize`
/// object saying what was taken out (see mailpipe(5)); or, with `htmlOnly`, HTML in and out.
public struct HTMLSanitize {
    public var options = SanitizeOptions()
    /// Tracker files (or folders of them) named on the command line, read after the user's.
    public var trackerFiles: [String] = []

    public init() {}

    /// The built-in trackers, then `$XDG_CONFIG_HOME/mailpipe/trackers.json` (or a folder of
    /// that name), then each `--trackers` file.
    public func loadTrackers(_ diagnostics: Diagnostics) throws -> Trackers {
        try DataFiles.extend(Trackers.builtIn, user: ["trackers.json", "trackers"], extra: trackerFiles,
                             diagnostics: diagnostics)
    }

    public func run(_ run: FilterRun) throws {
        try stage(run.diagnostics).run(run)
    }

    public func stage(_ diagnostics: Diagnostics) throws -> RecordStage {
        var options = options
        options.trackers = try loadTrackers(diagnostics)
        let sanitizer = HTMLSanitizer(options: options)
        return RecordStage(name: "html-sanitize") { record in
            guard record.rawValue("html") != nil else { throw MissingField() }
            guard let html = record.stringBytes("html") else {  // null: nothing to sanitize
                return record.updated([("sanitize", Array("null".utf8))])
            }
            let (safe, report) = sanitizer.sanitize(html)
            var w = JSONWriter(capacity: safe.count + safe.count / 8 + 16)
            w.string(utf8: safe)
            return record.updated([("html", w.bytes), ("sanitize", Self.json(report))])
        }
    }

    /// `--html`: each input is one HTML document; its sanitized form goes to stdout.
    public func runOnPages(_ run: FilterRun) throws {
        var options = options
        options.trackers = try loadTrackers(run.diagnostics)
        let sanitizer = HTMLSanitizer(options: options)
        try run.forEachInput { input in
            let bytes: [UInt8]
            do throws(InputError) { bytes = try readWholeFile(fd: input.fd) } catch {
                run.diagnostics.error(error.description, file: input.name)
                throw Exit(.ioError)
            }
            // libxml2 passes invalid UTF-8 through: repair it first
            let page = Array(String(decoding: bytes, as: UTF8.self).utf8)
            try run.write(sanitizer.sanitize(page).html)
        }
    }

    struct MissingField: Error, CustomStringConvertible {
        var description: String { "no 'html' field (is this mime-parse output?)" }
    }

    static func json(_ r: SanitizeReport) -> [UInt8] {
        var w = JSONWriter(capacity: 256)
        w.beginObject()
        w.field("elements_removed", r.elementsRemoved)
        w.field("attributes_removed", r.attributesRemoved)
        w.field("styles_removed", r.stylesRemoved)
        w.field("trackers_removed", r.trackersRemoved)
        w.field("tracker_hosts", strings: r.trackerHosts.sorted())
        w.field("remote_images", r.remoteImages)
        w.field("link_parameters_removed", r.linkParametersRemoved)
        w.endObject()
        return w.bytes
    }
}
