import Downloads

/// `ContentRange`, on any text.
///
/// Checks: a parsed range has `0 <= first <= last`, `last < total` when the total is known,
/// and a total whenever it has no range (`bytes */total`); written back in the canonical form,
/// it parses to the same value.
let contentRangeTarget = FuzzTarget(
    name: "content-range",
    maximumLength: 128,
    summary: "0 <= start <= end < total; canonical form parses back the same"
) { buffer in
    let text = FuzzInput(buffer).text
    guard let parsed = ContentRange(text) else { return }
    if let range = parsed.range {
        check(range.lowerBound >= 0, "start \(range.lowerBound) in \(text.debugDescription)")
        if let total = parsed.completeLength {
            check(range.upperBound < total, "end \(range.upperBound) >= total \(total) in \(text.debugDescription)")
        }
    } else {
        check(parsed.completeLength != nil, "neither range nor total in \(text.debugDescription)")
    }
    if let total = parsed.completeLength { check(total >= 0, "total \(total)") }
    let positions = parsed.range.map { "\($0.lowerBound)-\($0.upperBound)" } ?? "*"
    let canonical = "bytes \(positions)/\(parsed.completeLength.map(String.init) ?? "*")"
    check(ContentRange(canonical) == parsed, "\(canonical) does not parse back as \(text.debugDescription) did")
}
