import NIOConcurrencyHelpers

/// What `/cache` has served, per key: how many full responses, and which version of the
/// resource is current (unsafe methods move it on).
final class CacheLedger: Sendable {
    private struct Resource {
        var served = 0
        var version = 0
    }

    private let resources = NIOLockedValueBox<[String: Resource]>([:])

    /// Counts one more full response for `key`.
    ///
    /// - Returns: How many full responses `key` has had, this one included.
    func serve(_ key: String) -> Int {
        resources.withLockedValue { resources in
            resources[key, default: Resource()].served += 1
            return resources[key, default: Resource()].served
        }
    }

    /// How many full responses `key` has had.
    func servedCount(of key: String) -> Int {
        resources.withLockedValue { $0[key]?.served ?? 0 }
    }

    /// The current version of `key`, 0 until an unsafe method changes it.
    func version(of key: String) -> Int {
        resources.withLockedValue { $0[key]?.version ?? 0 }
    }

    /// Moves `key` to its next version.
    ///
    /// - Returns: The new version.
    func change(_ key: String) -> Int {
        resources.withLockedValue { resources in
            resources[key, default: Resource()].version += 1
            return resources[key, default: Resource()].version
        }
    }
}
