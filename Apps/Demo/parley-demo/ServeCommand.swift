import ArgumentParser
import Foundation
import MockBackend

/// `parley-demo serve`: the backend alone, for other clients (or another parley-demo with
/// `--server`).
struct ServeCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "serve",
        abstract: "Run the demo backend until Ctrl-C.",
        discussion: """
            Prints one line, "listening on http://HOST:PORT", once the port is bound, and runs \
            until Ctrl-C or SIGTERM, which stop it with status 0 (stopping is how it ends). With --chaos \
            RATE, that share of the business requests fails: the connection drops without an answer, \
            or the server answers 503 with Retry-After: 1. Faults can also be scripted per route \
            through POST /faults/script, /faults/delay, /faults/chaos and /faults/reset.
            """
    )

    @Option(help: ArgumentHelp("The port to listen on; 0 picks a free one.", valueName: "n"))
    var port = 0

    @Option(help: ArgumentHelp("The address to listen on.", valueName: "address"))
    var host = "127.0.0.1"

    @Option(help: ArgumentHelp("The share of business requests that fail, 0 to 1.", valueName: "rate"))
    var chaos = 0.0

    @Option(help: ArgumentHelp("The seed of the chaos, for a repeatable run.", valueName: "n"))
    var chaosSeed: UInt64 = 0

    func validate() throws {
        guard (0...65_535).contains(port) else { throw ValidationError("--port must be 0 to 65535, got \(port).") }
        guard (0...1).contains(chaos) else { throw ValidationError("--chaos must be between 0 and 1, got \(chaos).") }
    }

    /// Serves until SIGINT or SIGTERM; returns the exit status.
    func serve() async -> ExitStatus {
        // The faults are the server's from its first request, as for parley-mock-server.
        let options = MockServer.Options(chaosRate: chaos, chaosSeed: chaosSeed)
        let task = Task {
            try await MockServer.run(host: host, port: port, options: options) { server in
                FileHandle.standardOutput.write(Data("listening on \(server.baseURL)\n".utf8))
            }
        }
        Interruption.install { task.cancel() }
        switch await task.result {
        case .success:
            return .success
        case .failure(let error) where Interruption.signal == nil:
            standardError("parley-demo: the backend could not run on \(host):\(port): \(error)")
            return .network
        case .failure:
            return .success
        }
    }

    mutating func run() async throws {
        let status = await serve()
        if status != .success { throw ExitCode(status.rawValue) }
    }
}
