import Dispatch
import Foundation
import Transport

/// The SHA-256 of a partial file's bytes, computed on a thread of its own while the download
/// appends them, so that a finished download is verified without reading the whole file again
/// and without slowing the task that writes it.
///
/// The invariant: once the queued work has run, the hasher has been fed exactly the partial's
/// first ``finalize()``-reported length of bytes, in order. A run keeps it with three moves,
/// one for each thing that happens to the partial:
///
/// - bytes already on disk when the run starts (a resumed download) are read back once, off
///   the cooperative pool, by ``prefix(of:length:)``;
/// - every chunk the run appends is handed over by ``append(_:)`` right after it is written;
/// - a truncation to zero (a new version of the file) starts over with ``reset()``.
///
/// The chunks are hashed in order on a serial dispatch queue, in parallel with the network and
/// the writes. ``append(_:)`` returns at once unless more than ``backlogLimit`` bytes wait to
/// be hashed, so memory stays bounded when hashing is slower than the network. What is hashed
/// is what was written to the partial, which the run keeps locked, so it is the file that is
/// renamed into place.
final class PartialDigest: @unchecked Sendable {
    // `@unchecked Sendable` is safe because the two mutable stored properties, `hasher` and
    // `length`, are read and written only by blocks running on `queue`, a serial queue that runs
    // one block at a time in submission order; `backlog` is a `PThreadMutex`; the rest is immutable.
    private let queue = DispatchQueue(label: "parley.download.digest")
    private var hasher: SHA256Hasher
    private var length: Int64
    private let backlog = PThreadMutex(Backlog())

    /// How many appended bytes may wait to be hashed before ``append(_:)`` waits: 8 MiB.
    static let backlogLimit = 8 << 20

    private struct Backlog {
        var bytes = 0
        var waiter: CheckedContinuation<Void, Never>?
    }

    /// A digest of the empty partial.
    convenience init() {
        self.init(hasher: SHA256Hasher(), length: 0)
    }

    private init(hasher: SHA256Hasher, length: Int64) {
        self.hasher = hasher
        self.length = length
    }

    /// Hands over the bytes just appended to the partial; waits only while the backlog is full.
    func append(_ chunk: Data) async {
        let count = chunk.count
        backlog.withLock { $0.bytes += count }
        queue.async { [self] in
            chunk.withUnsafeBytes { hasher.update($0) }
            length += Int64(count)
            let waiter = backlog.withLock { backlog -> CheckedContinuation<Void, Never>? in
                backlog.bytes -= count
                guard backlog.bytes <= Self.backlogLimit else { return nil }
                defer { backlog.waiter = nil }
                return backlog.waiter
            }
            waiter?.resume()
        }
        await withCheckedContinuation { continuation in
            let full = backlog.withLock { backlog in
                guard backlog.bytes > Self.backlogLimit else { return false }
                backlog.waiter = continuation
                return true
            }
            if !full { continuation.resume() }
        }
    }

    /// Starts over, after the partial was truncated to zero.
    func reset() {
        queue.async { [self] in
            hasher = SHA256Hasher()
            length = 0
        }
    }

    /// Waits for every chunk handed over to be hashed, then returns the digest, in lowercase
    /// hexadecimal, and how many bytes it covers.
    func finalize() async -> (hex: String, length: Int64) {
        await withCheckedContinuation { continuation in
            queue.async { [self] in
                continuation.resume(returning: (hasher.finalizeHex(), length))
            }
        }
    }

    /// The digest of the first `length` bytes already in `file`, read on a thread of its own.
    static func prefix(of file: PartialFile, length: Int64) async throws -> PartialDigest {
        try await BlockingWork.run {
            var hasher = SHA256Hasher()
            try file.read(upTo: length) { hasher.update($0) }
            return PartialDigest(hasher: hasher, length: length)
        }
    }
}
