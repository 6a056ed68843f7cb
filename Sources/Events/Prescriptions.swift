import CivilTime
import JSONLines
import UnixFilter
import UTF8Text

/// The words of prescription notices, per language (`prescription-words.json`): built in,
/// extended by the user's files of the same shape.
public struct PrescriptionWords: ExtensibleData, Sendable {
    var prescription: [String] = []
    var collect: [String] = []
    var reorder: [String] = []
    var deadline: [String] = []
    var pharmacy: [String] = []
    var pharmacyMarkers: [String] = []
    var nameEnds: [String] = []
    var careSubjects: [String] = []

    public struct DataError: Error, CustomStringConvertible {
        public var description: String
    }

    public static let builtIn: PrescriptionWords = {
        var words = PrescriptionWords()
        do { try words.add(json: PackageResources.prescription_words_json) } catch { fatalError("built-in prescription words: \(error)") }
        return words
    }()

    public mutating func add(json: [UInt8]) throws {
        guard case .object(let members) = try JSONValue.parse(json) else { throw DataError(description: "expected a JSON object") }
        for (key, value) in members {
            switch key {
            case "comment": break
            case "languages":
                guard case .object(let languages) = value else { throw DataError(description: "'languages' must be an object") }
                for (name, language) in languages { try add(language: name, language) }
            default: throw DataError(description: "unknown key '\(key)'")
            }
        }
    }

    private mutating func add(language name: String, _ v: JSONValue) throws {
        guard case .object(let members) = v else { throw DataError(description: "\(name): expected an object") }
        for (key, value) in members {
            guard let items = value.arrayValue, items.allSatisfy({ $0.stringValue != nil }) else {
                throw DataError(description: "\(name): '\(key)' must be a list of words")
            }
            let words = items.compactMap(\.stringValue).map { $0.lowercased() }
            switch key {
            case "prescription": prescription += words
            case "collect": collect += words
            case "reorder": reorder += words
            case "deadline": deadline += words
            case "pharmacy": pharmacy += words
            case "pharmacy_markers": pharmacyMarkers += words
            case "name_ends": nameEnds += words
            case "care_subjects": careSubjects += words
            default: throw DataError(description: "\(name): unknown key '\(key)'")
            }
        }
        // longest first, so that "collect it from" is read before "collect from"
        pharmacyMarkers.sort { $0.count > $1.count }
    }
}

/// Prescription notices in plain text: "Your prescription is ready to collect from Boots, High
/// Street … by 14 March", "Refill due: March 20, 2026", "Ihr Rezept liegt zur Abholung bereit …
/// bis zum 16.03.2026", "請於3月27日前至大樹藥局領藥", "3月19日までにお受け取りください". A word
/// for a prescription, a word saying it is ready to collect or due to be reordered, and a day
/// still to come (read by the appointment reader's date reading): a reminder for that day, the
/// pharmacy as its place.
struct Prescriptions {
    let words: PrescriptionWords
    private let prescriptionBytes: WordFinder
    private let careSubjectBytes: [[UInt8]]

    init(words: PrescriptionWords) {
        self.words = words
        prescriptionBytes = WordFinder(words.prescription.map { ASCII.lowercased(Array($0.utf8)) })
        careSubjectBytes = words.careSubjects.map { ASCII.lowercased(Array($0.utf8)) }
    }

    /// How far into a text the cheap look goes: a notice says what it is at its start.
    static let lookBytes = 2 << 10

    /// A look at the bytes as written (text, or a JSON string as written): a prescription word
    /// near the start.
    func mayHold(_ raw: ArraySlice<UInt8>) -> Bool {
        let head = raw.prefix(Self.lookBytes)
        return head.withUnsafeBufferPointer { prescriptionBytes.occurs(in: $0, 0..<$0.count) }
    }

    /// Whether a subject names a patient's own business (an appointment, a prescription): such
    /// mail is read even when its booking system adds a list's headers.
    func isCareSubject(_ subject: String?) -> Bool {
        guard let subject else { return false }
        let lowered = ASCII.lowercased(Array(subject.utf8))  // asked of most bulk mail: bytes, not Characters
        return careSubjectBytes.contains { ByteSearch.contains(lowered, $0) }
    }

    struct Found: Equatable {
        var prescription: String  // collect or reorder
        var day: Int
        var location: String?
        var line: String
        var confidence: Double
        var evidence: [String]
    }

    /// The notice in `text` (the message's new text) for a message sent on day `sent`; `sender`
    /// is the sender's name, the pharmacy when the text names none and it is one.
    func find(in text: String, subject: String?, sender: String?, sent: Int, dates: TextAppointments) -> Found? {
        let lines = text.split(omittingEmptySubsequences: false, whereSeparator: \.isNewline).map { $0.trimmingWhitespace }
        let lowered = lines.map { $0.lowercased() }
        let all = ((subject ?? "").lowercased() + "\n" + lowered.joined(separator: "\n"))
        guard words.prescription.contains(where: all.contains) else { return nil }
        var evidence = ["prescription_word"]
        let kind: String
        if words.collect.contains(where: all.contains) {
            kind = "collect"
        } else if words.reorder.contains(where: all.contains) {
            kind = "reorder"
        } else {
            return nil
        }
        evidence.append(kind + "_word")
        // the day: on a line with a word to act by ("by", "bis", "前", "まで") first, else on a
        // line about the prescription
        var best: (day: Int, line: Int, deadline: Bool)?
        for (k, line) in lowered.enumerated() where line.contains(where: \.isNumber) {
            let deadline = words.deadline.contains { Self.containsWord(line, $0) }
            let about = deadline || [words.prescription, words.collect, words.reorder].contains { $0.contains(where: line.contains) }
            guard about, best == nil || deadline && !best!.deadline else { continue }
            guard let day = dates.dates(in: Array(line)).lazy.compactMap({ dates.resolve($0, sent: sent) }).first else { continue }
            best = (day, k, deadline)
        }
        guard let best else { return nil }
        var confidence = 0.6
        if best.deadline { confidence += 0.2; evidence.append("deadline_word") }
        let location = pharmacy(lines, lowered) ?? sender.flatMap { name in
            words.pharmacy.contains(where: name.lowercased().contains) ? name.trimmingWhitespace : nil
        }
        if location != nil { confidence += 0.1; evidence.append("pharmacy") }
        return Found(prescription: kind, day: best.day, location: location, line: lines[best.line], confidence: confidence, evidence: evidence)
    }

    /// Whether `word` is in `line`: as a word where it is written in letters of a script that
    /// spaces its words ("by", not "Bye"), anywhere for Chinese and Japanese ("前", "まで").
    static func containsWord(_ line: String, _ word: String) -> Bool {
        guard word.unicodeScalars.first.map({ $0.value < 0x2E80 }) ?? false else { return line.contains(word) }
        var rest = line[...]
        while let r = rest.firstRange(of: word) {
            let before = r.lowerBound == line.startIndex ? nil : line[line.index(before: r.lowerBound)]
            let after = r.upperBound == line.endIndex ? nil : line[r.upperBound]
            if !(before?.isLetter ?? false) && !(after?.isLetter ?? false) { return true }
            rest = line[r.upperBound...]
        }
        return false
    }

    // MARK: the pharmacy

    /// The pharmacy's name (and address, when written with it): after a marker ("collect from"),
    /// else around the first pharmacy word.
    func pharmacy(_ lines: [String], _ lowered: [String]) -> String? {
        for (k, line) in lowered.enumerated() {
            for marker in words.pharmacyMarkers {
                guard let r = line.firstRange(of: marker) else { continue }
                let offset = line.distance(from: line.startIndex, to: r.upperBound)
                let original = lines[k]
                let rest = original[original.index(original.startIndex, offsetBy: offset)...]
                if let name = nameRun(rest) { return name }
            }
        }
        for (k, line) in lowered.enumerated() {
            guard let r = words.pharmacy.compactMap({ line.firstRange(of: $0) }).min(by: { $0.lowerBound < $1.lowerBound }) else { continue }
            let original = lines[k]
            let at = line.distance(from: line.startIndex, to: r.lowerBound), end = line.distance(from: line.startIndex, to: r.upperBound)
            let chars = Array(original)
            if chars[at].unicodeScalars.first!.value >= 0x2E80 {
                return cjkName(chars, word: at..<end)
            }
            // a name's capitalised words before the word ("Corner Drug Pharmacy"), the rest after it
            var start = at
            while start > 0 {
                var s = start - 1
                guard chars[s] == " " else { break }
                while s > 0, chars[s - 1].isLetter || chars[s - 1] == "'" || chars[s - 1] == "&" { s -= 1 }
                guard s < start - 1, chars[s].isUppercase else { break }
                start = s
            }
            if let name = nameRun(Substring(String(chars[start...]))) { return name }
        }
        return nil
    }

    /// A Latin-script name and address: the rest of the sentence, up to a word that ends it.
    private func nameRun(_ text: Substring) -> String? {
        var s = String(text.drop { $0 == " " || $0 == ":" || $0 == "\t" })
        let lowered = s.lowercased()
        if let cut = words.nameEnds.compactMap({ lowered.firstRange(of: $0) }).min(by: { $0.lowerBound < $1.lowerBound }) {
            s = String(s.prefix(lowered.distance(from: lowered.startIndex, to: cut.lowerBound)))
        }
        while let last = s.last, last == "." || last == "," || last == " " || last == ";" { s.removeLast() }
        guard let first = s.first, first.isLetter || first.isNumber, s.count <= 160 else { return nil }
        return s
    }

    /// A Chinese or Japanese pharmacy's name: the letters before its word back to a space, a
    /// mark or a word of going ("至", "到"), a branch after it ("中正店"), and an address in
    /// brackets.
    private func cjkName(_ c: [Character], word: Range<Int>) -> String {
        let stops: Set<Character> = ["至", "到", "於", "于", "在", "往", "請", "请", "前", "：", ":", "，", "、", "。", "は", "を", "に", "で"]
        var start = word.lowerBound
        while start > 0, c[start - 1].isLetter, !stops.contains(c[start - 1]) { start -= 1 }
        var end = word.upperBound
        func skipSpaces(_ k: Int) -> Int {
            var k = k
            while k < c.count, c[k] == " " || c[k] == "\u{3000}" { k += 1 }
            return k
        }
        // a branch: a few letters ending 店 or 門市 (大樹藥局 中正店, さくら薬局 駅前店)
        var k = skipSpaces(end), n = k
        while n < c.count, n - k < 8, c[n].isLetter {
            n += 1
            if c[n - 1] == "店" || n - k >= 2 && String(c[(n - 2)..<n]) == "門市" { end = n; break }
        }
        // an address or a branch in brackets
        k = skipSpaces(end)
        if k < c.count, c[k] == "（" || c[k] == "(", let close = c[k...].firstIndex(where: { $0 == "）" || $0 == ")" }), close - k < 60 {
            end = close + 1
        }
        return String(c[start..<end]).trimmingWhitespace
    }
}
