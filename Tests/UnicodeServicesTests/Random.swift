/// A small deterministic generator (SplitMix64), so that a failure names a seed to replay.
struct Random {
    var state: UInt64
    mutating func next(_ n: Int) -> Int {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return Int((z ^ (z >> 31)) % UInt64(n))
    }
    mutating func pick<T>(_ items: [T]) -> T { items[next(items.count)] }
}
