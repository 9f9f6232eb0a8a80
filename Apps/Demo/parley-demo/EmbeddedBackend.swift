import MockBackend

/// The mock backend, run inside parley-demo on `127.0.0.1` and a port the kernel picks, for as
/// long as a command needs it.
final class EmbeddedBackend: Sendable {
    /// The running server.
    let server: MockServer
    private let task: Task<Void, any Error>

    private init(server: MockServer, task: Task<Void, any Error>) {
        self.server = server
        self.task = task
    }

    /// Starts the backend and returns once it is listening.
    ///
    /// - Throws: The bind error, or ``EmbeddedBackendError`` when it stopped before listening.
    static func start() async throws -> EmbeddedBackend {
        let (started, continuation) = AsyncStream.makeStream(of: MockServer.self)
        let task = Task {
            defer { continuation.finish() }
            try await MockServer.run(host: "127.0.0.1", port: 0) { server in continuation.yield(server) }
        }
        guard let server = await started.first(where: { _ in true }) else {
            // It stopped before listening: its error says why.
            try await task.value
            throw EmbeddedBackendError()
        }
        return EmbeddedBackend(server: server, task: task)
    }

    /// Stops the backend: closes its listener and connections, and returns once it has.
    func stop() async {
        task.cancel()
        _ = await task.result
    }
}

/// The embedded backend stopped before it was listening, without an error of its own.
struct EmbeddedBackendError: Error, CustomStringConvertible {
    var description: String { "the embedded backend stopped before it was listening on 127.0.0.1" }
}
