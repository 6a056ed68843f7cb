/// What the lists show of each conversation, kept beside a site rendered from a store
/// (`.mailstore-lists`): a delivery renders the list items of the conversations it changed and
/// takes every other item as it was, instead of reading and rendering every conversation again.
struct ListCache {
    struct Entry {
        var change: Int
        var summary: ConversationSummary
    }

    static let name = ".mailstore-lists"
    static let magic = Array("mailpipe-lists 1\n".utf8)
    var entries: [String: Entry] = [:]

    /// The cache of `folder`, empty when there is none or it was made with other settings.
    static func load(folder: String, settings: String) -> ListCache {
        var cache = ListCache()
        guard let bytes = SiteWriter.read(folder + "/" + name) else { return cache }
        var r = Reader(bytes: bytes)
        guard r.bytes(magic.count).map(Array.init) == magic, r.field() == Array(settings.utf8) else { return cache }
        cache.entries.reserveCapacity(bytes.count / 512)  // about an entry's size
        while r.position < bytes.count {
            guard let id = r.text(), let change = r.text().flatMap({ Int($0) }), let file = r.text(), let title = r.text(),
                  let lastDate = r.text(), let flags = r.bytes(1)?.first, let item = r.field(),
                  let parcels = r.text().flatMap({ Int($0) })
            else { return ListCache() }  // damaged: rendered anew
            var c = ConversationSummary(id: id, file: file, title: title, lastDate: lastDate, flags: flags, item: item)
            var cards: [(key: String, html: [UInt8])] = []
            for _ in 0..<parcels {
                guard let key = r.text(), let html = r.field() else { return ListCache() }
                cards.append((key, html))
            }
            c.parcelCards = cards
            cache.entries[id] = Entry(change: change, summary: c)
        }
        return cache
    }

    func save(folder: String, settings: String, order: [String]) throws(SiteWriter.WriteError) {
        var out = Self.magic
        func field(_ b: some Collection<UInt8>) {
            let n = UInt32(b.count)
            out += [UInt8(n & 0xff), UInt8(n >> 8 & 0xff), UInt8(n >> 16 & 0xff), UInt8(n >> 24)]
            out += b
        }
        field(Array(settings.utf8))
        for id in order {
            guard let e = entries[id] else { continue }
            let c = e.summary
            for text in [id, String(e.change), c.file, c.title, c.lastDate] { field(text.utf8) }
            out.append(c.flags)
            field(c.item ?? [])
            let cards = c.parcelCards ?? []
            field(String(cards.count).utf8)
            for (key, html) in cards {
                field(key.utf8)
                field(html)
            }
        }
        try SiteWriter.store(folder + "/" + Self.name, out)
    }

    struct Reader {
        let bytes: [UInt8]
        var position = 0

        mutating func bytes(_ n: Int) -> ArraySlice<UInt8>? {
            guard n >= 0, position + n <= bytes.count else { return nil }
            defer { position += n }
            return bytes[position..<(position + n)]
        }

        mutating func slice() -> ArraySlice<UInt8>? {
            guard let l = bytes(4) else { return nil }
            let i = l.startIndex
            return bytes(Int(l[i]) | Int(l[i + 1]) << 8 | Int(l[i + 2]) << 16 | Int(l[i + 3]) << 24)
        }

        mutating func field() -> [UInt8]? { slice().map(Array.init) }

        mutating func text() -> String? { slice().map { String(decoding: $0, as: UTF8.self) } }
    }
}

extension ConversationSummary {
    /// Its flags in one byte, as the list cache keeps them.
    var flags: UInt8 {
        (isGroup ? 1 : 0) | (isNewsletter ? 2 : 0) | (archived ? 4 : 0) | (isList ? 8 : 0) | (lastFromMe ? 16 : 0)
    }

    /// A conversation as the list cache keeps it: what the lists read, and its item.
    init(id: String, file: String, title: String, lastDate: String, flags: UInt8, item: [UInt8]) {
        self.id = id
        self.file = file
        self.title = title
        self.lastDate = lastDate
        participants = []
        isGroup = flags & 1 != 0
        isNewsletter = flags & 2 != 0
        archived = flags & 4 != 0
        isList = flags & 8 != 0
        lastFromMe = flags & 16 != 0
        messageCount = 0
        unreadCount = 0
        snippet = ""
        shipments = []
        messageIDs = []
        self.item = item
    }
}
