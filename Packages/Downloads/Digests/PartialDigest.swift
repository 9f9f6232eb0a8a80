/// The SHA-256 of a partial file's bytes, kept up to date while the download appends them, so
/// that a finished download is verified without reading the whole file a second time.
///
/// The invariant: the hasher has been fed exactly the partial's first ``length`` bytes, in
/// order. A run keeps it with three moves, one for each thing that happens to the partial:
///
/// - bytes already on disk when the run starts (a resumed download) are read back once, off
///   the cooperative pool, by ``prefix(of:length:)``;
/// - every chunk the run appends is fed by ``append(_:)`` right after it is written;
/// - a truncation to zero (a new version of the file) starts over with ``reset()``.
///
/// Hashing as the bytes arrive overlaps the digest with the network instead of adding a pass
/// over the file at the end: for a 1 GiB download the second pass cost more than a third of
/// the download's time (docs/BENCHMARKS.md). What is hashed is what was written to the
/// partial, which holds the lock on it for the whole run, so it is the file that is renamed
/// into place.
struct PartialDigest {
    private var hasher = SHA256Hasher()
    /// How many bytes of the partial the hasher has been fed.
    private(set) var length: Int64 = 0

    /// A digest of the empty partial.
    init() {}

    /// Feeds the bytes just appended to the partial.
    mutating func append(_ bytes: UnsafeRawBufferPointer) {
        hasher.update(bytes)
        length += Int64(bytes.count)
    }

    /// Starts over, after the partial was truncated to zero.
    mutating func reset() {
        self = PartialDigest()
    }

    /// The digest of everything fed, in lowercase hexadecimal.
    mutating func finalizeHex() -> String {
        hasher.finalizeHex()
    }

    /// The digest of the first `length` bytes already in `file`, read on a thread of its own.
    static func prefix(of file: PartialFile, length: Int64) async throws -> PartialDigest {
        try await BlockingWork.run {
            var digest = PartialDigest()
            try file.read(upTo: length) { digest.append($0) }
            return HandOver(digest: digest)
        }.digest
    }
}

/// Carries a digest built on a blocking thread back to the task that awaits it.
///
/// `@unchecked Sendable` is safe here: the blocking closure creates the digest, returns it in
/// this box and keeps no reference to it, so its hasher is used by one thread at a time: the
/// closure's until it returns, then the awaiting task's.
private struct HandOver: @unchecked Sendable {
    var digest: PartialDigest
}
