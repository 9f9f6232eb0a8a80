/// A single `Range: bytes=…` request header, resolved against a body length (RFC 9110 §14).
enum ByteRange: Equatable {
    /// The header asked for bytes `lowerBound ..< upperBound` of the body.
    case satisfiable(Range<Int>)
    /// The header asked only for bytes past the end: answer 416.
    case unsatisfiable

    /// Resolves `header` against a body of `length` bytes.
    ///
    /// Supports one range of the forms `a-b`, `a-` and `-suffix`.
    ///
    /// - Returns: The range, or `nil` when the header is not one byte range (the server then
    ///   ignores it and sends the whole body, as RFC 9110 allows).
    static func parse(_ header: String, length: Int) -> ByteRange? {
        guard header.hasPrefix("bytes=") else { return nil }
        let spec = header.dropFirst("bytes=".count).trimmingSpaces
        guard !spec.contains(","), let dash = spec.firstIndex(of: "-") else { return nil }
        let first = spec[..<dash].trimmingSpaces
        let last = spec[spec.index(after: dash)...].trimmingSpaces

        if first.isEmpty {
            // "-N": the last N bytes.
            guard let suffix = Int(last), suffix >= 0 else { return nil }
            guard suffix > 0, length > 0 else { return .unsatisfiable }
            return .satisfiable(max(0, length - suffix)..<length)
        }
        guard let start = Int(first), start >= 0 else { return nil }
        let end: Int
        if last.isEmpty {
            end = length - 1
        } else {
            guard let value = Int(last), value >= start else { return nil }
            end = min(value, length - 1)
        }
        guard start < length else { return .unsatisfiable }
        return .satisfiable(start..<(end + 1))
    }
}

extension StringProtocol {
    /// The text without leading and trailing spaces and tabs.
    fileprivate var trimmingSpaces: Substring {
        let trimmed = self.drop { $0 == " " || $0 == "\t" }
        var end = trimmed.endIndex
        while end > trimmed.startIndex {
            let before = trimmed.index(before: end)
            guard trimmed[before] == " " || trimmed[before] == "\t" else { break }
            end = before
        }
        return Substring(trimmed[trimmed.startIndex..<end])
    }
}
