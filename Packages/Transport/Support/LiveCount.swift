import Synchronization

/// How many objects of one kind are alive: incremented when one is made, decremented when it
/// goes, so that Parley's tests can prove a workload leaves none behind.
///
/// The counts are `package`: only Parley's own modules and tests read them. Each costs one
/// relaxed atomic add when an object is made and one when it goes, nothing else; the counted
/// objects (handles, cores, transfers, easy handles, stream buffers) are made once per request
/// at most, beside allocations and locks that cost more. Relaxed ordering is enough for a
/// count that is read after the work it counts has finished: the test reads it once the
/// transport has shut down and every handle is released, and polls until it settles.
package final class LiveCount: Sendable {
    /// What is counted, as a test names it when the count is not zero.
    package let name: String
    /// A single integer, so an atomic rather than a lock (see CONTRIBUTING.md, Locks).
    private let count = Atomic<Int>(0)

    /// A count of `name`, starting at zero.
    package init(_ name: String) {
        self.name = name
    }

    /// How many are alive now.
    package var value: Int { count.load(ordering: .relaxed) }

    /// Counts one more: call it when one is made.
    @inline(__always)
    package func increment() {
        count.add(1, ordering: .relaxed)
    }

    /// Counts one less: call it when one goes.
    @inline(__always)
    package func decrement() {
        count.subtract(1, ordering: .relaxed)
    }
}

/// The live counts of Parley's own objects, read by its leak tests.
package enum LiveCounts {
    /// `RequestHandle`s alive.
    package static let requestHandles = LiveCount("request handles (RequestHandle)")
    /// `RequestCore`s alive: one per handle, more for derived handles.
    package static let requestCores = LiveCount("request cores (RequestCore)")
    /// `CurlTransfer`s alive: one per attempt sent on a `CurlTransport`.
    package static let curlTransfers = LiveCount("transfers (CurlTransfer)")
    /// libcurl easy handles alive, from `curl_easy_init` to `curl_easy_cleanup`.
    package static let easyHandles = LiveCount("libcurl easy handles")
    /// Easy handles a transfer holds now (checked out of the engine's pool, or new).
    package static let easyHandlesCheckedOut = LiveCount("libcurl easy handles checked out")
    /// Easy handles in an engine's pool of idle handles, kept for the next transfer.
    package static let easyHandlesPooled = LiveCount("libcurl easy handles pooled")
    /// Streamed response bodies' buffers (`ResponseStreamBuffer`) alive.
    package static let responseStreamBuffers = LiveCount("response stream buffers (ResponseStreamBuffer)")
    /// Streamed upload bodies' buffers (`UploadStreamBuffer`) alive.
    package static let uploadStreamBuffers = LiveCount("upload stream buffers (UploadStreamBuffer)")
    /// Blocks of streamed response bytes not yet given back (`ResponseBlocks`): being filled,
    /// waiting for the consumer, or in a `Data` the consumer holds. Blocks kept for reuse are
    /// not counted.
    package static let responseBlocks = LiveCount("streamed response blocks (ResponseBlocks)")

    /// Every count, in the order above.
    package static let all: [LiveCount] = [
        requestHandles, requestCores, curlTransfers, easyHandles, easyHandlesCheckedOut, easyHandlesPooled,
        responseStreamBuffers, uploadStreamBuffers, responseBlocks,
    ]
}
