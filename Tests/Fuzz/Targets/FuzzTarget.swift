/// One fuzz target: a parser, the longest input worth giving it, and what one input checks.
///
/// A target checks the parser's own invariants, not only that it returns: a broken one stops
/// the process through ``check(_:_:file:line:)``, which libFuzzer reports as a crash and saves
/// the input for.
struct FuzzTarget: Sendable {
    /// The name `PARLEY_FUZZ_TARGET` selects the target by, and the name of its corpus folder
    /// under `Tests/Fuzz/Corpus`.
    let name: String
    /// libFuzzer's `-max_len`: the longest input worth trying.
    let maximumLength: Int
    /// What the target checks, in a few words, for `PARLEY_FUZZ_TARGET=list`.
    let summary: String
    /// Runs one input.
    let run: @Sendable (UnsafeBufferPointer<UInt8>) -> Void
}

/// Every target, in the order `make fuzz` runs them.
let fuzzTargets: [FuzzTarget] = [
    responseHeadTarget,
    contentRangeTarget,
    retryAfterTarget,
    cacheControlTarget,
    keyPathTarget,
    envelopeTarget,
    downloadSidecarTarget,
    cacheEntryTarget,
    cacheJournalTarget,
    multipartBoundaryTarget,
    consoleTextTarget,
]

/// Stops the process with `message` when `condition` is false: a broken invariant is a crash
/// to libFuzzer, which saves the input that caused it.
///
/// - Parameters:
///   - condition: The invariant.
///   - message: What broke, with the values involved.
func check(
    _ condition: Bool,
    _ message: @autoclosure () -> String,
    file: StaticString = #fileID,
    line: UInt = #line
) {
    guard !condition else { return }
    fatalError("invariant broken: \(message())", file: file, line: line)
}

/// Reads typed values from the front of an input; past its end every value is zero.
struct FuzzInput {
    private(set) var bytes: ArraySlice<UInt8>

    init(_ buffer: UnsafeBufferPointer<UInt8>) {
        bytes = Array(buffer)[...]
    }

    /// The next byte, or 0 past the end.
    mutating func byte() -> UInt8 { bytes.popFirst() ?? 0 }

    /// The next eight bytes as a little-endian number.
    mutating func uint64() -> UInt64 {
        var value: UInt64 = 0
        for shift in 0..<8 { value |= UInt64(byte()) << (8 * UInt64(shift)) }
        return value
    }

    /// The next `count` bytes (fewer at the end).
    mutating func take(_ count: Int) -> ArraySlice<UInt8> {
        let taken = bytes.prefix(count)
        bytes = bytes.dropFirst(count)
        return taken
    }

    /// The bytes up to the next `separator` (dropped), or all that is left.
    mutating func field(until separator: UInt8) -> ArraySlice<UInt8> {
        guard let end = bytes.firstIndex(of: separator) else { return take(bytes.count) }
        let taken = bytes[..<end]
        bytes = bytes[(end + 1)...]
        return taken
    }

    /// What is left, as UTF-8 (invalid sequences become U+FFFD, as a server's text does).
    var text: String { String(decoding: bytes, as: UTF8.self) }
}
