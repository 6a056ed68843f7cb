import CivilTime
import UTF8Text
import UnicodeServices

/// A parcel a message tracks (see carrier-detect(1) for the fields' meaning).
public struct Shipment: Equatable, Sendable {
    public var carrier: String
    public var format: String
    /// Nil for a store pickup known only by its pickup code (a reminder that gives no number).
    public var trackingNumber: String?
    public var checkDigit: String?
    public var confidence: Double
    public var evidence: [String]
    public var trackingURL: String?
    public var pickup: Pickup?
    public var status: ShipmentStatus
    /// Who sent the notice when a mail forwarded it (text-extract's `forwarded_message`).
    public var forwardedFrom: (name: String?, address: String?)?
    /// Customs, cash on delivery, order number and shop (ShipmentFacts.swift).
    public var facts = ShipmentFacts()

    public static func == (a: Shipment, b: Shipment) -> Bool {
        (a.carrier, a.format, a.trackingNumber, a.checkDigit) == (b.carrier, b.format, b.trackingNumber, b.checkDigit)
            && (a.confidence, a.evidence, a.trackingURL) == (b.confidence, b.evidence, b.trackingURL)
            && a.pickup == b.pickup && a.status == b.status
            && a.forwardedFrom?.name == b.forwardedFrom?.name && a.forwardedFrom?.address == b.forwardedFrom?.address
            && a.facts == b.facts
    }

    public init(carrier: String, format: String, trackingNumber: String?, checkDigit: String?, confidence: Double,
                evidence: [String], trackingURL: String?, pickup: Pickup?, status: ShipmentStatus = .init(status: nil, time: nil, expectedDelivery: nil)) {
        self.carrier = carrier
        self.format = format
        self.trackingNumber = trackingNumber
        self.checkDigit = checkDigit
        self.confidence = confidence
        self.evidence = evidence
        self.trackingURL = trackingURL
        self.pickup = pickup
        self.status = status
    }
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
    /// Tracking labels and the words for other numbers, by their first character.
    private let labelWords: [UInt16: [(word: [UInt16], kind: Label)]]
    /// Which characters start one of them: most positions are passed over with one bit test.
    private var labelStarts = [UInt64](repeating: 0, count: 1024)
    private let pickupReader: PickupReader
    private let factWords: ShipmentFactWords
    /// Made at the first message that tracks something: most of a delivery's mail does not.
    private(set) lazy var factReader = ShipmentFactReader(words: factWords, specs: specs)
    let statusReader: StatusReader
    private let trackingHosts: Set<ArraySlice<UInt8>>
    /// The carriers of the numbers earlier messages of this run tracked (the number without its
    /// hyphens → carrier): a shop's later notice that gives the number under a label but names
    /// no carrier ("貨件 057379043510 已配達") is the same parcel's. Bounded: emptied when full.
    private(set) var knownCarriers: [String: String] = [:]
    static let knownCarriersLimit = 100_000

    init(specs: CarrierSpecs, facts: ShipmentFactWords = .builtIn) {
        self.specs = specs
        pickupReader = PickupReader(words: facts)
        factWords = facts
        statusReader = StatusReader(specs: specs)
        trackingHosts = Set(specs.trackingHosts.values.joined().map { Array($0.utf8)[...] })
        var labelWords: [UInt16: [(word: [UInt16], kind: Label)]] = [:]
        for (words, kind) in [(specs.labels, Label.tracking), (specs.notLabels, .notParcel), (specs.ownMailLabels, .inOwnMail)] {
            for word in words.map({ Array($0.utf16) }) where !word.isEmpty {
                labelWords[word[0], default: []].append((word, kind))
                labelStarts[Int(word[0] >> 6)] |= 1 << (word[0] & 63)
            }
        }
        self.labelWords = labelWords
    }

    fileprivate struct Candidate {
        var carrier: String
        var formatID: String
        /// The format's place in the specs, to prefer the earlier of two equal findings.
        var formatIndex: Int
        var hasChecksum: Bool
        var trackingURL: String?
        var number: String
        var checkDigit: String?
        var evidence: [String]
        var confidence: Double
        /// How the message names the carrier: 3 in the number's label, 2 by the sender's domain, 1 anywhere.
        var context = 0
        /// Where the number starts in the text (nil for a link's).
        var position: Int?

    }

    /// The shipments a message tracks, each with the status the message states. `mailOffset`:
    /// the zone of its Date header, in minutes east of UTC.
    func detect(_ message: MessageText, senderDomain: String, senderName: String? = nil, date: String?, mailOffset: Int? = nil) -> [Shipment] {
        var out = numbers(message, senderDomain: senderDomain, date: date)
        let lowered = message.text.map { $0 &- 0x41 < 26 ? $0 | 0x20 : $0 }
        // Pickup lines are read only in a message that tracks something, or in a reminder that
        // gives the pickup code of a carrier it names (no number: the code joins it to its parcel).
        let pickup = pickupReader.read(message.text, lowered: lowered, date: date)
        if out.isEmpty {
            guard let pickup, pickup.code != nil, let (carrier, evidence) = namedCarrier(lowered, senderDomain: senderDomain) else { return [] }
            out = [Shipment(carrier: carrier, format: "pickup_code", trackingNumber: nil, checkDigit: nil, confidence: 0.7,
                            evidence: ["pickup_code", evidence], trackingURL: nil, pickup: nil)]
        }
        if let pickup { for k in out.indices { out[k].pickup = pickup } }
        let status = statusReader.read(text: message.text, lowered: lowered, clock: clock(date: date, mailOffset: mailOffset, carrier: out[0].carrier))
        // a code with no number is a parcel's only when the mail says what became of it
        if out[0].format == "pickup_code" && status.status == nil { return [] }
        for k in out.indices {
            var s = status
            if out[k].carrier != out[0].carrier {
                s = statusReader.read(text: message.text, lowered: lowered, clock: clock(date: date, mailOffset: mailOffset, carrier: out[k].carrier))
            }
            out[k].status = s
        }
        let facts = factReader.read(message.text, lowered: lowered, date: date, senderName: senderName, senderDomain: senderDomain)
        for k in out.indices { out[k].facts = facts }
        return out
    }

    /// The mail's date, and the zone its local times are read in: the carrier's country's,
    /// else the mail's own (its Date header's), else UTC.
    func clock(date: String?, mailOffset: Int?, carrier: String) -> MailClock {
        MailClock(epoch: date.flatMap { CivilDate.epoch(rfc3339: $0) }, offsetMinutes: specs.utcOffsets[carrier] ?? mailOffset ?? 0)
    }

    /// The carrier of a pickup reminder: its sender's, else the one named first in its text.
    private func namedCarrier(_ lowered: [UInt16], senderDomain: String) -> (String, String)? {
        for (code, domains) in specs.senderDomains.sorted(by: { $0.key < $1.key })
        where domains.contains(where: { LinkHost.host(senderDomain, isWithin: $0) }) {
            return (code, "sender_domain")
        }
        var best: (Int, String)?
        for (code, words) in specs.words {
            for word in words {
                let w = Array(word.utf16)
                guard let p = firstWord(lowered, w) else { continue }
                if best == nil || p < best!.0 || (p == best!.0 && code < best!.1) { best = (p, code) }
            }
        }
        return best.map { ($0.1, "carrier_named") }
    }

    private func firstWord(_ text: [UInt16], _ word: [UInt16]) -> Int? {
        guard !word.isEmpty, text.count >= word.count else { return nil }
        for i in 0...(text.count - word.count) where text[i] == word[0] && text[i..<(i + word.count)].elementsEqual(word) {
            if word.allSatisfy({ $0 < 0x80 }) {
                let before = i == 0 ? 0x20 : text[i - 1], after = i + word.count < text.count ? text[i + word.count] : 0x20
                if isASCIIAlnum(before) || isASCIIAlnum(after) { continue }
            }
            return i
        }
        return nil
    }

    /// The tracking numbers a message holds, without status or pickup.
    private func numbers(_ message: MessageText, senderDomain: String, date: String?) -> [Shipment] {
        var candidates: [Candidate] = []
        var seen: Set<String> = []
        for link in message.links where seen.insert(link).inserted { candidates += linkCandidates(link) }
        let lowered = message.text.map { $0 &- 0x41 < 26 ? $0 | 0x20 : $0 }
        // the carriers whose own domain sent the mail
        let ownCarriers = Set(specs.senderDomains.filter { $0.value.contains { LinkHost.host(senderDomain, isWithin: $0) } }.keys)
        var i = 0
        let text = message.text
        // Regions: runs of letters, digits, spaces and hyphens, cut at words (a lowercase token
        // without digits is no part of a number: "FedEx Shipment 995167012468").
        var regionStart = -1
        var run = RunCounter()
        func flush(_ end: Int) {
            if regionStart >= 0 && run.isWorthALook {
                candidates += regionCandidates(text, regionStart..<end, lowered: lowered, ownCarriers: ownCarriers)
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

        // Weigh each: the carrier named in the number's label, by its sender, or in the message.
        var namedCache: [String: Bool] = [:]
        func isNamedAnywhere(_ carrier: String) -> Bool {
            if let known = namedCache[carrier] { return known }
            let named = isNamed(carrier, in: lowered)
            namedCache[carrier] = named
            return named
        }
        for k in candidates.indices {
            let carrier = candidates[k].carrier
            if let position = candidates[k].position, isNamed(carrier, inLabelOf: lowered, before: position) {
                candidates[k].context = 3
                candidates[k].evidence.append("carrier_label")
            } else if ownCarriers.contains(carrier) {
                candidates[k].context = 2
                candidates[k].evidence.append("sender_domain")
            } else if isNamedAnywhere(carrier) {
                candidates[k].context = 1
                candidates[k].evidence.append("carrier_named")
            }
            let fromLink = candidates[k].evidence.contains("tracking_url")
            if candidates[k].context > 0 && !fromLink { candidates[k].confidence += 0.2 }
            candidates[k].confidence = min(candidates[k].confidence, fromLink ? 1 : 0.99)
        }

        // One carrier per number: its own link, then the carrier named, then the surest.
        var best: [String: Candidate] = [:]
        var order: [String] = []
        // (`86027135-4127` and `860271354127` are one number: read with and without its hyphen)
        func key(_ number: String) -> String { number.contains("-") ? number.replacing("-", with: "") : number }
        for c in candidates {
            guard let current = best[key(c.number)] else {
                best[key(c.number)] = c
                order.append(key(c.number))
                continue
            }
            if rank(c) > rank(current) { best[key(c.number)] = c }
        }
        // A labelled number no carrier is named for, which an earlier message tracked at a
        // carrier whose format reads it, is that carrier's.
        for k in order {
            guard let c = best[k], c.confidence < minimumConfidence, c.context == 0, c.evidence.contains("label"),
                  let known = knownCarriers[k],
                  var earlier = candidates.first(where: { key($0.number) == k && $0.carrier == known }) else { continue }
            earlier.context = 1
            earlier.confidence = min(earlier.confidence + 0.2, 0.99)
            earlier.evidence.append("earlier_message")
            best[k] = earlier
            candidates.append(earlier)
        }
        var out: [Shipment] = []
        for k in order {
            guard let c = best[k], c.confidence >= minimumConfidence else { continue }
            let number = c.number
            // the evidence of every finding of the number for this carrier, or in the same format
            let evidence = candidates.filter { key($0.number) == k && ($0.carrier == c.carrier || $0.formatID == c.formatID) }
                .flatMap(\.evidence).reduce(into: [String]()) { if !$0.contains($1) { $0.append($1) } }
            out.append(Shipment(carrier: c.carrier, format: c.formatID, trackingNumber: number, checkDigit: c.checkDigit,
                                confidence: (c.confidence * 100).rounded() / 100, evidence: evidence,
                                trackingURL: c.trackingURL, pickup: nil))
        }
        if knownCarriers.count + out.count > Self.knownCarriersLimit { knownCarriers.removeAll() }
        for s in out { if let n = s.trackingNumber { knownCarriers[key(n)] = s.carrier } }
        return out
    }

    private func rank(_ c: Candidate) -> (Int, Int, Double, Int, Int) {
        (c.evidence.contains("tracking_url") ? 1 : 0, c.context, c.confidence, c.hasChecksum ? 1 : 0, -c.formatIndex)
    }

    // MARK: numbers in links

    /// Whether a link goes to a carrier's tracking page.
    func isTrackingLink(_ link: String) -> Bool {
        guard let host = LinkParts.host(of: link) else { return false }
        return isTrackingHost(Array(host.utf8)[...])
    }

    /// Whether a host (lowercase) is a tracking host or under one.
    private func isTrackingHost(_ host: ArraySlice<UInt8>) -> Bool {
        var host = host
        while true {
            if trackingHosts.contains(host) { return true }
            guard let dot = host.firstIndex(of: UInt8(ascii: ".")) else { return false }
            host = host[(dot + 1)...]
        }
    }

    /// Whether raw text (a JSON string as written) links to a carrier's tracking page, whose
    /// number may be too short for the look at runs of digits (`?id=ZZ-778812`).
    func linksToTrackingPage(_ raw: ArraySlice<UInt8>) -> Bool {
        var i = raw.startIndex
        while let colon = raw[i...].firstIndex(of: UInt8(ascii: ":")) {
            i = colon + 1
            guard raw[i...].starts(with: "//".utf8) else { continue }
            // the link ends at whitespace; its host is in its first bytes
            let end = raw[i...].prefix(256).firstIndex { $0 <= 0x20 } ?? min(raw.endIndex, i + 256)
            if let host = LinkHost.of(raw[i..<end]), isTrackingHost(host[...]) { return true }
            i = end
        }
        return false
    }

    /// A link to a carrier's tracking page names the carrier. Where a template says the page
    /// takes its number, the number is that carrier's whatever its shape; elsewhere in the link,
    /// a value counts when one of the carrier's formats reads it.
    private func linkCandidates(_ link: String) -> [Candidate] {
        guard isTrackingLink(link), let url = LinkParts(link) else { return [] }
        var out: [Candidate] = []
        func add(_ number: [UInt16], carrier: String, placed: Bool) {
            guard number.count >= (placed ? 6 : 8), number.count <= 40, number.lazy.filter({ $0 &- 0x30 < 10 }).count >= 3,
                  number.allSatisfy({ isASCIIAlnum($0) || $0 == UInt16(UInt8(ascii: "-")) }), !isDegenerate(number) else { return }
            let text = String(decoding: number, as: UTF16.self)
            var read = false
            func readAs(_ formatCarrier: String) {
                for (index, format) in specs.formats.enumerated() where format.carrier == formatCarrier {
                    guard let v = format.validate(number), v.valid else { continue }
                    read = true
                    var c = Candidate(format, index: index, number: text, checkDigit: v.checkDigit,
                                      evidence: format.hasChecksum ? ["tracking_url", "check_digit"] : ["tracking_url"], confidence: 1)
                    if formatCarrier != carrier {
                        c.carrier = carrier
                        c.trackingURL = link
                    }
                    out.append(c)
                }
            }
            readAs(carrier)
            // UPU S10 is every postal operator's format: an S10 number on a page keeps its check digit
            if !read { readAs("s10") }
            guard placed && !read else { return }
            out.append(Candidate(carrier: carrier, formatID: "tracking_link", formatIndex: specs.formats.count, hasChecksum: false,
                                 trackingURL: link, number: text, checkDigit: nil, evidence: ["tracking_url"], confidence: 1))
        }
        for template in specs.trackingLinks {
            for number in template.numbers(in: url) ?? [] { add(Array(number.utf16), carrier: template.carrier, placed: true) }
        }
        if !out.isEmpty { return out }
        for (carrier, hosts) in specs.trackingHosts where hosts.contains(where: { LinkHost.host(url.host, isWithin: $0) }) {
            for value in url.values {
                add(Array(value.uppercased().utf16).filter { $0 != 0x20 }, carrier: carrier, placed: false)
            }
        }
        return out
    }

    // MARK: numbers in text

    /// `ownCarriers`: the carriers whose own domain sent the mail.
    private func regionCandidates(_ text: [UInt16], _ region: Range<Int>, lowered: [UInt16], ownCarriers: Set<String>) -> [Candidate] {
        let chunk = text[region].map { $0 &- 0x61 < 26 ? $0 & ~0x20 : $0 }
        var out = chunkCandidates(chunk, region: region, places: nil, lowered: lowered, ownCarriers: ownCarriers)
        // A number printed in groups of four or more digits joined by hyphens (`86027135-4127`,
        // `4521-9873-6205`) is one number: read again with those hyphens out. (Phone numbers
        // have shorter groups: `0800-365-365`, `02-2768-5532`.)
        if let (joined, places) = joinedDigitGroups(chunk) {
            out += chunkCandidates(joined, region: region, places: places, lowered: lowered, ownCarriers: ownCarriers)
        }
        return out
    }

    /// `chunk` without the hyphens between groups of at least four digits, and where each of
    /// its characters was; nil when it has no such groups.
    private func joinedDigitGroups(_ chunk: [UInt16]) -> ([UInt16], [Int])? {
        let hyphen = UInt16(UInt8(ascii: "-"))
        var drop = Set<Int>()
        var i = 0
        while i < chunk.count {
            guard chunk[i] &- 0x30 < 10, i == 0 || !isASCIIAlnum(chunk[i - 1]) else { i += 1; continue }
            // a token of digit groups joined by single hyphens
            var groups: [Int] = [], hyphens: [Int] = [], j = i, length = 0
            while j < chunk.count {
                if chunk[j] &- 0x30 < 10 { length += 1; j += 1; continue }
                if chunk[j] == hyphen, j + 1 < chunk.count, chunk[j + 1] &- 0x30 < 10, length > 0 {
                    groups.append(length); hyphens.append(j); length = 0; j += 1; continue
                }
                break
            }
            groups.append(length)
            let endsToken = j == chunk.count || !isASCIIAlnum(chunk[j])
            if endsToken, groups.count >= 2, groups.allSatisfy({ $0 >= 4 }) { drop.formUnion(hyphens) }
            i = max(j, i + 1)
        }
        guard !drop.isEmpty else { return nil }
        let places = chunk.indices.filter { !drop.contains($0) }
        return (places.map { chunk[$0] }, places)
    }

    /// The candidates in one chunk; `places` maps a joined chunk's characters back to the region's.
    private func chunkCandidates(_ chunk: [UInt16], region: Range<Int>, places: [Int]?, lowered: [UInt16], ownCarriers: Set<String>) -> [Candidate] {
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
                var number = chunk[r].filter { !isSpace($0) }
                // Hyphens that group digits (`9051-2345-6780`) are no part of the number,
                // unless the format writes one (7-ELEVEN's `60528173-4419`).
                var validated = format.validate(number)
                if number.contains(UInt16(UInt8(ascii: "-"))) {
                    let ungrouped = number.filter { $0 != UInt16(UInt8(ascii: "-")) }
                    if let v = format.validate(ungrouped), v.valid {
                        number = ungrouped
                        validated = v
                    }
                }
                guard !isDegenerate(number), let v = validated, v.valid else { return true }
                let position = region.lowerBound + (places?[r.lowerBound] ?? r.lowerBound)
                var label = labelBefore(lowered, position)
                if label == .inOwnMail {
                    // (or a number an earlier message tracked at this carrier: "your item 8932801916 was delivered")
                    let known = knownCarriers[String(decoding: number.filter { $0 != UInt16(UInt8(ascii: "-")) }, as: UTF16.self)]
                    label = ownCarriers.contains(format.carrier) || known == format.carrier ? .tracking : .notParcel
                }
                let hasLetters = number.contains(where: { $0 &- 0x41 < 26 })
                // "Order #", "Tel:" before a number say what it is, unless its shape alone is a
                // parcel's (letters and a check digit: UPS 1Z, UPU S10), which no order number has.
                guard label != .notParcel || (format.hasChecksum && hasLetters) else { return true }
                var confidence = format.hasChecksum ? 0.45 : 0.15
                if hasLetters { confidence += 0.15 }
                if format.hasChecksum && number.count >= 18 { confidence += 0.15 }
                var evidence: [String] = format.hasChecksum ? ["check_digit"] : []
                if label == .tracking {
                    confidence += 0.3
                    evidence.append("label")
                }
                var c = Candidate(format, index: index, number: String(decoding: number, as: UTF16.self),
                                  checkDigit: v.checkDigit, evidence: evidence, confidence: confidence)
                c.position = position
                found.append((c, r))
                return true
            }
        }
        // A number inside a longer one is part of it, not a parcel of its own.
        return found.filter { a in !found.contains { b in b.1 != a.1 && b.1.contains(a.1.lowerBound) && b.1.upperBound >= a.1.upperBound } }.map(\.0)
    }

    private enum Label { case tracking, notParcel, inOwnMail, none }

    /// What introduces a number: a tracking label within a short distance before it, unless a
    /// word for another kind of number (order, phone, invoice) labels it directly; or a word that
    /// labels it directly and means a parcel only in the carrier's own mail (`item`).
    private func labelBefore(_ lowered: [UInt16], _ position: Int) -> Label {
        // the end of the nearest word of each kind: the largest end of any occurrence in the window
        var label = -1, other = -1, ownMail = -1
        for i in max(0, position - 48)..<position {
            let c = lowered[i]
            guard labelStarts[Int(c >> 6)] & (1 << (c & 63)) != 0, let words = labelWords[c] else { continue }
            // a word that starts with a letter must start a word of the text
            if i > 0 && isASCIILetter(c) && isASCIILetter(lowered[i - 1]) { continue }
            for (word, kind) in words where i + word.count <= position && lowered[i..<(i + word.count)].elementsEqual(word) {
                switch kind {
                case .tracking: label = max(label, i + word.count)
                case .notParcel: other = max(other, i + word.count)
                default: ownMail = max(ownMail, i + word.count)
                }
            }
        }
        if ownMail > max(label, other) && lowered[ownMail..<position].allSatisfy(isLabelPunctuation) { return .inOwnMail }
        // (a word for another number that ends where a label does is the longer of the two: 訂單號, 單號)
        if other >= 0 && other >= label && lowered[other..<position].allSatisfy(isLabelPunctuation) { return .notParcel }
        return label >= 0 ? .tracking : .none
    }

    /// Whether the message names the carrier anywhere.
    private func isNamed(_ carrier: String, in lowered: [UInt16]) -> Bool {
        (specs.words[carrier] ?? []).contains { containsWord(lowered, Array($0.utf16)) }
    }

    /// Whether the carrier is named in the number's label: on its line, in the few words before
    /// it (`全家寄件代碼：`, `黑貓宅急便 託運單號`, `DHL Express, air waybill`).
    private func isNamed(_ carrier: String, inLabelOf lowered: [UInt16], before position: Int) -> Bool {
        var start = position
        while start > 0 && position - start < 32 && lowered[start - 1] != 0x0A { start -= 1 }
        return isNamed(carrier, in: Array(lowered[start..<position]))
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

extension ParcelDetector.Candidate {
    init(_ format: TrackingFormat, index: Int, number: String, checkDigit: String?, evidence: [String], confidence: Double) {
        self.init(carrier: format.carrier, formatID: format.id, formatIndex: index, hasChecksum: format.hasChecksum,
                  trackingURL: format.trackingURL.map { $0.replacing("%s", with: number) }, number: number,
                  checkDigit: checkDigit, evidence: evidence, confidence: confidence)
    }
}
