import ArgumentParser
import FeedbackConsole
import Foundation
import Logging
import MockBackend

/// `parley-demo serve`: the backend alone, for other clients (or another parley-demo with
/// `--server`).
struct ServeCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "serve",
        abstract: "Run the demo backend until Ctrl-C.",
        discussion: """
            Prints one line, "listening on http://HOST:PORT" (with --json, {"url":"http://HOST:PORT"}), \
            once the port is bound, and runs until Ctrl-C or SIGTERM, which stop it with status 130 or \
            143, as they stop every command. --verbose prints the server's log lines on standard error; \
            the options that shape requests (--server, --retries, --timeout, --cacert, --no-input) do \
            not apply, since serve sends none, and are refused. If the reader of standard output has \
            gone before the line is written, serve ends as every command does then (SIGPIPE, 141). With --chaos \
            RATE, that share of the business requests fails: the connection drops without an answer, \
            or the server answers 503 with Retry-After: 1. Faults can also be scripted per route \
            through POST /faults/script, /faults/delay, /faults/chaos and /faults/reset.
            """
    )

    @OptionGroup var global: GlobalOptions

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
        if let option = global.requestOptionsGiven.first {
            throw ValidationError(
                "\(option) does not apply to serve: serve is the backend and sends no requests. Give it to the "
                    + "client instead: parley-demo --server URL \(option) … COMMAND.")
        }
    }

    /// Serves until SIGINT or SIGTERM; returns the exit status: 130 or 143 after the signal,
    /// 3 when the backend cannot run (the port is taken).
    func serve() async -> ExitStatus {
        // The faults are the server's from its first request, as for parley-mock-server.
        let options = MockServer.Options(chaosRate: chaos, chaosSeed: chaosSeed)
        var logger: Logger?
        if global.verbose {
            logger = Logger(label: "parley-demo.serve") { StreamLogHandler.standardError(label: $0) }
            logger?.logLevel = .debug
        }
        let json = global.json
        let task = Task { [host, port, logger] in
            try await MockServer.run(host: host, port: port, logger: logger, options: options) { server in
                let line = json ? "{\"url\":\"\(server.baseURL)\"}\n" : "listening on \(server.baseURL)\n"
                do {
                    try StandardStreams.writeOutput(line)
                } catch {
                    standardError("parley-demo: \(error)")
                }
            }
        }
        Interruption.install { task.cancel() }
        let result = await task.result
        if let signal = Interruption.signal { return Interruption.status(for: signal) }
        switch result {
        case .success:
            return .success
        case .failure(let error):
            standardError("parley-demo: the backend could not run on \(host):\(port): \(error)")
            return .network
        }
    }

    mutating func run() async throws {
        let status = await serve()
        if status != .success { throw ExitCode(status.rawValue) }
    }
}
