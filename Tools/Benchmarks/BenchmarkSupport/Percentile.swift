/// The nearest-rank percentile of an ascending sample.
///
/// The value at 1-based rank `⌈p / 100 × n⌉`, clamped to `1...n`: the smallest sample such that at least `p`
/// percent of the samples are less than or equal to it. Every peer, the C baseline included, uses this definition.
///
/// - Parameters:
///   - p: The percentile, in `0...100`.
///   - sorted: The samples in ascending order.
/// - Returns: The percentile, or 0 for an empty sample.
public func percentile(_ p: Double, ofSorted sorted: [Double]) -> Double {
    guard !sorted.isEmpty else { return 0 }
    let rank = Int((p / 100 * Double(sorted.count)).rounded(.up))
    let index = min(max(rank, 1), sorted.count) - 1
    return sorted[index]
}
