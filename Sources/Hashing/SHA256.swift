internal import CCrypto

/// SHA-256 through OpenSSL's libcrypto, streaming. Used for attachment digests, ids of messages
/// without a Message-ID, and participant keys.
public final class SHA256 {
    private let context: OpaquePointer

    /// The algorithm, fetched once: EVP_sha256() is fetched again from the provider at each use.
    /// OpenSSL's configuration file is not read for it (nothing of a digest is configured there).
    private nonisolated(unsafe) static let algorithm: OpaquePointer? = {
        OPENSSL_init_crypto(UInt64(OPENSSL_INIT_NO_LOAD_CONFIG), nil)
        return EVP_MD_fetch(nil, "SHA256", nil)
    }()

    public init() {
        context = EVP_MD_CTX_new()
        EVP_DigestInit_ex(context, Self.algorithm, nil)
    }

    deinit { EVP_MD_CTX_free(context) }

    public func update(_ bytes: UnsafeRawBufferPointer) {
        guard let base = bytes.baseAddress, bytes.count > 0 else { return }
        EVP_DigestUpdate(context, base, bytes.count)
    }

    public func update(_ bytes: [UInt8]) { bytes.withUnsafeBytes { update($0) } }

    /// The digest; the object is not to be used after.
    public func finalize() -> [UInt8] {
        var digest = [UInt8](repeating: 0, count: 32)
        var length: UInt32 = 0
        digest.withUnsafeMutableBufferPointer { _ = EVP_DigestFinal_ex(context, $0.baseAddress, &length) }
        return digest
    }

    public static func hash(_ bytes: UnsafeRawBufferPointer) -> [UInt8] {
        var digest = [UInt8](repeating: 0, count: 32)
        var length: UInt32 = 0
        digest.withUnsafeMutableBufferPointer {
            _ = EVP_Digest(bytes.baseAddress ?? UnsafeRawPointer(bitPattern: 1), bytes.count, $0.baseAddress, &length, algorithm, nil)
        }
        return digest
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
