internal import CCrypto

/// SHA-256 through OpenSSL's libcrypto, streaming. Used for attachment digests, ids of messages
/// without a Message-ID, and participant keys.
public final class SHA256 {
    private var context = SHA256_CTX()

    public init() {
        SHA256_Init(&context)
    }

    public func update(_ bytes: UnsafeRawBufferPointer) {
        guard let base = bytes.baseAddress, bytes.count > 0 else { return }
        SHA256_Update(&context, base, bytes.count)
    }

    public func update(_ bytes: [UInt8]) { bytes.withUnsafeBytes { update($0) } }

    /// The digest; the object is not to be used after.
    public func finalize() -> [UInt8] {
        var digest = [UInt8](repeating: 0, count: 32)
        digest.withUnsafeMutableBufferPointer { _ = SHA256_Final($0.baseAddress, &context) }
        return digest
    }

    /// (OpenSSL's one-call SHA256() fetches the digest as EVP does.)
    public static func hash(_ bytes: UnsafeRawBufferPointer) -> [UInt8] {
        let hasher = SHA256()
        hasher.update(bytes)
        return hasher.finalize()
    }

    public static func hash(_ bytes: [UInt8]) -> [UInt8] { bytes.withUnsafeBytes { hash($0) } }

    public static func hex(_ bytes: [UInt8]) -> String { hexString(hash(bytes)) }
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
