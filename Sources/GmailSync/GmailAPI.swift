#if canImport(Glibc)
import Glibc
#endif
import HTTP
import JSONLines

/// How often and how long a request is tried again (GMAIL_SYNC_TRIES, GMAIL_SYNC_BACKOFF,
/// GMAIL_SYNC_MAX_WAIT).
public struct RetryPolicy {
    /// Attempts of one request before the pass gives up on it.
    public var tries = 6
    /// Seconds before the first retry; doubled each time, with jitter.
    public var backoff = 1.0
    /// The longest wait: for Retry-After, a backoff, another pass's lock.
    public var maximumWait = 900

    public init() {}

    /// Seconds to wait before retry number `retry` (1 is the first): exponential with full
    /// jitter, at most a minute (or the longest wait), or longer when the server's Retry-After
    /// asks for it; nil when that asks for more than the longest wait.
    func pause(beforeRetry retry: Int, retryAfter: Int?) -> Double? {
        if let retryAfter, retryAfter > maximumWait { return nil }
        let ceiling = min(backoff * Double(1 << min(retry - 1, 30)), 60, Double(maximumWait))
        let pause = ceiling / 2 + ceiling / 2 * Double.random(in: 0...1)
        return max(pause, Double(retryAfter ?? 0))
    }
}

/// Gmail's API as a client must use it (Gmail's "Resolve errors" and usage-limits pages): 429
/// and 5xx tried again with exponential backoff and jitter, Retry-After honoured up to the
/// longest wait, 401 answered with a new token once, 403 for a rate limit tried again,
/// 403 dailyLimitExceeded left for the next pass, 404 said apart, the token on no command line.
final class GmailAPI {
    enum Outcome {
        case answer([UInt8])
        /// 404: the resource is not there (a message deleted, a history Gmail no longer has).
        case notFound
        /// Failed after the tries, or an answer no retry changes: said, left for the next pass.
        case failed
        /// Gmail asks to wait longer than the longest wait: said; the pass gives up.
        case waitTooLong
        /// To a POST, 400, 409, 413 and the like: the request itself is refused, and sent again it
        /// would be refused again (Gmail's words). (A GET's is `failed`, and said.)
        case refused(String)
    }

    let http: HTTPClient
    let base: String
    let tokens: AccessTokens
    let policy: RetryPolicy
    let say: (String) -> Void
    /// Requests sent to Gmail (the token endpoint's not counted).
    private(set) var requests = 0

    init(http: HTTPClient, base: String, tokens: AccessTokens, policy: RetryPolicy, say: @escaping (String) -> Void) {
        self.http = http
        self.base = base
        self.tokens = tokens
        self.policy = policy
        self.say = say
    }

    /// GET `base + path`. Throws for what ends the pass: the token refused (77), the daily
    /// limit used up (75).
    func get(_ path: String) throws(PassEnd) -> Outcome { try call("GET", path) }

    /// POST `json` to `base + path` (modify, batchModify, trash, send). `once`: never sent a
    /// second time here, whatever the failure (a send whose outcome is unknown is looked for on
    /// Gmail before it is sent again).
    func post(_ path: String, json: [UInt8], once: Bool = false) throws(PassEnd) -> Outcome {
        try call("POST", path, body: json, once: once)
    }

    private func call(_ method: String, _ path: String, body: [UInt8]? = nil, once: Bool = false) throws(PassEnd) -> Outcome {
        var attempt = 1
        var renewed = false
        while true {
            let token = try tokens.token(http, policy, say: say)
            var headers = ["Authorization: Bearer \(token)", "Accept: application/json"]
            if body != nil { headers.append("Content-Type: application/json") }
            let request = HTTPRequest(method: method, url: base + path, headers: headers, body: body, freshConnection: once)
            var retryAfter: Int?
            var failure: String
            requests += 1
            do {
                let answer = try http.send(request)
                retryAfter = answer.header("Retry-After").flatMap { Int($0.trimmingWhiteSpace()) }
                let error = GoogleError(answer.body, tokens)
                switch answer.status {
                case 200, 204:
                    return .answer(answer.body)
                case 404:
                    return .notFound
                case 401:
                    if !renewed && tokens.canRenew {
                        renewed = true
                        try tokens.renew(http, policy, say: say)
                        continue
                    }
                    throw PassEnd(PassEnd.refused, "Gmail refused the token (401)" + (error.message.isEmpty ? "" : ": \(error.message)"))
                case 403 where error.reason == "dailyLimitExceeded":
                    throw PassEnd(PassEnd.temporary, "Gmail's daily limit of requests is used up (403 dailyLimitExceeded: \(error.message)): left for the next pass")
                case 403 where ["rateLimitExceeded", "userRateLimitExceeded", "RESOURCE_EXHAUSTED"].contains(error.reason):
                    failure = "HTTP 403 \(error.reason)"
                case 403:
                    throw PassEnd(PassEnd.refused, "Gmail refused access (403 \(error.reason)): \(error.message)")
                case 429, 500...599:
                    failure = "HTTP \(answer.status)"
                case 400..<500 where method != "GET":
                    return .refused("HTTP \(answer.status)" + (error.message.isEmpty ? "" : ": \(error.message)"))
                default:
                    say("\(method) \(path): HTTP \(answer.status): \(error.message)")
                    return .failed
                }
            } catch let e as HTTPFailure {
                failure = tokens.redacted(shownText(e.description))
            } catch let end as PassEnd {
                throw end
            } catch {
                failure = "\(error)"
            }
            guard attempt < policy.tries && !once else {
                say("\(method) \(path): \(failure)\(once ? "" : " \(policy.tries) times"); left for the next pass")
                return .failed
            }
            guard let pause = policy.pause(beforeRetry: attempt, retryAfter: retryAfter) else {
                say("\(method) \(path): Gmail asks to wait \(retryAfter ?? 0) s, more than GMAIL_SYNC_MAX_WAIT (\(policy.maximumWait) s): left for the next pass")
                return .waitTooLong
            }
            sleepSeconds(pause)
            attempt += 1
        }
    }
}

/// Google's error body ({"error": {"code", "message", "status", "errors": [{"reason"}]}}):
/// its reason and message, fit to show.
struct GoogleError {
    var reason = ""
    var message = ""

    init(_ body: [UInt8], _ tokens: AccessTokens) {
        guard let value = try? JSONValue.parse(body), let error = value["error"] else { return }
        let first = error["errors"]?.arrayValue?.first
        reason = shownText(first?["reason"]?.stringValue ?? error["status"]?.stringValue ?? "")
        message = tokens.redacted(shownText(error["message"]?.stringValue ?? ""))
    }
}
