#if canImport(Glibc)
import Glibc
#endif
import HTTP
import JSONLines

/// How a pass ends early: its exit status (gmail-sync(1)) and what to say.
public struct PassEnd: Error {
    public var status: Int32
    public var message: String?

    public init(_ status: Int32, _ message: String? = nil) {
        self.status = status
        self.message = message
    }

    public static let usage: Int32 = 64
    /// Something is left for the next pass: Gmail unreachable, failing, asking to wait too long,
    /// answering what its API does not document, its daily limit used up; another pass's lock.
    public static let temporary: Int32 = 75
    /// Gmail, or the token endpoint, refuses the credentials; or they are kept where others can read them.
    public static let refused: Int32 = 77
    public static let failed: Int32 = 1
}

/// The access token every request carries, and where a new one comes from when Gmail refuses
/// it (401): `GMAIL_TOKEN` as given; the output of `GMAIL_TOKEN_COMMAND`; or a refresh token
/// with its client id and secret (an "authorized_user" credentials file, as Google's tools
/// write them, readable by the user alone) exchanged at the token endpoint. No token is ever
/// put on a command line or in a message: `redacted` takes them out of any text shown.
public final class AccessTokens {
    public struct Settings {
        public var token: String?
        public var command: String?
        public var credentialsFile: String?
        /// The token endpoint, in place of the credentials file's `token_uri`.
        public var tokenURI: String?

        public init(token: String? = nil, command: String? = nil, credentialsFile: String? = nil, tokenURI: String? = nil) {
            self.token = token
            self.command = command
            self.credentialsFile = credentialsFile
            self.tokenURI = tokenURI
        }
    }

    struct RefreshCredentials {
        var clientID: String
        var clientSecret: String
        var refreshToken: String
        var tokenURI: String
    }

    public static let googleTokenURI = "https://oauth2.googleapis.com/token"

    private let command: String?
    private let credentials: RefreshCredentials?
    private var current: String?
    /// When the current token stops being good (from the token endpoint's expires_in), seconds
    /// since the epoch.
    private var expires: Int?
    /// Every secret seen, to take out of text shown.
    private var secrets: [String] = []

    /// The settings checked, the credentials file read: a file others can read is refused.
    public init(_ settings: Settings) throws(PassEnd) {
        command = settings.command.flatMap { $0.isEmpty ? nil : $0 }
        if let token = settings.token, !token.isEmpty {
            current = token
            secrets.append(token)
        }
        if let file = settings.credentialsFile, !file.isEmpty {
            let c = try Self.readCredentials(file, tokenURI: settings.tokenURI)
            credentials = c
            secrets += [c.refreshToken, c.clientSecret]
        } else {
            credentials = nil
        }
        if current == nil && command == nil && credentials == nil {
            throw PassEnd(PassEnd.usage, "no token: set GMAIL_TOKEN, GMAIL_TOKEN_COMMAND to a command that prints one, or GMAIL_CREDENTIALS to a file with a refresh token (gmail-sync(1))")
        }
    }

    /// Whether a refused token can be replaced by another.
    public var canRenew: Bool { command != nil || credentials != nil }

    /// The token to send: the current one, or a new one when there is none or it has expired.
    func token(_ http: HTTPClient, _ policy: RetryPolicy, say: (String) -> Void) throws(PassEnd) -> String {
        if let current, expires.map({ Int(time(nil)) < $0 - 60 }) ?? true { return current }
        return try renew(http, policy, say: say)
    }

    /// A new token, from the command or the token endpoint.
    @discardableResult
    func renew(_ http: HTTPClient, _ policy: RetryPolicy, say: (String) -> Void) throws(PassEnd) -> String {
        let token: String
        if let command {
            token = try Self.run(command)
            expires = nil
        } else if let credentials {
            (token, expires) = try exchange(credentials, http, policy, say: say)
        } else {
            throw PassEnd(PassEnd.refused, "Gmail refused the token, and nothing can give another")
        }
        current = token
        secrets.append(token)
        return token
    }

    /// `text` with every token and secret known replaced by "[token]".
    public func redacted(_ text: String) -> String {
        var text = text
        for secret in secrets where secret.count >= 4 { text = text.replacingAll(secret, with: "[token]") }
        return text
    }

    /// GMAIL_TOKEN_COMMAND run by sh, its output the token (trailing white space left out, as
    /// the shell's $(...) does).
    static func run(_ command: String) throws(PassEnd) -> String {
        var pipe: [Int32] = [0, 0]
        guard Glibc.pipe(&pipe) == 0 else { throw PassEnd(PassEnd.failed, "cannot run GMAIL_TOKEN_COMMAND: \(String(cString: strerror(errno)))") }
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_adddup2(&actions, pipe[1], 1)
        posix_spawn_file_actions_addclose(&actions, pipe[0])
        posix_spawn_file_actions_addclose(&actions, pipe[1])
        // the command gets the signals gmail-sync --every holds back for itself
        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        var none = sigset_t()
        sigemptyset(&none)
        posix_spawnattr_setsigmask(&attributes, &none)
        posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGMASK))
        var pid = pid_t()
        let arguments = ["sh", "-c", command]
        var argv: [UnsafeMutablePointer<CChar>?] = arguments.map { strdup($0) } + [nil]
        defer { for a in argv { free(a) } }
        let spawned = posix_spawn(&pid, "/bin/sh", &actions, &attributes, &argv, environ)
        close(pipe[1])
        guard spawned == 0 else {
            close(pipe[0])
            throw PassEnd(PassEnd.failed, "cannot run GMAIL_TOKEN_COMMAND: \(String(cString: strerror(spawned)))")
        }
        var output: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 4096)
        while true {
            let n = buffer.withUnsafeMutableBytes { read(pipe[0], $0.baseAddress, $0.count) }
            if n < 0 && errno == EINTR { continue }
            if n <= 0 { break }
            output += buffer[..<n]
        }
        close(pipe[0])
        var status: Int32 = 0
        while waitpid(pid, &status, 0) < 0 && errno == EINTR {}
        let token = String(decoding: output, as: UTF8.self).trimmingWhiteSpace()
        guard status == 0, !token.isEmpty, !token.contains(where: { $0.isNewline || $0 == " " }) else {
            throw PassEnd(PassEnd.refused, "GMAIL_TOKEN_COMMAND printed no token")
        }
        return token
    }

    /// The credentials file: JSON with client_id, client_secret and refresh_token (and maybe
    /// token_uri), the user's own and readable by no one else.
    static func readCredentials(_ path: String, tokenURI: String?) throws(PassEnd) -> RefreshCredentials {
        let fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW)
        guard fd >= 0 else { throw PassEnd(PassEnd.usage, "\(path): \(String(cString: strerror(errno))) (GMAIL_CREDENTIALS)") }
        defer { close(fd) }
        var st = stat()
        guard fstat(fd, &st) == 0, (st.st_mode & S_IFMT) == S_IFREG else { throw PassEnd(PassEnd.usage, "\(path): not a file (GMAIL_CREDENTIALS)") }
        guard st.st_uid == geteuid() else {
            throw PassEnd(PassEnd.refused, "\(path): the credentials file belongs to another user (uid \(st.st_uid)): refused")
        }
        guard st.st_mode & 0o077 == 0 else {
            throw PassEnd(PassEnd.refused, "\(path): others can read the refresh token in it (mode \(String(st.st_mode & 0o777, radix: 8))): refused; chmod 600 it and get a new refresh token")
        }
        var bytes: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 4096)
        while bytes.count < 1 << 20 {
            let n = buffer.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
            if n < 0 && errno == EINTR { continue }
            if n <= 0 { break }
            bytes += buffer[..<n]
        }
        let problem = "\(path): not a credentials file (a JSON object with client_id, client_secret and refresh_token)"
        guard let value = try? JSONValue.parse(bytes),
              let id = value["client_id"]?.stringValue, !id.isEmpty,
              let secret = value["client_secret"]?.stringValue, !secret.isEmpty,
              let refresh = value["refresh_token"]?.stringValue, !refresh.isEmpty else { throw PassEnd(PassEnd.usage, problem) }
        let uri = tokenURI.flatMap { $0.isEmpty ? nil : $0 } ?? value["token_uri"]?.stringValue ?? googleTokenURI
        return RefreshCredentials(clientID: id, clientSecret: secret, refreshToken: refresh, tokenURI: uri)
    }

    /// The refresh token exchanged for an access token (RFC 6749, section 6), retried as Gmail's
    /// requests are. A refusal (400 invalid_grant: revoked or expired; 401 invalid_client) is 77.
    private func exchange(_ c: RefreshCredentials, _ http: HTTPClient, _ policy: RetryPolicy, say: (String) -> Void) throws(PassEnd) -> (String, Int?) {
        let body = URLText.form([("grant_type", "refresh_token"), ("refresh_token", c.refreshToken),
                                 ("client_id", c.clientID), ("client_secret", c.clientSecret)])
        let request = HTTPRequest(method: "POST", url: c.tokenURI, headers: ["Content-Type: application/x-www-form-urlencoded", "Accept: application/json"], body: body)
        var attempt = 1
        while true {
            var status = 0
            var reason = ""
            var retryAfter: Int?
            do {
                let answer = try http.send(request)
                status = answer.status
                retryAfter = answer.header("Retry-After").flatMap { Int($0) }
                let value = try? JSONValue.parse(answer.body)
                if status == 200 {
                    guard let token = value?["access_token"]?.stringValue, !token.isEmpty else {
                        throw PassEnd(PassEnd.temporary, "the token endpoint's answer has no access_token: left for the next pass")
                    }
                    let lifetime = value?["expires_in"]?.intValue
                    return (token, lifetime.map { Int(time(nil)) + $0 })
                }
                let words = [value?["error"]?.stringValue, value?["error_description"]?.stringValue].compactMap { $0 }.joined(separator: ": ")
                reason = shownText(redacted(words))
                if status == 400 || status == 401 || status == 403 {
                    throw PassEnd(PassEnd.refused, "the token endpoint refused the refresh token (\(status)\(reason.isEmpty ? "" : " " + reason)): get a new one (gmail-sync(1))")
                }
                guard status == 429 || status >= 500 else {
                    throw PassEnd(PassEnd.temporary, "the token endpoint answered HTTP \(status)\(reason.isEmpty ? "" : ": " + reason): left for the next pass")
                }
            } catch let failure as HTTPFailure {
                reason = shownText(redacted(failure.description))
            } catch let end as PassEnd {
                throw end
            } catch {
                reason = "\(error)"
            }
            guard attempt < policy.tries else {
                throw PassEnd(PassEnd.temporary, "the token endpoint: \(status == 0 ? reason : "HTTP \(status)") \(policy.tries) times; left for the next pass")
            }
            guard let pause = policy.pause(beforeRetry: attempt, retryAfter: retryAfter) else {
                throw PassEnd(PassEnd.temporary, "the token endpoint asks to wait \(retryAfter ?? 0) s, more than GMAIL_SYNC_MAX_WAIT (\(policy.maximumWait) s): left for the next pass")
            }
            sleepSeconds(pause)
            attempt += 1
        }
    }
}

extension String {
    func replacingAll(_ target: String, with replacement: String) -> String {
        guard !target.isEmpty else { return self }
        var out = ""
        var rest = Substring(self)
        while let range = rest.range(of: target) {
            out += rest[..<range.lowerBound] + replacement
            rest = rest[range.upperBound...]
        }
        return out + rest
    }

    func trimmingWhiteSpace() -> String {
        var s = Substring(self)
        while let c = s.last, c.isWhitespace { s.removeLast() }
        while let c = s.first, c.isWhitespace { s.removeFirst() }
        return String(s)
    }
}

extension Substring {
    func range(of target: String) -> Range<Index>? {
        guard !target.isEmpty, count >= target.count else { return nil }
        var start = startIndex
        while start < endIndex {
            if self[start...].hasPrefix(target) { return start..<index(start, offsetBy: target.count) }
            start = index(after: start)
        }
        return nil
    }
}

/// Text a server wrote, fit to show on a terminal: its control characters (whose escapes a
/// terminal would obey) left out.
func shownText(_ text: String) -> String {
    var out = String.UnicodeScalarView()
    for scalar in text.unicodeScalars where scalar.properties.generalCategory != .control { out.append(scalar) }
    return String(out)
}

func sleepSeconds(_ seconds: Double) {
    guard seconds > 0 else { return }
    var wait = timespec(tv_sec: Int(seconds), tv_nsec: Int((seconds - Double(Int(seconds))) * 1e9))
    var left = timespec()
    while nanosleep(&wait, &left) != 0 && errno == EINTR { wait = left }
}
