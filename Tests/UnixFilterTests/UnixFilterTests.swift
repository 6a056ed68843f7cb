import Testing
@testable import UnixFilter

@Suite struct UnixFilterTests {
    @Test func strictMeansFail() throws {
        #expect(try CommonOptions.parse(["--strict"]).errorPolicy == .fail)
        #expect(try CommonOptions.parse([]).errorPolicy == .skip)
        #expect(try CommonOptions.parse(["--on-error", "pass", "a", "b"]).errorPolicy == .pass)
        #expect(try CommonOptions.parse(["a", "-"]).inputs == ["a", "-"])
        #expect(throws: (any Error).self) { try CommonOptions.parse(["--on-error", "ignore"]) }
    }

    @Test func summaryCountsWhatWasLeftOut() {
        let d = Diagnostics(program: "tool")
        #expect(d.summary() == nil)
        d.countSkipped()
        d.countSkipped()
        d.countPassed()
        #expect(d.summary() == "tool: 2 records skipped, 1 passed on with errors")
    }

    @Test func missingInputIsNoInput() {
        do {
            _ = try Input.open("/nonexistent/mailpipe-test")
            Issue.record("opened a missing file")
        } catch {
            #expect(error.status == .noInput)
            #expect(error.description == "No such file or directory")
        }
    }

    @Test func sizesReadLikeHumansWrite() {
        #expect(Progress.size(999) == "999 B")
        #expect(Progress.size(1_500_000) == "1.5 MB")
        #expect(Progress.size(2_000_000_000) == "2.0 GB")
    }
}
