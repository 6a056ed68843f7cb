#if canImport(Glibc)
import Glibc
#endif

/// A progress line on stderr (bytes, records per second, ETA), shown only when stderr is a
/// terminal and the size of the input is known; silent otherwise.
public final class Progress {
    private let enabled: Bool
    private let total: Int
    private let start: Double
    private var lastShown: Double = 0
    private var shown = false
    private let noun: String

    public init(totalBytes: Int?, enabled: Bool, noun: String = "records") {
        self.enabled = enabled && totalBytes != nil && isatty(2) == 1
        self.total = totalBytes ?? 0
        self.start = Progress.now()
        self.noun = noun
    }

    /// Updates the line at most a few times a second.
    public func update(bytes: Int, records: Int) {
        guard enabled else { return }
        let t = Progress.now()
        guard t - lastShown >= 0.25 else { return }
        lastShown = t
        let elapsed = max(t - start, 1e-6)
        let rate = Double(records) / elapsed
        let bytesRate = Double(bytes) / elapsed
        var line = "\r\(Progress.size(bytes))/\(Progress.size(total))  \(records) \(noun)  \(Int(rate))/s"
        if bytesRate > 0, total > bytes {
            let eta = Int(Double(total - bytes) / bytesRate)
            line += "  ETA \(eta / 60):" + (eta % 60 < 10 ? "0" : "") + "\(eta % 60)"
        }
        line += "\u{1B}[K"
        shown = true
        writeAll(fd: 2, Array(line.utf8))
    }

    /// Clears the line so that a message or the shell prompt starts clean.
    public func clear() {
        guard shown else { return }
        shown = false
        writeAll(fd: 2, Array("\r\u{1B}[K".utf8))
    }

    static func now() -> Double {
        var ts = timespec()
        clock_gettime(CLOCK_MONOTONIC, &ts)
        return Double(ts.tv_sec) + Double(ts.tv_nsec) / 1e9
    }

    static func size(_ bytes: Int) -> String {
        let units = ["B", "KB", "MB", "GB", "TB"]
        var value = Double(bytes)
        var unit = 0
        while value >= 1000, unit < units.count - 1 {
            value /= 1000
            unit += 1
        }
        return unit == 0 ? "\(bytes) B" : String(Int(value * 10) / 10) + "." + String(Int(value * 10) % 10) + " " + units[unit]
    }
}
