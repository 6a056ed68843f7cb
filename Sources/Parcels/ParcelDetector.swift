import UTF8Text
import UnicodeServices

/// A parcel a message tracks (see carrier-detect(1) for the fields' meaning).
public struct Shipment: Equatable, Sendable {
    public var carrier: String
    public var format: String
    public var trackingNumber: String
    public var checkDigit: String?
    public var confidence: Double
    public var evidence: [String]
    public var trackingURL: String?
    public var pickup: Pickup?
}

/// Finds tracking numbers in a message's text and links, and weighs the evidence for each.
///
/// A number counts when its format matches and its check digit (if the format has one) is
/// right, and then by how sure we are: a number inside the carrier's own tracking link is
/// certain; a long check-digit number with letters (UPS 1Z, UPU S10) stands alone; a short or
/// all-digit one needs a label before it ("Tracking number:", "託運單號") or the carrier named;
/// one with no check digit (Amazon, most of Taiwan's) needs both. A number right after "Order",
/// "Tel", "訂單編號" and the like is never a parcel.
final class ParcelDetector {
    let specs: CarrierSpecs
    var minimumConfidence = 0.5
    private let labels: [[UInt16]]
    private let notLabels: [[UInt16]]
    private let pickupReader = PickupReader()
    private let trackingHosts: Set<String>

    init(specs: CarrierSpecs) {
        self.specs = specs
        trackingHosts = Set(specs.trackingHosts.values.joined())
        labels = specs.labels.map { Array($0.utf16) }
        notLabels = specs.notLabels.map { Array($0.utf16) }
    }

    private struct Candidate {
        var format: TrackingFormat
        var formatIndex: Int
        var number: String
        var checkDigit: String?
        var evidence: [String]
        var confidence: Double
        var carrierContext: Bool
    }

    func detect(_ message: MessageText, senderDomain: String, date: String?) -> [Shipment] {
        var candidates: [Candidate] = []
        var seen: Set<String> = []
        for link in message.links where seen.insert(link).inserted { candidates += linkCandidates(link) }
        let lowered = message.text.map { $0 &- 0x41 < 26 ? $0 | 0x20 : $0 }
        var i = 0
        let text = message.text
        // Regions: runs of letters, digits, spaces and hyphens, cut at words (a lowercase token
        // without digits is no part of a number: "FedEx Shipment 995167012468").
        var regionStart = -1
        var run = RunCounter()
        func flush(_ end: Int) {
            if regionStart >= 0 && run.isWorthALook {
                candidates += regionCandidates(text, regionStart..<end, lowered: lowered)
            }
            regionStart = -1
            run = RunCounter()
        }
        while i < text.count {
            let c = text[i]
            guard isRegionChar(c) else { flush(i); i += 1; continue }
            guard isASCIIAlnum(c) else {
                if regionStart >= 0 { run.add(c) }
                i += 1
                continue
            }
            let tokenStart = i
            var lower = false, digit = false
            while i < text.count && isASCIIAlnum(text[i]) {
                lower = lower || text[i] &- 0x61 < 26
                digit = digit || text[i] &- 0x30 < 10
                i += 1
            }
            if lower && !digit {
                flush(tokenStart)
                continue
            }
            if regionStart < 0 { regionStart = tokenStart }
            for k in tokenStart..<i { run.add(text[k]) }
        }
        flush(text.count)
        guard !candidates.isEmpty else { return [] }

        // Weigh each: the carrier named in the message or its sender.
        var contextCache: [String: String?] = [:]
        for k in candidates.indices {
            let carrier = candidates[k].format.carrier
            let context = contextCache[carrier] ?? carrierContext(carrier, lowered: lowered, senderDomain: senderDomain)
            contextCache[carrier] = context
            if let context {
                candidates[k].carrierContext = true
                candidates[k].evidence.append(context)
                if !candidates[k].evidence.contains("tracking_url") { candidates[k].confidence += 0.2 }
            }
            candidates[k].confidence = min(candidates[k].confidence, candidates[k].evidence.contains("tracking_url") ? 1 : 0.99)
        }

        // One carrier per number: its own link, then the carrier named, then the surest.
        var best: [String: Candidate] = [:]
        var order: [String] = []
        for c in candidates {
            guard let current = best[c.number] else {
                best[c.number] = c
                order.append(c.number)
                continue
            }
            if rank(c) > rank(current) { best[c.number] = c }
        }
        var out: [Shipment] = []
        for number in order {
            guard let c = best[number], c.confidence >= minimumConfidence else { continue }
            let evidence = candidates.filter { $0.number == number && $0.format.carrier == c.format.carrier }
                .flatMap(\.evidence).reduce(into: [String]()) { if !$0.contains($1) { $0.append($1) } }
            out.append(Shipment(carrier: c.format.carrier, format: c.format.id, trackingNumber: number, checkDigit: c.checkDigit,
                                confidence: (c.confidence * 100).rounded() / 100, evidence: evidence,
                                trackingURL: c.format.trackingURL.map { $0.replacing("%s", with: number) }, pickup: nil))
        }
        // Pickup lines are read only in a message that tracks something.
        if !out.isEmpty, let pickup = pickupReader.read(message.text, date: date) {
            for k in out.indices { out[k].pickup = pickup }
        }
        return out
    }

    private func rank(_ c: Candidate) -> (Int, Int, Double, Int, Int) {
        (c.evidence.contains("tracking_url") ? 1 : 0, c.carrierContext ? 1 : 0, c.confidence, c.format.hasChecksum ? 1 : 0, -c.formatIndex)
    }

    // MARK: numbers in links

    /// Whether a link goes to a carrier's tracking page.
    func isTrackingLink(_ link: String) -> Bool {
        guard var host = LinkParts.host(of: link)?[...] else { return false }
        while true {
            if trackingHosts.contains(String(host)) { return true }
            guard let dot = host.firstIndex(of: ".") else { return false }
            host = host[host.index(after: dot)...]
        }
    }

    private func linkCandidates(_ link: String) -> [Candidate] {
        guard isTrackingLink(link), let url = LinkParts(link) else { return [] }
        var out: [Candidate] = []
        for (carrier, hosts) in specs.trackingHosts where hosts.contains(where: { LinkHost.host(url.host, isWithin: $0) }) {
            for value in url.values {
                let number = Array(value.uppercased().utf16).filter { $0 != 0x20 }
                guard number.count >= 8, number.count <= 40, number.lazy.filter({ $0 &- 0x30 < 10 }).count >= 3,
                      !isDegenerate(number) else { continue }
                for (index, format) in specs.formats.enumerated() where format.carrier == carrier {
                    guard let v = format.validate(number), v.valid else { continue }
                    out.append(Candidate(format: format, formatIndex: index, number: String(decoding: number, as: UTF16.self),
                                         checkDigit: v.checkDigit,
                                         evidence: format.hasChecksum ? ["tracking_url", "check_digit"] : ["tracking_url"],
                                         confidence: 1, carrierContext: false))
                }
            }
        }
        return out
    }

    // MARK: numbers in text

    private func regionCandidates(_ text: [UInt16], _ region: Range<Int>, lowered: [UInt16]) -> [Candidate] {
        let chunk = text[region].map { $0 &- 0x61 < 26 ? $0 & ~0x20 : $0 }
        let compactLength = chunk.lazy.filter { !isSpace($0) }.count
        // what `\d` may match beyond ASCII counts as a digit too
        let digits = chunk.lazy.filter { $0 &- 0x30 < 10 || $0 >= 0x80 }.count
        // where a match may start and its number stand alone: a token's start, or spaces before one
        let starts = (0...chunk.count).filter { q in startsToken(chunk, q) || q < chunk.count && isSpace(chunk[q]) }
        var found: [(Candidate, Range<Int>)] = []
        for (index, format) in specs.formats.enumerated() where format.minimumLength <= compactLength && format.minimumDigits <= digits {
            format.search.forEachMatch(in: chunk, startingAt: starts) { m in
                var r = m.range
                while r.lowerBound < r.upperBound && isSpace(chunk[r.lowerBound]) { r = (r.lowerBound + 1)..<r.upperBound }
                while r.lowerBound < r.upperBound && isSpace(chunk[r.upperBound - 1]) { r = r.lowerBound..<(r.upperBound - 1) }
                guard !r.isEmpty, standsAlone(chunk, r) else { return true }
                let number = chunk[r].filter { !isSpace($0) }
                guard !isDegenerate(number), let v = format.validate(number), v.valid else { return true }
                let position = region.lowerBound + r.lowerBound
                let label = labelBefore(lowered, position)
                guard label != .notParcel else { return true }
                var confidence = format.hasChecksum ? 0.45 : 0.15
                if number.contains(where: { $0 &- 0x41 < 26 }) { confidence += 0.15 }
                if format.hasChecksum && number.count >= 18 { confidence += 0.15 }
                var evidence: [String] = format.hasChecksum ? ["check_digit"] : []
                if label == .tracking {
                    confidence += 0.3
                    evidence.append("label")
                }
                found.append((Candidate(format: format, formatIndex: index, number: String(decoding: number, as: UTF16.self),
                                        checkDigit: v.checkDigit, evidence: evidence,
                                        confidence: confidence, carrierContext: false), r))
                return true
            }
        }
        // A number inside a longer one is part of it, not a parcel of its own.
        return found.filter { a in !found.contains { b in b.1 != a.1 && b.1.contains(a.1.lowerBound) && b.1.upperBound >= a.1.upperBound } }.map(\.0)
    }

    private enum Label { case tracking, notParcel, none }

    /// What introduces a number: a tracking label within a short distance before it, unless a
    /// word for another kind of number (order, phone, invoice) labels it directly.
    private func labelBefore(_ lowered: [UInt16], _ position: Int) -> Label {
        let from = max(0, position - 48)
        func nearest(_ words: [[UInt16]]) -> Int {
            words.reduce(-1) { max($0, lastEnd(of: $1, in: lowered, from: from, to: position) ?? -1) }
        }
        let label = nearest(labels), other = nearest(notLabels)
        if other > label && lowered[other..<position].allSatisfy(isLabelPunctuation) { return .notParcel }
        return label >= 0 ? .tracking : .none
    }

    /// The end of the last occurrence of `word` in `text[from..<to]` that starts a word.
    private func lastEnd(of word: [UInt16], in text: [UInt16], from: Int, to: Int) -> Int? {
        guard let first = word.first, to - from >= word.count else { return nil }
        var i = to - word.count
        while i >= from {
            if text[i] == first && text[i..<(i + word.count)].elementsEqual(word)
                && (i == 0 || !isASCIILetter(text[i - 1]) || !isASCIILetter(first)) {
                return i + word.count
            }
            i -= 1
        }
        return nil
    }

    /// How the message names a carrier: `carrier_named` or `sender_domain`, nil if it does not.
    private func carrierContext(_ carrier: String, lowered: [UInt16], senderDomain: String) -> String? {
        if let domains = specs.senderDomains[carrier], domains.contains(where: { LinkHost.host(senderDomain, isWithin: $0) }) {
            return "sender_domain"
        }
        for word in specs.words[carrier] ?? [] where containsWord(lowered, Array(word.utf16)) { return "carrier_named" }
        return nil
    }

    func containsWord(_ text: [UInt16], _ word: [UInt16]) -> Bool {
        guard let first = word.first, text.count >= word.count else { return false }
        let ascii = word.allSatisfy { $0 < 0x80 }
        var i = 0
        let last = text.count - word.count
        while i <= last {
            if text[i] == first && text[i..<(i + word.count)].elementsEqual(word) {
                if !ascii { return true }
                let before = i == 0 ? 0x20 : text[i - 1], after = i + word.count < text.count ? text[i + word.count] : 0x20
                if !isASCIIAlnum(before) && !isASCIIAlnum(after) { return true }
            }
            i += 1
        }
        return false
    }
}

@inline(__always) private func isSpace(_ c: UInt16) -> Bool { c == 0x20 || c == 0x09 }
@inline(__always) private func isASCIILetter(_ c: UInt16) -> Bool { (c | 0x20) &- 0x61 < 26 }
@inline(__always) private func isASCIIAlnum(_ c: UInt16) -> Bool { isASCIILetter(c) || c &- 0x30 < 10 }

/// What may stand between a label and its number: `Order #: `, `訂單編號：`.
private func isLabelPunctuation(_ c: UInt16) -> Bool {
    c <= 0x20 || [0x3A, 0x23, 0x2E, 0x2D, 0x28, 0x29, 0xFF1A, 0xFF03, 0xFF08, 0xFF09, 0x3000].contains(c)
}

/// A number whose digits are all the same (`000000000000`) fills a form; it tracks nothing,
/// though it passes most check-digit algorithms.
private func isDegenerate(_ number: [UInt16]) -> Bool {
    number.count >= 8 && number.allSatisfy { $0 == number[0] }
}

/// What a run of region characters holds: worth matching against the formats when it has
/// eight digits (the fewest a tracking number has), or an unspaced uppercase code with digits
/// (`1LSCXVE005BUEFX`).
struct RunCounter {
    private var digits = 0, tokenLength = 0, tokenDigits = 0, tokenLower = false, codeLike = false

    var isWorthALook: Bool { digits >= 8 || codeLike }

    @inline(__always) mutating func add(_ c: UInt16) {
        if c &- 0x30 < 10 {
            digits += 1
            tokenDigits += 1
        }
        if c == 0x20 || c == 0x09 || c == UInt16(UInt8(ascii: "-")) {
            tokenLength = 0
            tokenDigits = 0
            tokenLower = false
        } else {
            tokenLength += 1
            if c &- 0x61 < 26 { tokenLower = true }
            if tokenLength >= 10 && tokenDigits > 0 && !tokenLower { codeLike = true }
        }
    }
}

/// Whether raw bytes (a JSON string as written) hold any run worth a look: most mail holds
/// none, and is passed over before its text is decoded.
func mayHoldTrackingNumber(_ bytes: ArraySlice<UInt8>) -> Bool {
    var run = RunCounter()
    for b in bytes {
        let c = UInt16(b)
        if isRegionChar(c) {
            run.add(c)
            if run.isWorthALook { return true }
        } else {
            run = RunCounter()
        }
    }
    return false
}

/// Characters a tracking number, with the spaces and hyphens people put in it, is made of.
@inline(__always) func isRegionChar(_ c: UInt16) -> Bool {
    isASCIIAlnum(c) || c == 0x20 || c == 0x09 || c == UInt16(UInt8(ascii: "-"))
}

/// A match stands alone when no letter or digit touches it, and it does not continue a
/// spaced-out run of digits on either side (`+1 800 225 5345` holds no 10-digit parcel).
/// Whether no letter or digit comes right before `q`.
private func startsToken(_ chunk: [UInt16], _ q: Int) -> Bool { q == 0 || !isASCIIAlnum(chunk[q - 1]) }

private func standsAlone(_ chunk: [UInt16], _ r: Range<Int>) -> Bool {
    if r.lowerBound > 0 {
        if !startsToken(chunk, r.lowerBound) { return false }
        var k = r.lowerBound - 1
        while k >= 0 && isSpace(chunk[k]) { k -= 1 }
        if k >= 0 && k < r.lowerBound - 1 && chunk[k] &- 0x30 < 10 { return false }
    }
    if r.upperBound < chunk.count {
        let after = chunk[r.upperBound]
        if isASCIIAlnum(after) { return false }
        var k = r.upperBound
        while k < chunk.count && isSpace(chunk[k]) { k += 1 }
        if k < chunk.count && k > r.upperBound && chunk[k] &- 0x30 < 10 { return false }
    }
    return true
}

/// The host and the values (query values, path segments) of a link, percent-decoded.
struct LinkParts {
    var host: String
    var values: [String]

    /// The host alone, lowercased: cheap, to pass over the links of no carrier.
    static func host(of link: String) -> String? {
        let b = Array(link.utf8)
        guard let colon = b.firstIndex(of: UInt8(ascii: ":")), colon + 2 < b.count,
              b[colon + 1] == UInt8(ascii: "/"), b[colon + 2] == UInt8(ascii: "/"),
              let host = LinkHost.of(b[colon...]), !host.isEmpty else { return nil }
        return String(decoding: host, as: UTF8.self)
    }

    init?(_ link: String) {
        guard let host = Self.host(of: link), let scheme = link.firstRange(of: "://") else { return nil }
        self.host = host
        let s = link[scheme.upperBound...]
        let hostEnd = s.firstIndex { $0 == "/" || $0 == "?" || $0 == "#" } ?? s.endIndex
        var values: [String] = []
        let rest = s[hostEnd...]
        for part in rest.split(whereSeparator: { "/?&#;=,".contains($0) }) {
            let decoded = percentDecoded(part)
            if decoded.count >= 8 { values.append(decoded) }
        }
        self.values = values
    }
}

private func percentDecoded(_ s: Substring) -> String {
    var out = [UInt8]()
    let b = Array(s.utf8)
    var i = 0
    while i < b.count {
        if b[i] == UInt8(ascii: "%"), i + 2 < b.count, let v = UInt8(String(decoding: b[(i + 1)...(i + 2)], as: UTF8.self), radix: 16) {
            out.append(v)
            i += 3
        } else {
            out.append(b[i] == UInt8(ascii: "+") ? 0x20 : b[i])
            i += 1
        }
    }
    return String(decoding: out, as: UTF8.self)
}
