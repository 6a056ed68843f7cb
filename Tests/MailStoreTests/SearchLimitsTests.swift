import Testing
@testable import MailStore

// The search language's limits: at most SearchQuery.maximumTerms terms and maximumDepth
// parentheses and NOTs nested in one another. Past them a query is an error that says where
// (never SQLite's own "parser stack overflow", never a crash of a parser recursing without
// end); within them every query's SQL is one SQLite reads.

/// The error `query` is, or nil when it is one.
func syntaxError(_ query: String) -> SearchQuery.SyntaxError? {
    do { _ = try SearchQuery(query); return nil } catch { return error }
}

@Test func searchLimitsTooManyTermsIsAnErrorAtTheFirstTermTooMany() throws {
    let words = (1...300).map { "w\($0)" }
    _ = try SearchQuery(words.prefix(256).joined(separator: " OR "))
    let query = words.joined(separator: " OR ")
    let error = try #require(syntaxError(query))
    let before = words.prefix(256).joined(separator: " OR ") + " OR "
    #expect(error.position == before.count + 1)
    #expect(error.description == "at \(error.position!): more than 256 terms")
    // every kind of term counts: fields, phrases, -word, *
    let mixed = Array(repeating: #"from:a "a b" -c * date:2026"#, count: 52).joined(separator: " ")
    #expect(syntaxError(mixed)?.description.hasSuffix("more than 256 terms") == true)
}

@Test func searchLimitsNestingTooDeepIsAnErrorAtTheFirstLevelTooMany() throws {
    _ = try SearchQuery(String(repeating: "(", count: 32) + "a" + String(repeating: ")", count: 32))
    _ = try SearchQuery(String(repeating: "NOT ", count: 32) + "a")
    _ = try SearchQuery(String(repeating: "not (a OR ", count: 16) + "b" + String(repeating: ")", count: 16))
    for (query, position) in [
        (String(repeating: "(", count: 33) + "a" + String(repeating: ")", count: 33), 33),
        (String(repeating: "not ", count: 33) + "a", 129),
        (String(repeating: "not (a OR ", count: 17) + "b" + String(repeating: ")", count: 17), 161),
        (String(repeating: "(a ", count: 40) + "b" + String(repeating: ")", count: 40), 97),
    ] {
        let error = try #require(syntaxError(query), "\(query)")
        #expect(error.position == position, "\(query)")
        #expect(error.description == "at \(position): more than 32 nested parentheses and NOTs")
    }
    // -word is a NOT of its own word, nested in nothing
    _ = try SearchQuery(String(repeating: "(", count: 32) + "-a" + String(repeating: ")", count: 32))
}

@Test func searchLimitsAMillionParenthesesAreAnErrorNotACrash() throws {
    let start = ContinuousClock.now
    for query in [String(repeating: "(", count: 40_000), String(repeating: "(", count: 1_000_000),
                  String(repeating: "NOT ", count: 250_000), String(repeating: "(a OR ", count: 200_000)] {
        let error = try #require(syntaxError(query))
        #expect(error.description.hasSuffix("more than 32 nested parentheses and NOTs"))
    }
    #expect(syntaxError(String(repeating: ")", count: 1_000_000))?.description == "at 1: a ')' that closes nothing")
    #expect(syntaxError(String(repeating: "a ", count: 500_000))?.position == 513)
    // linear: a debug build reads these millions of characters in well under this
    #expect(ContinuousClock.now - start < .seconds(30))
}

@Test func searchLimitsOtherErrorsSayWhereTheyAre() throws {
    for (query, position) in [
        ("(from:alex", 1), ("from:alex)", 10), ("a OR", 5), ("a AND AND b", 7), (#"x "open"#, 3),
        ("is:happy", 1), ("a is:happy", 3), ("a -b date:2026-13-01", 6), ("黑貓 )", 4), ("a ( b", 3),
    ] {
        let error = try #require(syntaxError(query), "\(query)")
        #expect(error.position == position, "\(query): \(error)")
        #expect(error.description.hasPrefix("at \(position): "), "\(query): \(error)")
    }
    #expect(syntaxError("")?.position == nil)
    // a long word is cut short in the message
    #expect(try #require(syntaxError("is:" + String(repeating: "x", count: 100_000))).description.count < 300)
}

@Test func searchLimitsDashWordIsNot() throws {
    for (a, b) in [("-alex", "not alex"), ("-from:alex dinner", "NOT from:alex dinner"), (#"-"a b""#, #"not "a b""#)] {
        let (x, y) = (try SearchQuery(a), try SearchQuery(b))
        #expect(x.sql == y.sql && x.parameters == y.parameters, "\(a)")
    }
}

// MARK: the SQL of queries within the limits

/// A store of 16 messages: message i has the word w0…w3 for each bit of i that is set, is
/// unread when i is odd, and is dated 2026-03-(i+1).
func limitsStore(_ tmp: TemporaryStore) throws -> MailStore {
    let store = try tmp.open()
    _ = try store.batch {
        for i in 0..<16 {
            let words = (0..<4).filter { i & (1 << $0) != 0 }.map { "w\($0)" }.joined(separator: " ")
            let day = String(i + 1).count == 1 ? "0\(i + 1)" : String(i + 1)
            _ = try store.add(record("m\(i)@x", from: "alex@example.com", to: ["me@example.org"], date: "2026-03-\(day)T01:00:00Z",
                                     subject: "note \(i)", text: words, labels: i % 2 == 1 ? ["INBOX", "UNREAD"] : ["INBOX"]))
        }
    }
    return store
}

func limitsIDs(_ store: MailStore, _ query: String) throws -> Set<Int> {
    let found = try collect { w in try store.search(try SearchQuery(query), output: .ids, limit: nil, w) }
    return Set(found.compactMap { $0.stringValue.flatMap { Int($0.dropFirst().prefix { $0 != "@" }) } })
}

/// A query as a tree, to write as text and to answer without SQL.
indirect enum LimitsQuery {
    case term(String, Set<Int>)
    case not(LimitsQuery)
    case and([LimitsQuery])
    case or([LimitsQuery])

    var isGroup: Bool { if case .and = self { true } else if case .or = self { true } else { false } }

    var text: String {
        switch self {
        case .term(let t, _): t
        case .not(let q): "NOT " + (q.isGroup ? "(\(q.text))" : q.text)
        case .and(let parts): parts.map { if case .or = $0 { "(\($0.text))" } else { $0.text } }.joined(separator: " ")
        case .or(let parts): parts.map { if case .and = $0 { "(\($0.text))" } else { $0.text } }.joined(separator: " OR ")
        }
    }

    var answer: Set<Int> {
        switch self {
        case .term(_, let s): s
        case .not(let q): Set(0..<16).subtracting(q.answer)
        case .and(let parts): parts.dropFirst().reduce(parts[0].answer) { $0.intersection($1.answer) }
        case .or(let parts): parts.reduce(Set()) { $0.union($1.answer) }
        }
    }

    static let terms: [(String, Set<Int>)] = (0..<4).map { b in ("w\(b)", Set((0..<16).filter { $0 & (1 << b) != 0 })) }
        + (0..<4).map { b in ("-w\(b)", Set((0..<16).filter { $0 & (1 << b) == 0 })) }
        + [("is:unread", Set((0..<16).filter { $0 % 2 == 1 })), ("is:read", Set((0..<16).filter { $0 % 2 == 0 })),
           ("date:2026-03-01..2026-03-08", Set(0..<8)), ("*", Set(0..<16)), ("id:m3@x", [3])]
}

struct SplitMix: RandomNumberGenerator {
    var state: UInt64
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}

/// A random query of at most `terms` terms that nests at most `depth` deep, deep and bushy
/// more often than a person writes: its terms, and the tree.
func randomQuery(depth: Int, terms: Int, _ rng: inout SplitMix) -> (Int, LimitsQuery) {
    func term() -> (Int, LimitsQuery) {
        let (t, s) = LimitsQuery.terms.randomElement(using: &rng)!
        return (1, .term(t, s))
    }
    if terms <= 1 || (depth == 0 && Bool.random(using: &rng)) { return term() }
    let choice = Int.random(in: 0..<10, using: &rng)
    if choice < 2 {
        // NOT (…) is two levels
        guard depth >= 2 else { return term() }
        let (n, q) = randomQuery(depth: depth - 2, terms: terms, &rng)
        return (n, .not(q))
    }
    // an OR in an AND is in parentheses, one level deeper; an AND in an OR is not
    let isAnd = choice < 6
    guard !isAnd || depth >= 1 else { return term() }
    var parts: [LimitsQuery] = []
    var used = 0
    for _ in 0..<Int.random(in: 2...6, using: &rng) where used < terms {
        let (n, q) = randomQuery(depth: isAnd ? depth - 1 : depth, terms: max(1, (terms - used) / 2), &rng)
        used += n
        parts.append(q)
    }
    if parts.count < 2 { return term() }
    return (used, isAnd ? .and(parts) : .or(parts))
}

@Test func searchLimitsQueriesWithinTheLimitsAreAnsweredAsWritten() throws {
    let tmp = TemporaryStore()
    let store = try limitsStore(tmp)
    var rng = SplitMix(state: 2026)
    var checked = 0
    for round in 0..<400 {
        let (depth, terms) = round < 200 ? (4, 12) : (32, 256)
        let (_, q) = randomQuery(depth: depth, terms: terms, &rng)
        guard (try? SearchQuery(q.text)) != nil else {
            // a generated query over the terms
            #expect(syntaxError(q.text)!.description.hasSuffix("more than 256 terms"), "\(q.text)")
            continue
        }
        #expect(try limitsIDs(store, q.text) == q.answer, "\(q.text)")
        #expect(try store.count(SearchQuery(q.text)) == q.answer.count, "\(q.text)")
        checked += 1
    }
    #expect(checked > 300)
}

/// Queries at the limits in the shapes that nest SQL deepest; each is run.
func worstQueries() -> [String] {
    let maxTerms = SearchQuery.maximumTerms, maxDepth = SearchQuery.maximumDepth
    var queries: [String] = []
    for join in [" OR ", " ", " AND "] {
        queries.append((0..<maxTerms).map { "w\($0 % 4)" }.joined(separator: join))
        queries.append((0..<maxTerms).map { "-w\($0 % 4)" }.joined(separator: join))
        queries.append((0..<maxTerms).map { $0 % 3 == 0 ? "date:2026-03-0\($0 % 9 + 1)" : "is:read" }.joined(separator: join))
    }
    queries.append(String(repeating: "NOT ", count: maxDepth) + "-w1")
    queries.append(String(repeating: "NOT (w0 OR ", count: maxDepth / 2) + "-w1" + String(repeating: ")", count: maxDepth / 2))
    // an AND and an OR in each other, the nested one written last: w0 (w1 OR w2 (w3 OR …))
    var chain = "-w1"
    for level in 0..<maxDepth { chain = level % 2 == 0 ? "w0 w2 OR w1 (\(chain))" : "w3 OR w1 w2 (\(chain))" }
    queries.append(chain)
    // a tree in which every group has two parts as deep as each other: 2^8 = 256 terms,
    // each under as many NOTs as the depth leaves
    func tree(_ levels: Int, _ depth: Int) -> String {
        if levels == 0 { return String(repeating: "NOT ", count: depth) + "-w\(depth % 4)" }
        let part = "(" + tree(levels - 1, depth - 1) + ")"
        return levels % 2 == 0 ? part + " " + part : part + " OR " + part
    }
    queries.append(tree(8, maxDepth - 1))
    // the same, its AND in an OR without parentheses
    func flatTree(_ levels: Int, _ depth: Int) -> String {
        if levels == 0 { return String(repeating: "NOT ", count: depth) + "-w\(depth % 4)" }
        if levels % 2 == 1 { return flatTree(levels - 1, depth) + " OR " + flatTree(levels - 1, depth) }
        let part = "(" + flatTree(levels - 1, depth - 1) + ")"
        return part + " " + part
    }
    queries.append(flatTree(8, maxDepth - 1))
    // a deep part beside 128 terms, before and after them
    let wide = (0..<128).map { "w\($0 % 4)" }.joined(separator: " OR ")
    queries.append(wide + " OR " + String(repeating: "NOT ", count: maxDepth) + "w0")
    queries.append(String(repeating: "(", count: maxDepth) + wide + String(repeating: ")", count: maxDepth) + " " + wide)
    return queries
}

@Test func searchLimitsTheWorstQueriesWithinTheLimitsAreOnesSQLiteReads() throws {
    let tmp = TemporaryStore()
    let store = try limitsStore(tmp)
    for query in worstQueries() {
        let parsed = try SearchQuery(query)  // within the limits
        // SQLite's parser overflows past about 80 (see SearchQuery.write); a dynamic program
        // over every shape within the limits finds at most 49
        let nesting = try SearchQuery.ordered(parse(query)).nesting
        #expect(nesting <= 50, "\(query.prefix(80))")
        _ = try limitsIDs(store, query)
        _ = try store.count(parsed)
        _ = try store.label(parsed, add: ["X"], remove: [])
    }
}

@Test func searchLimitsNinetyAndTheMostTermsAreAnswered() throws {
    let tmp = TemporaryStore()
    let store = try limitsStore(tmp)
    for n in [90, 256] {
        #expect(try limitsIDs(store, (0..<n).map { "w\($0 % 2)" }.joined(separator: " OR ")) == Set((0..<16).filter { $0 & 3 != 0 }))
        #expect(try limitsIDs(store, (0..<n).map { "w\($0 % 2)" }.joined(separator: " ")) == Set((0..<16).filter { $0 & 3 == 3 }))
        #expect(try limitsIDs(store, (0..<n).map { "-w\($0 % 2)" }.joined(separator: " ")) == Set((0..<16).filter { $0 & 3 == 0 }))
    }
}

/// The parser's tree of `query`.
func parse(_ query: String) throws -> SearchQuery.Node {
    var parser = SearchQuery.Parser(tokens: try SearchQuery.tokens(Array(query)), end: query.count)
    return try parser.parseOr()
}
