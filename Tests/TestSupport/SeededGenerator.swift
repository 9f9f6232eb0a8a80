/// SplitMix64 (Steele, Lea and Flood, 2014): a random number generator whose sequence is fixed by
/// its seed, so that a test that draws its cases can report the seed of a failure and draw it
/// again. Not for cryptography.
public struct SeededGenerator: RandomNumberGenerator, Sendable {
    /// The state: the seed, advanced by the golden-ratio increment on every draw.
    public private(set) var state: UInt64

    /// A generator whose sequence is fixed by `seed`.
    public init(seed: UInt64) {
        state = seed
    }

    /// The next 64 pseudo-random bits.
    public mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var mixed = state
        mixed = (mixed ^ (mixed >> 30)) &* 0xBF58_476D_1CE4_E5B9
        mixed = (mixed ^ (mixed >> 27)) &* 0x94D0_49BB_1331_11EB
        return mixed ^ (mixed >> 31)
    }
}
