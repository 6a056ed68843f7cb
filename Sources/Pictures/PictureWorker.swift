#if canImport(Glibc)
import Glibc
#endif
import JSONLines
import UnixFilter

/// The pictures made in a child process, so that no file can end the run: a decoder that
/// crashes, or aborts when an allocation fails under the memory limit (glib's g_malloc does),
/// or runs past the time limit, takes its worker down, not the run. The file is then kind
/// `file` with the reason, and the next file gets a new worker.
///
/// Between the two, the file names go one at a time, each ended by a NUL (a name may hold a
/// newline), and the answers come back as mail-thumbnail's JSON lines.
public final class PictureWorker {
    private let executable: String
    private let arguments: [String]
    private let timeoutMilliseconds: Int32
    private var pid: pid_t = 0
    private var toWorker: Int32 = -1
    private var fromWorker: Int32 = -1
    private var pending: [UInt8] = []
    /// The files the running worker answered.
    private var answers = 0

    /// `arguments` start a worker: a program that runs `PictureWorker.serve`.
    public init(executable: String, arguments: [String], timeoutSeconds: Int) {
        self.executable = executable
        self.arguments = arguments
        self.timeoutMilliseconds = Int32(clamping: timeoutSeconds * 1000)
        signal(SIGPIPE, SIG_IGN)  // a worker gone is an error on its pipe, not the end of this process
    }

    deinit { stop() }

    /// What came of one file.
    public enum Outcome {
        /// The worker's line for it (without its newline), a refusal with its reason included.
        case answered([UInt8])
        /// The worker failed on it (crashed, aborted, ran out of time): a line saying so.
        case workerFailed([UInt8], why: String)
        /// No worker could start, or one ended before its first answer without a signal (it
        /// could not start libvips): nothing can be made in this run.
        case cannotRun(String)
    }

    /// The outcome for one file.
    public func make(file: String) -> Outcome {
        if pid == 0, let why = start() { return .cannotRun(why) }
        let fresh = answers == 0
        guard writeAll(fd: toWorker, Array(file.utf8) + [0]) else { return failed(file, fresh: fresh) }
        switch readLine() {
        case .line(let line):
            answers += 1
            return .answered(line)
        case .ended:
            return failed(file, fresh: fresh)
        case .timedOut:
            kill(pid, SIGKILL)
            _ = stop()
            let why = "the picture library took more than \(timeoutMilliseconds / 1000) s on it"
            return .workerFailed(Self.failureLine(file: file, why: why), why: why)
        }
    }

    private func failed(_ file: String, fresh: Bool) -> Outcome {
        let (how, signalled) = stop()
        if fresh && !signalled { return .cannotRun("the worker ended before its first answer: \(how)") }
        let why = "the picture library failed on it: " + how
        return .workerFailed(Self.failureLine(file: file, why: why), why: why)
    }

    /// One line of mail-thumbnail's output.
    public static func line(file: String, sha256: String?, picture: Picture) -> [UInt8] {
        var line = JSONWriter(capacity: 512)
        line.beginObject()
        line.field("file", file)
        line.field("sha256", sha256)
        line.field("kind", picture.kind.rawValue)
        line.key("width")
        if let w = picture.width { line.number(w) } else { line.null() }
        line.key("height")
        if let h = picture.height { line.number(h) } else { line.null() }
        line.field("thumbnail", picture.thumbnail)
        line.field("display", picture.display)
        line.field("error", picture.error)
        line.endObject()
        return line.bytes
    }

    private static func failureLine(file: String, why: String) -> [UInt8] {
        let sha = try? PictureMaker.sha256(ofFileAt: file).get()
        return line(file: file, sha256: sha, picture: .file(why))
    }

    /// The worker's side: answers each NUL-ended name read from `input` with its line on
    /// `output`, until `input` ends. False when `output` cannot be written.
    public static func serve(maker: PictureMaker, folder: String, input: Int32 = 0, output: Int32 = 1) -> Bool {
        var buffer = [UInt8](repeating: 0, count: 65536)
        var name: [UInt8] = []
        while true {
            let n = buffer.withUnsafeMutableBytes { read(input, $0.baseAddress, $0.count) }
            if n < 0 && errno == EINTR { continue }
            if n <= 0 { return true }
            for byte in buffer[..<n] {
                guard byte == 0 else { name.append(byte); continue }
                let file = String(decoding: name, as: UTF8.self)
                name.removeAll(keepingCapacity: true)
                let answer: [UInt8]
                switch PictureMaker.sha256(ofFileAt: file) {
                case .failure(let error): answer = line(file: file, sha256: nil, picture: .file("cannot read: \(error)"))
                case .success(let sha): answer = line(file: file, sha256: sha, picture: maker.make(file: file, name: sha, into: folder))
                }
                guard writeAll(fd: output, answer + [0x0A]) else { return false }
            }
        }
    }

    /// Starts a worker; the reason when it cannot.
    private func start() -> String? {
        var down: [Int32] = [0, 0], up: [Int32] = [0, 0]
        guard Self.pipeClosedOnExec(&down) else { return "cannot start a worker: " + String(cString: strerror(errno)) }
        guard Self.pipeClosedOnExec(&up) else {
            close(down[0]); close(down[1])
            return "cannot start a worker: " + String(cString: strerror(errno))
        }
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_adddup2(&actions, down[0], 0)
        posix_spawn_file_actions_adddup2(&actions, up[1], 1)
        var argv: [UnsafeMutablePointer<CChar>?] = ([executable] + arguments).map { strdup($0) } + [nil]
        defer { for a in argv { free(a) } }
        var child = pid_t()
        let spawned = posix_spawn(&child, executable, &actions, nil, &argv, environ)
        close(down[0])
        close(up[1])
        guard spawned == 0 else {
            close(down[1]); close(up[0])
            return "cannot start a worker: \(executable): " + String(cString: strerror(spawned))
        }
        pid = child
        toWorker = down[1]
        fromWorker = up[0]
        pending.removeAll()
        answers = 0
        return nil
    }

    /// A pipe whose ends a started program does not inherit (pipe2 is not in Glibc's Swift module;
    /// this process starts its programs from one thread, so nothing is started in between).
    private static func pipeClosedOnExec(_ ends: inout [Int32]) -> Bool {
        guard pipe(&ends) == 0 else { return false }
        _ = fcntl(ends[0], F_SETFD, FD_CLOEXEC)
        _ = fcntl(ends[1], F_SETFD, FD_CLOEXEC)
        return true
    }

    /// Ends the worker (its input closed, so a live one stops by itself): how it ended, and
    /// whether a signal ended it.
    @discardableResult
    private func stop() -> (String, signalled: Bool) {
        guard pid != 0 else { return ("no worker", false) }
        close(toWorker)
        close(fromWorker)
        var status: Int32 = 0
        while waitpid(pid, &status, 0) < 0 && errno == EINTR {}
        pid = 0
        let signal = status & 0x7F
        if signal != 0 { return ("killed by signal \(signal) (\(String(cString: strsignal(signal))))", true) }
        return ("it stopped with status \((status >> 8) & 0xFF)", false)
    }

    private enum Answer { case line([UInt8]), ended, timedOut }

    private func readLine() -> Answer {
        var buffer = [UInt8](repeating: 0, count: 4096)
        while true {
            if let newline = pending.firstIndex(of: 0x0A) {
                let line = Array(pending[..<newline])
                pending.removeSubrange(...newline)
                return .line(line)
            }
            var ready = pollfd(fd: fromWorker, events: Int16(POLLIN), revents: 0)
            let polled = poll(&ready, 1, timeoutMilliseconds)
            if polled < 0 && errno == EINTR { continue }
            if polled == 0 { return .timedOut }
            let n = buffer.withUnsafeMutableBytes { read(fromWorker, $0.baseAddress, $0.count) }
            if n < 0 && errno == EINTR { continue }
            if n <= 0 { return .ended }
            pending += buffer[..<n]
        }
    }
}
