#if canImport(Glibc)
import Glibc
#endif
internal import CCurl

/// One request: a method, a URL, header lines ("Name: value") and, for a POST, a body.
public struct HTTPRequest: Sendable {
    public var method: String
    public var url: String
    public var headers: [String]
    public var body: [UInt8]?
    /// On a connection of its own: libcurl sends a request again by itself when a connection it
    /// reuses turns out closed before any answer, and a request that must never go twice (a
    /// send) cannot take that chance.
    public var freshConnection: Bool

    public init(method: String = "GET", url: String, headers: [String] = [], body: [UInt8]? = nil, freshConnection: Bool = false) {
        self.method = method
        self.url = url
        self.headers = headers
        self.body = body
        self.freshConnection = freshConnection
    }
}

/// What the server answered: its status, its header fields (of the last answer, when a 100
/// Continue came first) and its body.
public struct HTTPResponse: Sendable {
    public var status: Int
    public var headers: [(name: String, value: String)]
    public var body: [UInt8]

    /// The value of the last field of that name (names compared without case).
    public func header(_ name: String) -> String? {
        let wanted = name.lowercased()
        return headers.last { $0.name.lowercased() == wanted }?.value
    }
}

/// No answer at all: the server could not be reached, the connection broke or timed out, or
/// the answer was too big.
public struct HTTPFailure: Error, CustomStringConvertible, Sendable {
    public var description: String
}

/// An HTTP client that owns one libcurl easy handle, reused from request to request so that
/// the connection to a server is kept open between them (keep-alive), as a sync of thousands
/// of messages.get needs. Not for several threads at once.
public final class HTTPClient {
    /// The easy handle (a `CURL *`).
    private let handle: UnsafeMutableRawPointer
    /// libcurl's own words for the last failure (CURLOPT_ERRORBUFFER).
    private let errorText: UnsafeMutablePointer<CChar>
    /// The most bytes an answer may have: past it the transfer is given up.
    public let maximumBodySize: Int

    /// `connectTimeout`: seconds to open a connection; `timeout`: seconds a whole request may
    /// take (a big message is fetched well within two minutes).
    public init(userAgent: String, connectTimeout: Int = 20, timeout: Int = 120, maximumBodySize: Int = 256 << 20) throws(HTTPFailure) {
        guard HTTPClient.globalStart == CURLE_OK.rawValue else {
            throw HTTPFailure(description: "libcurl could not start (curl_global_init)")
        }
        guard let handle = curl_easy_init() else { throw HTTPFailure(description: "libcurl could not make a handle (curl_easy_init)") }
        self.handle = handle
        self.maximumBodySize = maximumBodySize
        errorText = .allocate(capacity: Int(CURL_ERROR_SIZE))
        errorText.initialize(repeating: 0, count: Int(CURL_ERROR_SIZE))
        _ = mp_curl_set_pointer(handle, CURLOPT_ERRORBUFFER, errorText)
        _ = mp_curl_set_long(handle, CURLOPT_NOSIGNAL, 1)  // no SIGALRM for timeouts: other threads run
        _ = mp_curl_set_long(handle, CURLOPT_CONNECTTIMEOUT, connectTimeout)
        _ = mp_curl_set_long(handle, CURLOPT_TIMEOUT, timeout)
        _ = mp_curl_set_string(handle, CURLOPT_PROTOCOLS_STR, "http,https")
        _ = mp_curl_set_string(handle, CURLOPT_ACCEPT_ENCODING, "")  // gzip and what else libcurl reads
        _ = mp_curl_set_string(handle, CURLOPT_USERAGENT, userAgent)
        _ = mp_curl_set_callback(handle, CURLOPT_WRITEFUNCTION, collectBody)
        _ = mp_curl_set_callback(handle, CURLOPT_HEADERFUNCTION, collectHeader)
    }

    deinit {
        curl_easy_cleanup(handle)
        errorText.deallocate()
    }

    /// libcurl's global start, once per process, before the first handle.
    private static let globalStart: UInt32 = mp_curl_global_init().rawValue

    /// Sends `request` and waits for the whole answer. Any status is an answer; only a request
    /// that got none throws.
    public func send(_ request: HTTPRequest) throws(HTTPFailure) -> HTTPResponse {
        let answer = Answer(maximumBodySize: maximumBodySize)
        let context = Unmanaged.passRetained(answer)
        defer { context.release() }
        var fields: UnsafeMutablePointer<curl_slist>?
        for line in request.headers { fields = curl_slist_append(fields, line) }
        defer { curl_slist_free_all(fields) }
        errorText[0] = 0
        _ = mp_curl_set_string(handle, CURLOPT_URL, request.url)
        _ = mp_curl_set_list(handle, CURLOPT_HTTPHEADER, fields)
        _ = mp_curl_set_pointer(handle, CURLOPT_WRITEDATA, context.toOpaque())
        _ = mp_curl_set_pointer(handle, CURLOPT_HEADERDATA, context.toOpaque())
        if let body = request.body {
            _ = mp_curl_set_long(handle, CURLOPT_POST, 1)
            _ = mp_curl_set_long(handle, CURLOPT_POSTFIELDSIZE, body.count)
            // (an empty body still needs a pointer: libcurl reads a NULL one as "from the read callback")
            let bytes = body.isEmpty ? [0] : body
            _ = bytes.withUnsafeBufferPointer { mp_curl_set_pointer(handle, CURLOPT_COPYPOSTFIELDS, UnsafeMutableRawPointer(mutating: $0.baseAddress)) }
        } else {
            _ = mp_curl_set_long(handle, CURLOPT_HTTPGET, 1)
        }
        _ = mp_curl_set_string(handle, CURLOPT_CUSTOMREQUEST, request.method == "GET" || request.method == "POST" ? nil : request.method)
        _ = mp_curl_set_long(handle, CURLOPT_FRESH_CONNECT, request.freshConnection ? 1 : 0)
        let result = curl_easy_perform(handle)
        // the list and the context are freed when this returns: libcurl keeps no pointer to them
        _ = mp_curl_set_list(handle, CURLOPT_HTTPHEADER, nil)
        guard result == CURLE_OK else {
            if answer.tooBig { throw HTTPFailure(description: "the answer is over \(maximumBodySize >> 20) MiB: given up") }
            let words = String(cString: errorText)
            throw HTTPFailure(description: words.isEmpty ? String(cString: curl_easy_strerror(result)) : words)
        }
        var status = 0
        _ = mp_curl_response_code(handle, &status)
        return HTTPResponse(status: status, headers: answer.headers, body: answer.body)
    }
}

/// An answer as libcurl hands it over, piece by piece.
private final class Answer {
    var headers: [(name: String, value: String)] = []
    var body: [UInt8] = []
    let maximumBodySize: Int
    var tooBig = false

    init(maximumBodySize: Int) { self.maximumBodySize = maximumBodySize }
}

/// CURLOPT_WRITEFUNCTION: a piece of the body. Returning less than was given ends the transfer.
private func collectBody(_ data: UnsafeMutablePointer<CChar>?, _ size: Int, _ count: Int, _ context: UnsafeMutableRawPointer?) -> Int {
    guard let data, let context else { return 0 }
    let answer = Unmanaged<Answer>.fromOpaque(context).takeUnretainedValue()
    let n = size * count
    guard answer.body.count + n <= answer.maximumBodySize else {
        answer.tooBig = true
        return 0
    }
    answer.body.append(contentsOf: UnsafeRawBufferPointer(start: data, count: n))
    return n
}

/// CURLOPT_HEADERFUNCTION: one header line. A status line starts the fields of a new answer
/// (after a 100 Continue).
private func collectHeader(_ data: UnsafeMutablePointer<CChar>?, _ size: Int, _ count: Int, _ context: UnsafeMutableRawPointer?) -> Int {
    guard let data, let context else { return 0 }
    let answer = Unmanaged<Answer>.fromOpaque(context).takeUnretainedValue()
    let n = size * count
    let line = String(decoding: UnsafeRawBufferPointer(start: data, count: n), as: UTF8.self)
    if line.hasPrefix("HTTP/") {
        answer.headers.removeAll()
    } else if let colon = line.firstIndex(of: ":") {
        let name = String(line[..<colon])
        let value = line[line.index(after: colon)...].trimmingCharacters(in: " \t\r\n")
        answer.headers.append((name, value))
    }
    return n
}

extension Substring {
    func trimmingCharacters(in set: String) -> String {
        var text = self
        while let c = text.first, set.contains(c) { text.removeFirst() }
        while let c = text.last, set.contains(c) { text.removeLast() }
        return String(text)
    }
}

/// Text put into a URL: each byte that is not unreserved (RFC 3986: letters, digits, - . _ ~)
/// percent-encoded.
public enum URLText {
    public static func component(_ text: String) -> String {
        var out = ""
        for byte in text.utf8 {
            switch byte {
            case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "0")...UInt8(ascii: "9"),
                 UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "_"), UInt8(ascii: "~"):
                out.unicodeScalars.append(UnicodeScalar(byte))
            default:
                let hex = Array("0123456789ABCDEF".utf8)
                out += "%" + String(decoding: [hex[Int(byte >> 4)], hex[Int(byte & 15)]], as: UTF8.self)
            }
        }
        return out
    }

    /// One path segment that names no other resource: "." and ".." (which a server or a proxy
    /// would resolve to the folder or its parent) have their dots encoded too.
    public static func pathSegment(_ text: String) -> String {
        let encoded = component(text)
        return encoded == "." || encoded == ".." ? encoded.replacingDots() : encoded
    }

    /// `application/x-www-form-urlencoded` fields.
    public static func form(_ fields: [(String, String)]) -> [UInt8] {
        Array(fields.map { component($0.0) + "=" + component($0.1) }.joined(separator: "&").utf8)
    }
}

private extension String {
    func replacingDots() -> String {
        var out = ""
        for c in self { out += c == "." ? "%2E" : String(c) }
        return out
    }
}
