import Testing
@testable import GmailSync

@Suite struct RetryPolicyTests {
    @Test func pausesGrowWithFullJitterUpToAMinute() {
        var policy = RetryPolicy()
        policy.backoff = 1
        for retry in 1...10 {
            let ceiling = min(Double(1 << (retry - 1)), 60)
            for _ in 0..<50 {
                let pause = policy.pause(beforeRetry: retry, retryAfter: nil)!
                #expect(pause >= ceiling / 2 && pause <= ceiling, "retry \(retry): \(pause)")
            }
        }
    }

    @Test func retryAfterIsHonouredUpToTheLongestWait() {
        var policy = RetryPolicy()
        policy.maximumWait = 30
        #expect(policy.pause(beforeRetry: 1, retryAfter: 20) == 20)
        #expect(policy.pause(beforeRetry: 1, retryAfter: 31) == nil)
        policy.maximumWait = 2
        #expect(policy.pause(beforeRetry: 10, retryAfter: nil)! <= 2)
    }

    @Test func serverTextLosesItsControlCharacters() {
        #expect(shownText("Bad \u{1B}[31mred\u{1B}[0m \u{9B}2J\r\nend\u{7F}\u{85}") == "Bad [31mred[0m 2Jend")
    }
}
