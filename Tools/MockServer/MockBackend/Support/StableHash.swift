/// Hashes that are the same in every process and on every run, unlike `Hasher`, whose seed is
/// random per process: the mock server derives content from them that tests compare across
/// requests and across servers.
enum StableHash {
    /// 64-bit FNV-1a of the UTF-8 bytes of `text`.
    ///
    /// - Parameter text: Any text; its UTF-8 bytes are hashed as they are (no normalisation).
    /// - Returns: The hash, such as `0xcbf2_9ce4_8422_2325` for the empty string.
    static func fnv1a(_ text: String) -> UInt64 {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in text.utf8 {
            hash = (hash ^ UInt64(byte)) &* 0x0000_0100_0000_01b3
        }
        return hash
    }

    /// `value` as 16 lowercase hexadecimal digits, zero-padded.
    static func hex(_ value: UInt64) -> String {
        let digits = String(value, radix: 16)
        return String(repeating: "0", count: 16 - digits.count) + digits
    }
}
