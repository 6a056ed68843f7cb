#if canImport(Glibc)
import Glibc
#endif

/// Values looked up by name straight from the parser's bytes, without making a String or
/// hashing one: every tag and attribute of every message is looked up here.
struct NameTable<Value: Sendable>: Sendable {
    private var names: [UInt8] = []  // every name, one after another
    private var entries: [(start: Int, count: Int, value: Value)] = []
    private var slots: [Int32]  // an index into entries, -1 when empty
    private let mask: Int

    init(_ pairs: [(String, Value)]) {
        var size = 16
        while size < pairs.count * 4 { size *= 2 }
        mask = size - 1
        slots = Array(repeating: -1, count: size)
        for (name, value) in pairs {
            var slot = Self.hash(Array(name.utf8)) & mask
            while slots[slot] >= 0 { slot = (slot + 1) & mask }
            slots[slot] = Int32(entries.count)
            entries.append((names.count, name.utf8.count, value))
            names += name.utf8
        }
    }

    func value(for name: UnsafeBufferPointer<UInt8>) -> Value? {
        guard let base = name.baseAddress, name.count > 0 else { return nil }
        var slot = Self.hash(name) & mask
        return names.withUnsafeBufferPointer { all in
            slots.withUnsafeBufferPointer { slots in
                entries.withUnsafeBufferPointer { entries in
                    while true {
                        let index = Int(slots[slot])
                        if index < 0 { return nil }
                        if entries[index].count == name.count, memcmp(all.baseAddress! + entries[index].start, base, name.count) == 0 {
                            return entries[index].value
                        }
                        slot = (slot + 1) & mask
                    }
                }
            }
        }
    }

    /// FNV-1a.
    private static func hash(_ bytes: some Sequence<UInt8>) -> Int {
        var h: UInt64 = 0xcbf2_9ce4_8422_2325
        for b in bytes { h = (h ^ UInt64(b)) &* 0x0000_0100_0000_01b3 }
        return Int(truncatingIfNeeded: h ^ (h >> 29))
    }
}
