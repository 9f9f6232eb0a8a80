import CMockServerSystem

/// An incremental SHA-256 by OpenSSL's libcrypto, for the digests the server reports of the
/// bodies it receives.
///
/// One owner at a time: copies share the digest context, so only the latest copy is updated.
struct SHA256 {
    private let context = DigestContext()

    /// Feeds the next bytes of the message.
    mutating func update(_ bytes: UnsafeRawBufferPointer) {
        guard let base = bytes.baseAddress, !bytes.isEmpty else { return }
        _ = EVP_DigestUpdate(context.pointer, base, bytes.count)
    }

    /// The digest of everything fed, in lowercase hexadecimal.
    mutating func finalizeHex() -> String {
        var digest = [UInt8](repeating: 0, count: Int(EVP_MAX_MD_SIZE))
        var length: UInt32 = 0
        _ = digest.withUnsafeMutableBufferPointer { EVP_DigestFinal_ex(context.pointer, $0.baseAddress, &length) }
        return digest.prefix(Int(length)).map { byte in
            let hex = String(byte, radix: 16)
            return byte < 16 ? "0" + hex : hex
        }.joined()
    }
}

/// An `EVP_MD_CTX` set up for SHA-256, freed with its owner.
private final class DigestContext {
    let pointer: OpaquePointer? = EVP_MD_CTX_new()

    init() {
        _ = EVP_DigestInit_ex(pointer, EVP_sha256(), nil)
    }

    deinit {
        EVP_MD_CTX_free(pointer)
    }
}
