#if canImport(Glibc)
import Glibc
#endif

/// Another program run to its end (a sendmail): `input` on its standard input, its standard
/// error (and output) kept. Both go through unlinked temporary files, so that neither side waits on a pipe
/// and a program that reads only part of its input cannot end this one with SIGPIPE.
public enum Command {
    public struct Result: Sendable {
        /// The exit status; 128 + the signal when it was killed; 127 when it could not be started.
        public var status: Int32
        public var standardError: String
    }

    public static func run(_ arguments: [String], input: [UInt8]) -> Result {
        spawn(arguments, input: input, output: nil)
    }

    /// Runs a program with no input and gives what it wrote on its standard output (at most
    /// `maxOutput` bytes of it) besides its exit status and errors.
    public static func output(_ arguments: [String], maxOutput: Int = 64 << 20) -> (result: Result, output: [UInt8]) {
        guard let stdout = temporaryFile() else {
            return (Result(status: 127, standardError: "cannot make a temporary file: \(String(cString: strerror(errno)))"), [])
        }
        defer { close(stdout) }
        let result = spawn(arguments, input: [], output: stdout)
        lseek(stdout, 0, SEEK_SET)
        var st = stat()
        guard result.status != 127, fstat(stdout, &st) == 0, Int(st.st_size) <= maxOutput else { return (result, []) }
        return (result, (try? readWholeFile(fd: stdout)) ?? [])
    }

    private static func spawn(_ arguments: [String], input: [UInt8], output: Int32?) -> Result {
        guard !arguments.isEmpty, let stdin = temporaryFile(), let stderr = temporaryFile() else {
            return Result(status: 127, standardError: "cannot make a temporary file: \(String(cString: strerror(errno)))")
        }
        defer {
            close(stdin)
            close(stderr)
        }
        guard writeAll(fd: stdin, input), lseek(stdin, 0, SEEK_SET) == 0 else {
            return Result(status: 127, standardError: "cannot write the input: \(String(cString: strerror(errno)))")
        }
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_adddup2(&actions, stdin, 0)
        posix_spawn_file_actions_adddup2(&actions, output ?? stderr, 1)  // without `output`, what it says goes with its errors
        posix_spawn_file_actions_adddup2(&actions, stderr, 2)
        var argv: [UnsafeMutablePointer<CChar>?] = arguments.map { strdup($0) } + [nil]
        defer { for a in argv { free(a) } }
        var pid = pid_t()
        let spawned = posix_spawnp(&pid, arguments[0], &actions, nil, &argv, environ)
        guard spawned == 0 else { return Result(status: 127, standardError: "\(arguments[0]): \(String(cString: strerror(spawned)))") }
        var status: Int32 = 0
        while waitpid(pid, &status, 0) < 0 && errno == EINTR {}
        let code = (status & 0x7F) == 0 ? (status >> 8) & 0xFF : 128 + (status & 0x7F)
        lseek(stderr, 0, SEEK_SET)
        let text = (try? readWholeFile(fd: stderr)).map { String(decoding: $0.prefix(4096), as: UTF8.self) } ?? ""
        return Result(status: code, standardError: text)
    }

    private static func temporaryFile() -> Int32? {
        let folder = getenv("TMPDIR").map { String(cString: $0) } ?? "/tmp"
        var template = Array((folder + "/mailpipe-XXXXXX").utf8CString)
        let fd = template.withUnsafeMutableBufferPointer { mkstemp($0.baseAddress!) }
        guard fd >= 0 else { return nil }
        _ = fcntl(fd, F_SETFD, FD_CLOEXEC)
        template.withUnsafeBufferPointer { _ = unlink($0.baseAddress!) }
        return fd
    }
}
