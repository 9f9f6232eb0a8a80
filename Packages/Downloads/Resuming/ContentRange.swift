/// A `Content-Range` header of a byte range: `bytes 100-199/1000`, `bytes 100-199/*` or
/// `bytes */1000` (RFC 9110 §14.4).
///
/// ```swift
/// let range = ContentRange("bytes 1048576-2097151/2097152")
/// // range?.range == 1048576...2097151, range?.completeLength == 2097152
/// ```
public struct ContentRange: Sendable, Hashable {
    /// The first and last positions of the bytes sent, or `nil` in a `416`'s `bytes */length`.
    public var range: ClosedRange<Int64>?
    /// The length of the whole representation, or `nil` when the server wrote `*`.
    public var completeLength: Int64?

    /// Creates a content range.
    ///
    /// - Parameters:
    ///   - range: The positions sent, `nil` for an unsatisfied range.
    ///   - completeLength: The whole length, when known.
    public init(range: ClosedRange<Int64>?, completeLength: Int64?) {
        self.range = range
        self.completeLength = completeLength
    }

    /// Parses a `Content-Range` value.
    ///
    /// - Parameter value: The header's value.
    /// - Returns: `nil` unless the unit is `bytes` and the numbers are consistent: a last
    ///   position before the first, or at or past a known complete length, is refused, and so
    ///   is `*/*`.
    public init?(_ value: String) {
        let text = value.trimmingASCIISpaces
        guard text.count > 6, text.prefix(6).lowercased() == "bytes " else { return nil }
        let spec = String(text.dropFirst(6)).trimmingASCIISpaces
        let halves = spec.split(separator: "/", maxSplits: 1, omittingEmptySubsequences: false)
        guard halves.count == 2 else { return nil }

        var complete: Int64?
        if halves[1] != "*" {
            guard let length = Self.number(halves[1]) else { return nil }
            complete = length
        }
        if halves[0] == "*" {
            guard let complete else { return nil }
            self.init(range: nil, completeLength: complete)
            return
        }
        let positions = halves[0].split(separator: "-", maxSplits: 1, omittingEmptySubsequences: false)
        guard positions.count == 2, let first = Self.number(positions[0]), let last = Self.number(positions[1]),
            first <= last
        else { return nil }
        if let complete, last >= complete { return nil }
        self.init(range: first...last, completeLength: complete)
    }

    /// A non-negative decimal number of at most 18 digits (so it fits an `Int64`).
    private static func number(_ text: Substring) -> Int64? {
        guard !text.isEmpty, text.count <= 18, text.utf8.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }) else { return nil }
        return Int64(text)
    }
}
