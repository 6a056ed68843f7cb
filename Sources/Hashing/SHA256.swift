/// SHA-256 (FIPS 180-4), streaming. Used for attachment digests and participant keys.
public struct SHA256 {
    private var state: (UInt32, UInt32, UInt32, UInt32, UInt32, UInt32, UInt32, UInt32) =
        (0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a, 0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19)
    private var pending = [UInt8]()
    private var length: UInt64 = 0

    public init() { pending.reserveCapacity(64) }

    public mutating func update(_ bytes: UnsafeRawBufferPointer) {
        length &+= UInt64(bytes.count)
        var i = 0
        if !pending.isEmpty {
            let take = min(64 - pending.count, bytes.count)
            pending.append(contentsOf: bytes[0..<take])
            i = take
            if pending.count == 64 {
                pending.withUnsafeBytes { compress($0, at: 0) }
                pending.removeAll(keepingCapacity: true)
            }
        }
        while i + 64 <= bytes.count {
            compress(bytes, at: i)
            i += 64
        }
        if i < bytes.count { pending.append(contentsOf: bytes[i..<bytes.count]) }
    }

    public mutating func update(_ bytes: [UInt8]) { bytes.withUnsafeBytes { update($0) } }

    public mutating func finalize() -> [UInt8] {
        let bitLength = length &* 8
        var tail: [UInt8] = [0x80]
        let padding = (pending.count + 1) % 64 <= 56 ? 56 - (pending.count + 1) % 64 : 120 - (pending.count + 1) % 64
        tail.append(contentsOf: repeatElement(0, count: padding))
        for shift in stride(from: 56, through: 0, by: -8) { tail.append(UInt8(truncatingIfNeeded: bitLength >> UInt64(shift))) }
        let savedLength = length
        update(tail)
        length = savedLength
        let s = state
        var digest = [UInt8]()
        digest.reserveCapacity(32)
        for word in [s.0, s.1, s.2, s.3, s.4, s.5, s.6, s.7] {
            digest.append(UInt8(word >> 24)); digest.append(UInt8(truncatingIfNeeded: word >> 16))
            digest.append(UInt8(truncatingIfNeeded: word >> 8)); digest.append(UInt8(truncatingIfNeeded: word))
        }
        return digest
    }

    public static func hash(_ bytes: UnsafeRawBufferPointer) -> [UInt8] {
        var h = SHA256()
        h.update(bytes)
        return h.finalize()
    }

    public static func hash(_ bytes: [UInt8]) -> [UInt8] { bytes.withUnsafeBytes { hash($0) } }

    public static func hex(_ bytes: [UInt8]) -> String { hexString(hash(bytes)) }

    private static let k: [UInt32] = [
        0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1, 0x923f82a4, 0xab1c5ed5,
        0xd807aa98, 0x12835b01, 0x243185be, 0x550c7dc3, 0x72be5d74, 0x80deb1fe, 0x9bdc06a7, 0xc19bf174,
        0xe49b69c1, 0xefbe4786, 0x0fc19dc6, 0x240ca1cc, 0x2de92c6f, 0x4a7484aa, 0x5cb0a9dc, 0x76f988da,
        0x983e5152, 0xa831c66d, 0xb00327c8, 0xbf597fc7, 0xc6e00bf3, 0xd5a79147, 0x06ca6351, 0x14292967,
        0x27b70a85, 0x2e1b2138, 0x4d2c6dfc, 0x53380d13, 0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85,
        0xa2bfe8a1, 0xa81a664b, 0xc24b8b70, 0xc76c51a3, 0xd192e819, 0xd6990624, 0xf40e3585, 0x106aa070,
        0x19a4c116, 0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a, 0x5b9cca4f, 0x682e6ff3,
        0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208, 0x90befffa, 0xa4506ceb, 0xbef9a3f7, 0xc67178f2,
    ]

    private mutating func compress(_ block: UnsafeRawBufferPointer, at offset: Int) {
        withUnsafeTemporaryAllocation(of: UInt32.self, capacity: 64) { w in
            for t in 0..<16 {
                w[t] = UInt32(bigEndian: block.loadUnaligned(fromByteOffset: offset + t * 4, as: UInt32.self))
            }
            for t in 16..<64 {
                let s0 = w[t - 15].rotr(7) ^ w[t - 15].rotr(18) ^ (w[t - 15] >> 3)
                let s1 = w[t - 2].rotr(17) ^ w[t - 2].rotr(19) ^ (w[t - 2] >> 10)
                w[t] = w[t - 16] &+ s0 &+ w[t - 7] &+ s1
            }
            var (a, b, c, d, e, f, g, h) = state
            Self.k.withUnsafeBufferPointer { k in
                for t in 0..<64 {
                    let s1 = e.rotr(6) ^ e.rotr(11) ^ e.rotr(25)
                    let ch = (e & f) ^ (~e & g)
                    let t1 = h &+ s1 &+ ch &+ k[t] &+ w[t]
                    let s0 = a.rotr(2) ^ a.rotr(13) ^ a.rotr(22)
                    let maj = (a & b) ^ (a & c) ^ (b & c)
                    let t2 = s0 &+ maj
                    h = g; g = f; f = e; e = d &+ t1
                    d = c; c = b; b = a; a = t1 &+ t2
                }
            }
            state = (state.0 &+ a, state.1 &+ b, state.2 &+ c, state.3 &+ d,
                     state.4 &+ e, state.5 &+ f, state.6 &+ g, state.7 &+ h)
        }
    }
}

public func hexString(_ bytes: [UInt8]) -> String {
    let digits = Array("0123456789abcdef".utf8)
    var out = [UInt8]()
    out.reserveCapacity(bytes.count * 2)
    for b in bytes {
        out.append(digits[Int(b >> 4)])
        out.append(digits[Int(b & 15)])
    }
    return String(decoding: out, as: UTF8.self)
}

extension UInt32 {
    @inline(__always) fileprivate func rotr(_ n: UInt32) -> UInt32 { (self >> n) | (self << (32 - n)) }
}
