#if canImport(Glibc)
import Glibc
#endif
import CFuzzer
import HTMLDOM
import Sanitize

nonisolated(unsafe) let sanitizer = HTMLSanitizer()
/// With FUZZ_IDEMPOTENCE=1 in the environment, an output that changes when sanitized again is
/// a failure too (`make fuzz` asks it of every seed; mutated inputs are checked for crashes).
nonisolated(unsafe) let checkIdempotence = getenv("FUZZ_IDEMPOTENCE").map { String(cString: $0) == "1" } ?? false

/// One input: sanitized as html-sanitize does (invalid UTF-8 repaired first); it must not
/// crash, must come out the same when libxml2 parses it as it is as when it parses it with its
/// runs of text and values swapped out (HTMLStream's fast path), and (when asked) sanitizing
/// the output again must give it back unchanged.
@_cdecl("LLVMFuzzerTestOneInput")
public func sanitizeOnce(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    let html = Array(String(decoding: UnsafeBufferPointer(start: data, count: size), as: UTF8.self).utf8)
    let once = sanitizer.sanitize(html).html
    HTMLStream.swapsRuns = false
    let plain = sanitizer.sanitize(html).html
    HTMLStream.swapsRuns = true
    if once != plain {
        let report = Array("swapped runs change the output:\n--- swapped\n\(String(decoding: once, as: UTF8.self))\n--- as it is\n\(String(decoding: plain, as: UTF8.self))\n".utf8)
        _ = report.withUnsafeBytes { write(2, $0.baseAddress, $0.count) }
        abort()
    }
    guard checkIdempotence else { return 0 }
    let twice = sanitizer.sanitize(once).html
    if once != twice {
        let report = Array("not idempotent:\n--- once\n\(String(decoding: once, as: UTF8.self))\n--- twice\n\(String(decoding: twice, as: UTF8.self))\n".utf8)
        _ = report.withUnsafeBytes { write(2, $0.baseAddress, $0.count) }
        abort()
    }
    return 0
}

/// SwiftPM links an executable's main under this name, and libFuzzer brings a main of its own
/// (the link allows both): either way the command line goes to libFuzzer's driver.
@_cdecl("html_sanitize_fuzz_main")
func fuzzMain(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> CInt {
    var argc = argc
    var argv = argv
    return LLVMFuzzerRunDriver(&argc, &argv) { data, size in sanitizeOnce(data, size) }
}
