import CLibCrypto

/// An incremental SHA-256, computed by OpenSSL's libcrypto.
///
/// libcrypto is the library libcurl already links, so verifying downloads adds no package to
/// a Parley user's build; its SHA-256 uses the CPU's SHA extensions where they exist (several
/// GB/s on one core). The hasher is visible to the modules and tests of this package only: it
/// is how a download checks its bytes, not a general cryptography API (use swift-crypto for
/// that).
///
/// ```swift
/// var hasher = SHA256Hasher()
/// hasher.update(Array("abc".utf8))
/// hasher.finalizeHex()  // "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"
/// ```
///
/// A hasher is a value with one owner at a time. Its digest context lives in a class that
/// copies share, so a copy must not be updated after the original is: a download keeps
/// exactly one.
package struct SHA256Hasher {
    private let context: DigestContext

    /// Creates a hasher of the empty message.
    package init() {
        context = DigestContext()
    }

    /// Feeds the next bytes of the message.
    package mutating func update(_ bytes: UnsafeRawBufferPointer) {
        guard let base = bytes.baseAddress, !bytes.isEmpty else { return }
        context.update(base, count: bytes.count)
    }

    /// Feeds the next bytes of the message.
    package mutating func update(_ bytes: some Sequence<UInt8>) {
        let handled: Void? = bytes.withContiguousStorageIfAvailable { update(UnsafeRawBufferPointer($0)) }
        if handled == nil {
            Array(bytes).withUnsafeBytes { update($0) }
        }
    }

    /// The digest of everything fed so far, as 64 lowercase hexadecimal characters, as
    /// `sha256sum` prints it. The hasher starts again from the empty message afterwards.
    package mutating func finalizeHex() -> String {
        let digest = context.finalize()
        let hexDigits = Array("0123456789abcdef".utf8)
        var hex = [UInt8]()
        hex.reserveCapacity(digest.count * 2)
        for byte in digest {
            hex.append(hexDigits[Int(byte >> 4)])
            hex.append(hexDigits[Int(byte & 0x0F)])
        }
        return String(decoding: hex, as: UTF8.self)
    }

    /// The SHA-256 of `bytes`, in lowercase hexadecimal.
    package static func hexDigest(of bytes: some Sequence<UInt8>) -> String {
        var hasher = SHA256Hasher()
        hasher.update(bytes)
        return hasher.finalizeHex()
    }
}

/// An `EVP_MD_CTX` set up for SHA-256, freed with its owner.
private final class DigestContext {
    private let pointer: OpaquePointer?

    init() {
        pointer = EVP_MD_CTX_new()
        reset()
    }

    deinit {
        EVP_MD_CTX_free(pointer)
    }

    /// Starts a new message. libcrypto fails here only when it is out of memory; ``finalize()``
    /// then returns no bytes, an empty digest that matches no expected one, so a download fails
    /// its check instead of passing it or crashing.
    private func reset() {
        _ = EVP_DigestInit_ex(pointer, EVP_sha256(), nil)
    }

    func update(_ base: UnsafeRawPointer, count: Int) {
        _ = EVP_DigestUpdate(pointer, base, count)
    }

    func finalize() -> [UInt8] {
        var digest = [UInt8](repeating: 0, count: Int(EVP_MAX_MD_SIZE))
        var length: UInt32 = 0
        _ = digest.withUnsafeMutableBufferPointer { EVP_DigestFinal_ex(pointer, $0.baseAddress, &length) }
        reset()
        return Array(digest.prefix(Int(length)))
    }
}
