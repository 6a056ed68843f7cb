#if canImport(Glibc)
import Glibc
#endif

/// Messages on stderr in the form `prog: file:line: message`, and the counts behind the
/// summary printed at exit.
public final class Diagnostics {
    public let program: String
    public private(set) var skipped = 0
    public private(set) var passedWithErrors = 0
    /// Called before anything is written to stderr, so a progress line can be cleared.
    public var beforeWrite: (() -> Void)?

    public init(program: String) { self.program = program }

    public func error(_ message: String, file: String? = nil, line: Int? = nil) {
        write(format(message, file: file, line: line))
    }

    public func note(_ message: String) { write("\(program): \(message)\n") }

    public func countSkipped() { skipped += 1 }
    public func countPassed() { passedWithErrors += 1 }

    /// The one-line summary, when anything was left out or passed on with errors.
    public func summary() -> String? {
        var parts: [String] = []
        if skipped > 0 { parts.append("\(skipped) record\(skipped == 1 ? "" : "s") skipped") }
        if passedWithErrors > 0 { parts.append("\(passedWithErrors) passed on with errors") }
        return parts.isEmpty ? nil : "\(program): " + parts.joined(separator: ", ")
    }

    private func format(_ message: String, file: String?, line: Int?) -> String {
        var s = program + ": "
        if let file {
            s += file
            if let line { s += ":\(line)" }
            s += ": "
        }
        return s + message + "\n"
    }

    public func write(_ text: String) {
        beforeWrite?()
        writeAll(fd: 2, Array(text.utf8))
    }
}

/// Writes all of `bytes` to `fd`; false on an error other than EINTR.
@discardableResult
public func writeAll(fd: Int32, _ bytes: [UInt8]) -> Bool {
    bytes.withUnsafeBytes { writeAll(fd: fd, $0) }
}

/// Writes all of `buf` to `fd`; false on an error other than EINTR (errno says which).
@discardableResult
public func writeAll(fd: Int32, _ buf: UnsafeRawBufferPointer) -> Bool {
    var offset = 0
    while offset < buf.count {
        let n = Glibc.write(fd, buf.baseAddress! + offset, buf.count - offset)
        if n < 0 {
            if errno == EINTR { continue }
            return false
        }
        offset += n
    }
    return true
}
