import ArgumentParser
import Foundation
import MockBackend

/// `parley-mock-server`: the test server of the Parley test suite, as a standalone process.
///
/// Runs ``MockServer``'s routes until SIGINT or SIGTERM (then lets the requests in flight
/// finish, and exits 0), for scripts, benchmarks and manual
/// checks with `curl`. Once the port is bound it prints exactly one line to standard output,
/// `listening on http://HOST:PORT`, so a script can read the port:
///
/// ```sh
/// parley-mock-server > server.out &
/// until grep -q '^listening on ' server.out; do sleep 0.1; done
/// base_url=$(sed -n 's/^listening on //p' server.out)
/// curl "$base_url/echo"
/// ```
///
/// For debugging a client against a misbehaving peer by hand, the hidden option
/// `--scripted close|reset|hold|respond:PATH` runs a ``ScriptedSocketServer`` on `127.0.0.1`
/// instead (ignoring `--port` and `--host`) and prints the same line:
///
/// ```sh
/// printf 'HTTP/1.1 200 OK\r\nContent-Length: 100\r\n\r\nshort' > truncated.http
/// parley-mock-server --scripted respond:truncated.http
/// ```
@main
struct ParleyMockServer: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "parley-mock-server",
        abstract: "Run the Parley mock HTTP server until SIGINT or SIGTERM.",
        discussion: """
            Prints one line, "listening on http://HOST:PORT", once the port is bound, and nothing \
            else to standard output; if its reader has already gone, the server ends as cat does \
            (SIGPIPE, status 141, also when SIGPIPE is ignored). SIGINT and SIGTERM stop it with \
            status 0 once the requests in flight have finished. Routes: /echo, /status/{code}, /redirect-to?url=&status=, \
            /redirect/{n}, /relative-redirect/{n}, /bytes/{n}, /stream-bytes/{n}?chunk=, \
            /stall?after=, /delay/{ms}, /gzip, /deflate, /bad-encoding, /large-headers?size=, \
            /headers?name=value, /cookies, /cookies/set?name=value, /upload, /multipart, /drop?bytes=, \
            /flaky/{n}?status=&key=&retry-after=, /weather?city=&shape=&code=&message=, \
            /idempotent?resets=&scope=, /idempotent/stats, /idempotent/ledger, /auth/login, /auth/refresh?fail=&delay=, \
            /auth/expire, /auth/protected?http=, /auth/stats, /cache?key=&max-age=&etag=….

            The weather demo's backend, answering in the envelope {"code", "message", "data"}: \
            GET /sysTime, POST /sysVersion (header platform, body {"appVersion"}), \
            GET /weather?city=, GET /weather/cities?cursor=&limit=, \
            GET /weather/radar?city=&size=&chunk-delay= (a download with ETag and Range), \
            POST /weather/report (multipart city, note, photo; Authorization: Bearer from /auth/login).

            Faults for those business routes (and /auth/login, /auth/refresh): --chaos RATE drops \
            the connection or answers 503 with Retry-After: 1 for that share of requests, \
            reproducibly for a --chaos-seed; --chaos-faults drop,reset,stall,503,503:none picks among \
            other faults. At run time: POST /faults/script?path=/weather&outcomes=drop,503,ok, \
            POST /faults/delay?path=/weather&ms=600, POST /faults/pace?path=/weather/radar&ms=40, \
            POST /faults/chaos?rate=0.2&seed=7, \
            POST /faults/reset, GET /faults (settings and counters).

            See the MockServer documentation for each route.
            """
    )

    /// The port to bind; 0 lets the kernel pick one.
    @Option(help: "The port to listen on; 0 picks a free one.")
    var port: Int = 0

    /// The address to bind.
    @Option(help: "The address to listen on.")
    var host: String = "127.0.0.1"

    /// The share of business requests that get a fault, 0…1.
    @Option(
        help: ArgumentHelp(
            "The probability, 0...1, that a business request (/sysTime, /sysVersion, /weather…, /auth/login, /auth/refresh) is dropped or answered 503.",
            valueName: "rate"
        )
    )
    var chaos: Double = 0

    /// The seed of the chaos generator.
    @Option(help: ArgumentHelp("The seed of --chaos: the same seed gives the same faults.", valueName: "n"))
    var chaosSeed: UInt64 = 0

    @Option(
        help: ArgumentHelp(
            "The faults --chaos picks from, evenly, comma-separated: drop, reset (mid-body), stall (mid-body), 503 (Retry-After: 1), 503:N, 503:none (no Retry-After). drop,503 by default.",
            valueName: "list"
        )
    )
    var chaosFaults: String?

    /// A debugging aid: run a ``ScriptedSocketServer`` instead of the HTTP server.
    @Option(
        help: ArgumentHelp(
            "Run a raw scripted socket server instead: close, reset, hold, or respond:PATH (send PATH's bytes, then close).",
            visibility: .hidden
        )
    )
    var scripted: String?

    func validate() throws {
        guard (0...65535).contains(port) else {
            throw ValidationError("--port must be in 0...65535, got \(port).")
        }
        guard chaos.isFinite, (0...1).contains(chaos) else {
            throw ValidationError("--chaos must be a probability in 0...1, got \(chaos).")
        }
        if let scripted {
            _ = try Self.behaviour(named: scripted)
        }
        _ = try parsedChaosFaults()
    }

    /// The outcomes of `--chaos-faults`, the default ones without it.
    private func parsedChaosFaults() throws -> [FaultInjector.Outcome] {
        guard let chaosFaults else { return FaultInjector.defaultChaosFaults }
        return try chaosFaults.split(separator: ",").map { name in
            guard let outcome = FaultInjector.Outcome(String(name)), outcome != .ok else {
                throw ValidationError(
                    "--chaos-faults must list drop, reset, stall, 503, 503:N or 503:none, got '\(name)'.")
            }
            return outcome
        }
    }

    func run() async throws {
        StandardOutput.recordStartingDisposition()
        if let scripted {
            let termination = TerminationSignals()
            try await runScripted(try Self.behaviour(named: scripted), until: termination)
            withExtendedLifetime(termination) {}
            return
        }
        let options = MockServer.Options(chaosRate: chaos, chaosSeed: chaosSeed, chaosFaults: try parsedChaosFaults())
        // SIGTERM and SIGINT shut the server down gracefully (a ServiceGroup's signals): the
        // requests in flight finish, then this returns and the process exits 0.
        try await MockServer.runUntilTerminated(host: host, port: port, options: options) { server in
            Self.announce(server.baseURL)
        }
    }

    /// Serves `behaviour` on a raw socket until a termination signal.
    private func runScripted(_ behaviour: ScriptedSocketServer.Behaviour, until termination: TerminationSignals)
        async throws
    {
        let server = try ScriptedSocketServer(behaviour: behaviour)
        defer { server.stop() }
        Self.announce(server.baseURL)
        await termination.received.waitForFirst()
    }

    /// Writes the one line scripts wait for, unbuffered. A reader that has gone before it is
    /// written ends the server as it ends `cat` (SIGPIPE, status 141 in a shell); once it is
    /// written, the server never writes to standard output again, so a reader that goes away
    /// later (`| head -1`) changes nothing.
    private static func announce(_ baseURL: String) {
        StandardOutput.write("listening on \(baseURL)\n")
    }

    /// Parses the hidden `--scripted` value.
    private static func behaviour(named name: String) throws -> ScriptedSocketServer.Behaviour {
        switch name {
        case "close": return .closeImmediately
        case "reset": return .reset
        case "hold": return .holdOpen
        default:
            guard name.hasPrefix("respond:") else {
                throw ValidationError("--scripted must be close, reset, hold or respond:PATH, got '\(name)'.")
            }
            let path = String(name.dropFirst("respond:".count))
            guard let data = FileManager.default.contents(atPath: path) else {
                throw ValidationError("--scripted respond: cannot read '\(path)'.")
            }
            return .respond([UInt8](data), thenClose: true)
        }
    }
}
