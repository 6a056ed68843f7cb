import UTF8Text

/// Links to online meetings written in a location or description: Google Meet, Zoom, Teams,
/// Webex, Jitsi, GoTo, Whereby, Chime.
enum MeetingLinks {
    static let hosts = ["meet.google.com", "zoom.us", "zoom.com", "teams.microsoft.com", "teams.live.com", "webex.com",
                        "meet.jit.si", "gotomeeting.com", "meet.goto.com", "whereby.com", "chime.aws"]

    /// The first `https://` link in `text` whose host is a meeting service's (or a subdomain of one).
    static func first(in text: String) -> String? {
        let bytes = Array(text.utf8)
        var from = 0
        while let start = ByteSearch.firstIndex(of: scheme, in: bytes, from: from) {
            var end = start + scheme.count
            while end < bytes.count, bytes[end] < 0x80, !endsLink.contains(bytes[end]) { end += 1 }  // CJK text often follows a link unspaced
            while end > start + scheme.count, endsSentence.contains(bytes[end - 1]) { end -= 1 }  // "Join: https://zoom.us/j/1."
            if let host = LinkHost.of(bytes[start..<end]).map({ String(decoding: $0, as: UTF8.self) }),
               hosts.contains(where: { LinkHost.host(host, isWithin: $0) }) {
                return String(decoding: bytes[start..<end], as: UTF8.self)
            }
            from = start + 1
        }
        return nil
    }

    private static let scheme = Array("https://".utf8)
    private static let endsLink = Set(" \t\r\n<>\"'()[]".utf8)
    private static let endsSentence = Set(".,;:!?".utf8)
}
