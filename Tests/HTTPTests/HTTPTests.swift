import Testing
import HTTP

@Suite struct URLTextTests {
    @Test(arguments: [
        ("18c0000000000001", "18c0000000000001"),
        ("a b", "a%20b"),
        ("a/b?c#d&e=f", "a%2Fb%3Fc%23d%26e%3Df"),
        ("%2e", "%252e"),
        ("-._~", "-._~"),
        ("é", "%C3%A9"),
    ])
    func componentsKeepOnlyUnreservedBytes(_ text: String, _ encoded: String) {
        #expect(URLText.component(text) == encoded)
    }

    @Test func aPathSegmentIsNeverDotOrDotDot() {
        #expect(URLText.pathSegment(".") == "%2E")
        #expect(URLText.pathSegment("..") == "%2E%2E")
        #expect(URLText.pathSegment("...") == "...")
        #expect(URLText.pathSegment("../profile") == "..%2Fprofile")
    }

    @Test func formFields() {
        let body = URLText.form([("grant_type", "refresh_token"), ("refresh_token", "1//a+b=c&d")])
        #expect(String(decoding: body, as: UTF8.self) == "grant_type=refresh_token&refresh_token=1%2F%2Fa%2Bb%3Dc%26d")
    }
}

@Suite struct HTTPClientTests {
    @Test func aServerThatCannotBeReachedIsAFailureNotAnAnswer() throws {
        let client = try HTTPClient(userAgent: "mailpipe-test", connectTimeout: 5, timeout: 5)
        // port 9 (discard) on the loopback: nothing listens there on a test machine
        #expect(throws: HTTPFailure.self) { try client.send(HTTPRequest(url: "http://127.0.0.1:9/")) }
        // and the handle is still good for the next request
        #expect(throws: HTTPFailure.self) { try client.send(HTTPRequest(method: "POST", url: "http://127.0.0.1:9/", body: [1, 2])) }
    }

    @Test func onlyHTTPAndHTTPSAreFollowed() throws {
        let client = try HTTPClient(userAgent: "mailpipe-test")
        #expect(throws: HTTPFailure.self) { try client.send(HTTPRequest(url: "file:///etc/passwd")) }
    }
}
