import Foundation

/// Runs blocking file work (`fsync`, hashing a whole file) on a thread of its own, so it never
/// holds one of the few threads of Swift's cooperative pool for long.
enum BlockingWork {
    /// Runs `work` on a new thread and returns its result.
    static func run<T: Sendable>(_ work: @escaping @Sendable () throws -> T) async throws -> T {
        try await withCheckedThrowingContinuation { continuation in
            let thread = Thread {
                continuation.resume(with: Result { try work() })
            }
            thread.name = "parley-download-io"
            thread.start()
        }
    }
}
