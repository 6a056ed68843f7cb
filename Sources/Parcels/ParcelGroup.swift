#if canImport(Glibc)
import Glibc
#endif
import CivilTime
import JSONLines
import UnixFilter

/// parcel-group's run: every message's `shipments` in, one record per parcel out, its status the
/// latest its mail tells (a finished parcel is not reopened by mail that comes late). See
/// parcel-group(1).
public struct ParcelGroup {
    /// Only parcels still coming or waiting (not delivered, picked up or returned) whose latest
    /// news is not older than `openWithin` seconds before `now`.
    public var openOnly = false
    public var openWithin = Self.openDays * 86_400
    /// How many days without news a parcel stays open, as parcel trackers count before they
    /// call it expired.
    public static let openDays = 60
    /// Only the parcels due on this day (YYYY-MM-DD): pickups whose deadline it is, and
    /// deliveries expected then.
    public var agendaDay: String?
    public var now = Int(Glibc.time(nil))

    public init() {}

    struct MissingField: Error, CustomStringConvertible {
        var name: String
        var description: String {
            name == "shipments" ? "the record has no shipments (run carrier-detect first)" : "the record has no \(name)"
        }
    }

    /// One mail's word on one parcel.
    public struct Observation {
        var carrier: String?
        var number: String?
        var status: String?
        /// When it happened: the time the mail states, else the mail's date.
        var time: String
        var stated: Bool
        var pickup: Pickup?
        var expectedDelivery: String?
        var trackingURL: String?
        /// carrier-detect's members as the shipment writes them (null when not stated).
        var forwardedFrom: JSONValue?
        var customs: JSONValue?
        var cashOnDelivery: JSONValue?
        var orderNumber: String?
        var shop: String?
        var messageID: String
        var conversationID: String?
        var order: Int

        /// carrier:number, the id of the parcel it tells of; nil when it gives only a pickup code.
        public var numberKey: String? { number.map { (carrier ?? "") + ":" + $0 } }
        /// carrier:code of its pickup, or nil.
        public var codeKey: String? { pickup?.code.map { (carrier ?? "") + ":" + $0 } }
    }

    public static let finished: Set<String> = ["delivered", "picked_up", "returned"]

    public func run(_ run: FilterRun) throws {
        var observations: [Observation] = []
        try filterRecords(run, progressNoun: "messages") { record in
            guard let id = record.string("id") ?? record.string("message_id") else { throw MissingField(name: "id") }
            guard let shipments = record.value("shipments")?.arrayValue else { throw MissingField(name: "shipments") }
            let date = record.string("date") ?? ""
            let conversation = record.string("conversation_id") ?? record.string("participant_hash")
            for s in shipments {
                guard let o = Self.observation(s, messageID: id, date: date, conversationID: conversation, order: observations.count)
                else { continue }
                observations.append(o)
            }
            return nil
        }
        for p in Self.group(observations) where keeps(p.facts) { try run.write(p.json()) }
    }

    /// What --open and --agenda ask of a parcel.
    public struct Facts {
        public var status: String?
        public var lastDate: String
        public var deadline: String?
        public var expectedDelivery: String?
        public init(status: String?, lastDate: String, deadline: String?, expectedDelivery: String?) {
            self.status = status
            self.lastDate = lastDate
            self.deadline = deadline
            self.expectedDelivery = expectedDelivery
        }

        /// A parcel's facts from parcel-group's record of it.
        public init(record p: JSONValue) {
            self.init(status: p["status"]?.stringValue, lastDate: p["last_date"]?.stringValue ?? "",
                      deadline: p["pickup"]?["deadline"]?.stringValue, expectedDelivery: p["expected_delivery"]?.stringValue)
        }
    }

    /// Whether a parcel is written with --open and --agenda as they are set.
    public func keeps(_ p: Facts) -> Bool {
        let finished = p.status.map(Self.finished.contains) ?? false
        if openOnly {
            guard !finished, let last = CivilDate.epoch(rfc3339: p.lastDate), last >= now - openWithin else { return false }
        }
        if let day = agendaDay {
            guard let status = p.status, !finished else { return false }
            return (status == "available_for_pickup" && p.deadline == day) || p.expectedDelivery == day
        }
        return true
    }

    /// A shipment's word on its parcel, or nil when it names neither a number nor a pickup code.
    public static func observation(_ s: JSONValue, messageID: String, date: String, conversationID: String?, order: Int) -> Observation? {
        let pickup = s["pickup"].flatMap(Self.pickup)
        // a number that is the mail's own pickup code (a store's tracking link made with the
        // code) is the code: the mail joins the parcel that has it
        let number = s["tracking_number"]?.stringValue.map(normalized).flatMap { $0.isEmpty || $0 == pickup?.code ? nil : $0 }
        guard number != nil || pickup?.code != nil else { return nil }
        let statusTime = s["status_time"]?.stringValue
        func object(_ key: String) -> JSONValue? {
            if case .object? = s[key] { return s[key] }
            return nil
        }
        return Observation(carrier: s["carrier"]?.stringValue, number: number, status: s["status"]?.stringValue,
                           time: statusTime ?? date, stated: statusTime != nil, pickup: pickup,
                           expectedDelivery: s["expected_delivery"]?.stringValue, trackingURL: s["tracking_url"]?.stringValue,
                           forwardedFrom: object("forwarded_from"), customs: object("customs"), cashOnDelivery: object("cash_on_delivery"),
                           orderNumber: s["order_number"]?.stringValue, shop: s["shop"]?.stringValue,
                           messageID: messageID, conversationID: conversationID, order: order)
    }

    static func pickup(_ v: JSONValue) -> Pickup? {
        let p = Pickup(store: v["store"]?.stringValue, address: v["address"]?.stringValue, storeID: v["store_id"]?.stringValue,
                       code: v["code"]?.stringValue, deadline: v["deadline"]?.stringValue)
        return p == Pickup() ? nil : p
    }

    /// A tracking number as one string: without the spaces and hyphens it is printed in groups
    /// with, in upper case.
    static func normalized(_ number: String) -> String {
        String(number.unicodeScalars.filter { $0 != " " && $0 != "-" }.map(Character.init)).uppercased()
    }

    /// The parcels the observations tell of: by carrier and tracking number; a mail with only a
    /// pickup code joins the parcel with that code at that carrier (of two, the first by
    /// number), else is a parcel of its own (`Observation.parcelID`).
    public static func group(_ observations: [Observation]) -> [Parcel] {
        var parcels: [String: Parcel] = [:]
        var numbersByCode: [String: Set<String>] = [:]  // carrier and pickup code → parcel keys
        for o in observations where o.number != nil {
            parcels[o.numberKey!, default: Parcel(carrier: o.carrier, number: o.number)].observations.append(o)
            if let c = o.codeKey { numbersByCode[c, default: []].insert(o.numberKey!) }
        }
        for o in observations where o.number == nil {
            let key = o.parcelID { Array(numbersByCode[$0] ?? []) }
            parcels[key, default: Parcel(carrier: o.carrier, number: nil)].observations.append(o)
        }
        return parcels.values.map { p in
            var p = p
            p.observations.sort { ($0.time, $0.messageID, $0.order) < ($1.time, $1.messageID, $1.order) }
            return p
        }.sorted { a, b in a.lastTime != b.lastTime ? a.lastTime > b.lastTime : a.id < b.id }
    }

    public struct Parcel {
        var carrier: String?
        var number: String?
        var observations: [Observation] = []

        init(carrier: String?, number: String?) {
            self.carrier = carrier
            self.number = number
        }

        /// carrier:number, or for a parcel known only by its pickup code, pickup:carrier:code.
        public var id: String {
            if let number { return (carrier ?? "") + ":" + number }
            return "pickup:" + (carrier ?? "") + ":" + (observations.first?.pickup?.code ?? "")
        }

        public var lastTime: String { observations.last?.time ?? "" }

        /// Its mails' ids, in the order their news happened.
        public var messageIDs: [String] {
            var ids: [String] = []
            for o in observations where !ids.contains(o.messageID) { ids.append(o.messageID) }
            return ids
        }

        /// The latest status by when it happened; a finished parcel stays finished whatever
        /// earlier news comes after (a late "shipped" after "picked up").
        var status: (status: String, observation: Observation)? {
            var current: (status: String, observation: Observation)?
            for o in observations {
                guard let s = o.status else { continue }
                if let c = current, ParcelGroup.finished.contains(c.status), !ParcelGroup.finished.contains(s) { continue }
                current = (s, o)
            }
            return current
        }

        /// The latest stated store (with its address: a new store's is its own), store id, code
        /// and deadline, each on its own.
        var pickup: Pickup? {
            var merged = Pickup()
            for o in observations {
                guard let p = o.pickup else { continue }
                if let store = p.store, store != merged.store { merged.address = nil }
                merged.store = p.store ?? merged.store
                merged.address = p.address ?? merged.address
                merged.storeID = p.storeID ?? merged.storeID
                merged.code = p.code ?? merged.code
                merged.deadline = p.deadline ?? merged.deadline
            }
            return merged == Pickup() ? nil : merged
        }

        var expectedDelivery: String? { observations.last(where: { $0.expectedDelivery != nil })?.expectedDelivery }

        public var facts: Facts {
            Facts(status: status?.status, lastDate: lastTime, deadline: pickup?.deadline, expectedDelivery: expectedDelivery)
        }

        public func json() -> [UInt8] {
            var w = JSONWriter(capacity: 1024)
            w.beginObject()
            w.field("parcel_id", id)
            w.field("carrier", carrier)
            w.field("tracking_number", number)
            let current = status
            w.field("status", current?.status)
            w.field("status_time", current?.observation.time)
            w.key("statuses")
            w.beginArray()
            for o in observations where o.status != nil {
                w.beginObject()
                w.field("status", o.status)
                w.field("time", o.time)
                w.field("time_stated", o.stated)
                w.field("message_id", o.messageID)
                w.endObject()
            }
            w.endArray()
            w.key("pickup")
            if let p = pickup {
                w.beginObject()
                w.field("store", p.store)
                w.field("address", p.address)
                w.field("store_id", p.storeID)
                w.field("code", p.code)
                w.field("deadline", p.deadline)
                w.endObject()
            } else {
                w.null()
            }
            w.field("expected_delivery", expectedDelivery)
            // carrier-detect's other facts, each the latest its mail states
            for (key, value) in [("customs", observations.last(where: { $0.customs != nil })?.customs),
                                 ("cash_on_delivery", observations.last(where: { $0.cashOnDelivery != nil })?.cashOnDelivery),
                                 ("forwarded_from", observations.last(where: { $0.forwardedFrom != nil })?.forwardedFrom)] {
                w.key(key)
                if let value { w.value(value) } else { w.null() }
            }
            w.field("order_number", observations.last(where: { $0.orderNumber != nil })?.orderNumber)
            w.field("shop", observations.last(where: { $0.shop != nil })?.shop)
            w.field("tracking_url", observations.last(where: { $0.trackingURL != nil })?.trackingURL)
            w.field("conversation_id", observations.last?.conversationID)
            w.field("message_ids", strings: messageIDs)
            w.field("first_date", observations.first?.time)
            w.field("last_date", observations.last?.time)
            w.endObject()
            return w.bytes
        }
    }
}
