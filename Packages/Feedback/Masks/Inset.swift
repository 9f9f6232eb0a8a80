/// Space kept free around a mask, in columns: MBNetwork's `inset`.
public struct Inset: Sendable, Hashable {
    /// Columns left free before the mask.
    public var leading: Int
    /// Columns left free after it.
    public var trailing: Int

    /// No inset.
    public static let zero = Inset(leading: 0, trailing: 0)

    /// Creates an inset; negative values count as zero.
    public init(leading: Int = 0, trailing: Int = 0) {
        self.leading = max(0, leading)
        self.trailing = max(0, trailing)
    }
}
