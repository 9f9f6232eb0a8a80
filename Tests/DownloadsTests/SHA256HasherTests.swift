import Downloads
import Testing

@Suite struct SHA256HasherTests {
    @Test(arguments: [
        ("", "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"),
        ("abc", "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"),
        (
            "abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq",
            "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1"
        ),
    ])
    func matchesTheFIPSExampleVectors(message: String, digest: String) {
        #expect(SHA256Hasher.hexDigest(of: Array(message.utf8)) == digest)
    }

    @Test func hashesAMillionAsInPiecesOfAnySize() {
        // FIPS 180-4's long vector, fed in pieces that straddle block boundaries.
        let message = [UInt8](repeating: UInt8(ascii: "a"), count: 1_000_000)
        var hasher = SHA256Hasher()
        var offset = 0
        var piece = 1
        while offset < message.count {
            let end = min(message.count, offset + piece)
            message[offset..<end].withUnsafeBytes { hasher.update($0) }
            offset = end
            piece = piece * 3 % 1000 + 1
        }
        #expect(hasher.finalizeHex() == "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0")
    }

    @Test func startsOverFromTheEmptyMessageAfterFinalizing() {
        var hasher = SHA256Hasher()
        hasher.update(Array("abc".utf8))
        _ = hasher.finalizeHex()
        #expect(hasher.finalizeHex() == "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855")
    }
}
