/// SplitMix64 (Steele, Lea and Flood, 2014): a tiny pseudo-random generator whose sequence is
/// fixed by its seed, on every platform and in every Swift version.
///
/// The mock server uses it wherever "random" must be reproducible: the chaos of
/// ``FaultInjector``, the generated forecasts and the radar bytes. It is not for cryptography.
/// Its helpers do their own arithmetic rather than `Int.random(in:using:)`, whose algorithm
/// the standard library does not promise to keep.
struct SplitMix64: RandomNumberGenerator, Sendable {
    /// The generator's state: the seed, advanced by the golden-ratio increment per draw.
    private var state: UInt64

    /// A generator whose sequence is fixed by `seed`.
    init(seed: UInt64) {
        state = seed
    }

    /// The next 64 pseudo-random bits.
    mutating func next() -> UInt64 {
        state &+= 0x9e37_79b9_7f4a_7c15
        var mixed = state
        mixed = (mixed ^ (mixed >> 30)) &* 0xbf58_476d_1ce4_e5b9
        mixed = (mixed ^ (mixed >> 27)) &* 0x94d0_49bb_1331_11eb
        return mixed ^ (mixed >> 31)
    }

    /// A number in `0 ..< 1` with 53 random bits.
    mutating func nextUnitInterval() -> Double {
        Double(next() >> 11) * 0x1.0p-53
    }

    /// A number in `range`, by modulo: the bias is below 2⁻⁵⁰ for the small ranges used here.
    mutating func next(in range: ClosedRange<Int>) -> Int {
        let width = UInt64(range.upperBound - range.lowerBound) + 1
        return range.lowerBound + Int(next() % width)
    }
}
