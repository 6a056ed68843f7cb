/// Links to online meetings written in a location or description: Google Meet, Zoom, Teams,
/// Webex, Jitsi, GoTo, Whereby, Chime.
enum MeetingLinks {
    static let hosts = ["meet.google.com", "zoom.us", "zoom.com", "teams.microsoft.com", "teams.live.com", "webex.com",
                        "meet.jit.si", "gotomeeting.com", "meet.goto.com", "whereby.com", "chime.aws"]

    /// The first `https://` link in `text` whose host is a meeting service's (or a subdomain of one).
    static func first(in text: String) -> String? {
        var rest = Substring(text)
        while let r = rest.firstRange(of: "https://") {
            let link = rest[r.lowerBound...].prefix { !$0.isWhitespace && !"<>\"'()[]".contains($0) }
            let host = link.dropFirst(8).prefix { $0 != "/" && $0 != "?" && $0 != "#" && $0 != ":" }.lowercased()
            if hosts.contains(where: { host == $0 || host.hasSuffix("." + $0) }) { return String(link) }
            rest = rest[r.upperBound...]
        }
        return nil
    }
}
