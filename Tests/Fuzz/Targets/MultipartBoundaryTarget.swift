import Foundation
import Transport

/// `BoundaryScanner`, the search for the boundary in a file part as it streams. The first byte
/// sets the boundary's length (1 to 70, as RFC 2046 allows), the second how the content is cut
/// into chunks; the boundary's bytes follow, then the content.
///
/// Checks: the scanner reports the boundary exactly when a search of the whole content finds
/// it, and in the chunk where its first occurrence ends.
let multipartBoundaryTarget = FuzzTarget(
    name: "multipart-boundary",
    maximumLength: 1_024,
    summary: "found iff the whole content holds it, in the chunk where the first one ends"
) { buffer in
    var input = FuzzInput(buffer)
    let length = 1 + Int(input.byte()) % 70
    var seed = UInt64(input.byte()) | 1
    let boundary = Data(input.take(length))
    let content = Data(input.bytes)
    guard !boundary.isEmpty else { return }
    // Where the first occurrence ends, if any.
    let firstEnd = content.range(of: boundary)?.upperBound
    var scanner = BoundaryScanner(boundary: boundary)
    var start = content.startIndex
    var reported: Int?
    while start < content.endIndex {
        // A small generator: chunks of 1 to twice the boundary's length and a few bytes more.
        seed ^= seed << 13
        seed ^= seed >> 7
        seed ^= seed << 17
        let size = 1 + Int(seed % UInt64(2 * boundary.count + 3))
        let end = min(content.endIndex, start + size)
        if scanner.scan(content[start..<end]) {
            reported = end
            break
        }
        start = end
    }
    guard let firstEnd else {
        return check(reported == nil, "the boundary reported in content that does not hold it")
    }
    guard let reported else { return check(false, "a boundary ending at \(firstEnd) was not found") }
    check(
        reported >= firstEnd && reported - firstEnd < 2 * boundary.count + 3,
        "a boundary ending at \(firstEnd) reported with the chunk ending at \(reported)")
}
