package import Testing

/// Polls `condition` every 5 ms until it holds, recording an issue and throwing after
/// `timeout` (30 seconds by default): how a test waits for something it can observe (a request
/// the server recorded, a state, a file's size) instead of sleeping and hoping.
package func waitUntil(
    timeout: Duration = .seconds(30),
    sourceLocation: SourceLocation = #_sourceLocation,
    _ condition: () async throws -> Bool
) async throws {
    let deadline = ContinuousClock.now + timeout
    while try await !condition() {
        guard ContinuousClock.now < deadline else {
            Issue.record("condition not met within \(timeout)", sourceLocation: sourceLocation)
            throw CancellationError()
        }
        try await Task.sleep(for: .milliseconds(5))
    }
}
