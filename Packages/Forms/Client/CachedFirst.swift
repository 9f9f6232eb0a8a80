import Caching
import Foundation
import HTTPTypes
import Transport

/// The turns of a request that delivers the cached answer first, then the network's: the
/// first run may answer from the cache; if it did, the handle runs again for the network.
final class CachedFirst: Sendable {
    private enum Turn {
        /// The next run may answer from the cache.
        case cache
        /// The cache answered; the handle is to run again for the network.
        case followUp
        /// The runs from now on ask the network, revalidating what the cache holds.
        case network
    }

    private let turn = PThreadMutex(Turn.cache)

    /// Whether this run may answer from the cache; only the first may.
    func takesCacheTurn() -> Bool {
        turn.withLock { turn in
            guard case .cache = turn else { return false }
            turn = .network
            return true
        }
    }

    /// Records that the cache answered, so that the handle runs again.
    func cacheAnswered() {
        turn.withLock { $0 = .followUp }
    }

    /// Whether the handle is to run again now, for the network; true once.
    func takesFollowUp() -> Bool {
        turn.withLock { turn in
            guard case .followUp = turn else { return false }
            turn = .network
            return true
        }
    }

    /// What the client's cache holds for `request`, collected, or `nil`.
    static func cachedResponse(
        for request: TransportRequest, in configuration: ClientConfiguration
    ) async throws -> DataResponse? {
        guard let cache = configuration.middleware.lazy.compactMap({ $0 as? HTTPCache }).first,
            let stored = await cache.cachedResponse(for: request)
        else { return nil }
        let body = try await stored.body.collect(upTo: request.options.maximumBodySize)
        return DataResponse(head: stored.head, body: body, url: stored.url)
    }
}
