// parley-bench: Parley's own peer in the benchmarks, `CurlTransport` used as an application uses it.
//
// Each request is built from the URL string, validated, and handed to the transport: `data(for:)` for `get` and
// `upload`, `send(_:)` and the streamed body for `download`. The engine is configured for the scenario and for
// nothing else: up to `--concurrency` connections per host, `--cacert` as the CA file, and a 512 KiB receive
// buffer for downloads (the baseline's CURLOPT_BUFFERSIZE). `--loops N` sets the engine's event loops (its default
// otherwise); the connection limit is the transport's whole, divided between them.

import ArgumentParser
import BenchmarkSupport
import Foundation
import HTTPTypes
import ParleyObservability
import Synchronization
import Transport
import TransportCurl

/// Runs the benchmark contract of docs/BENCHMARKS.md on ``CurlTransport``.
@main
struct ParleyBench: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "parley-bench",
        abstract: "Benchmarks Parley's CurlTransport with the Parley benchmark contract."
    )

    @OptionGroup var options: BenchmarkOptions

    /// Which of Parley's layers a request goes through.
    enum Stack: String, ExpressibleByArgument, CaseIterable {
        /// `CurlTransport` alone.
        case transport
        /// The business layer: a form sent by a `Requestable`, the envelope checked, and the
        /// weather model decoded at key path `data`. Only with `--mode get`.
        case full
        /// The same layers without a handle: `Requestable.data(for:)`, then the envelope
        /// decoded by `ResponseDecoder`. Only with `--mode get`.
        case direct
        /// `CurlTransport` in a `MiddlewareTransport` with two links that pass every request on:
        /// what any two links cost, the baseline of `telemetry`.
        case chain
        /// `CurlTransport` in a `MiddlewareTransport` with ParleyObservability's two links,
        /// `RequestTelemetry` and `AttemptTelemetry`, and no metrics or tracing backend.
        case telemetry
    }

    @Option(
        help: ArgumentHelp(
            "transport (the engine alone), full (form, Requestable, envelope, decoding), direct (no handle), "
                + "chain (two pass-through middleware) or telemetry (the telemetry links, no backend)."))
    var stack: Stack = .transport

    /// Where the requesting tasks run.
    enum Executor: String, ExpressibleByArgument, CaseIterable {
        /// Swift's global concurrent executor, the default for any task.
        case pool
        /// The engine's loop thread (`CurlTransport.taskExecutor`): no thread hop per request.
        case loop
    }

    @Option(help: "pool (Swift's global executor) or loop (the engine's thread, CurlTransport.taskExecutor).")
    var executor: Executor = .pool

    /// How many event loops the engine runs (`CurlTransport.Configuration.loopCount`); its
    /// default when not given.
    @Option(help: "The engine's event loops (Configuration.loopCount); the engine's default if not given.")
    var loops: Int?

    /// The transport's connection limit per host; `--concurrency` when not given (every worker
    /// a connection of its own).
    @Option(help: "The transport's connections per host; --concurrency if not given.")
    var connectionsPerHost: Int?

    /// libcurl's receive buffer per transfer in KiB (`Configuration.receiveBufferSize` and
    /// `collectedReceiveBufferSize`, both); the engine's defaults when not given (512 KiB in
    /// download mode).
    @Option(
        name: .customLong("receive-buffer-kib"),
        help: ArgumentHelp(
            "libcurl's receive buffer per transfer, streamed or collected, in KiB; the engine's defaults if not "
                + "given (512 in download mode).")
    )
    var receiveBufferKiB: Int?

    /// Whether to count the responses that came on a new connection, to see how often the
    /// engine reuses one.
    @Flag(
        help: "Print to standard error how many responses, warm-up included, came on a new connection (get mode).")
    var countConnections = false

    func validate() throws {
        if (stack == .full || stack == .direct) && options.mode != .get {
            throw ValidationError("--stack \(stack.rawValue) works with --mode get only.")
        }
        if let loops, loops < 1 {
            throw ValidationError("--loops must be at least 1.")
        }
        if let receiveBufferKiB, receiveBufferKiB < 1 {
            throw ValidationError("--receive-buffer-kib must be at least 1.")
        }
        if let connectionsPerHost, connectionsPerHost < 1 {
            throw ValidationError("--connections-per-host must be at least 1.")
        }
    }

    func run() async throws {
        let options = self.options
        var configuration = CurlTransport.Configuration()
        configuration.maximumConnectionsPerHost = connectionsPerHost ?? options.concurrency
        if let loops { configuration.loopCount = loops }
        configuration.tls.caFile = options.cacert
        if options.mode == .download {
            configuration.receiveBufferSize = downloadReceiveBufferSize
        }
        if let receiveBufferKiB {
            configuration.receiveBufferSize = receiveBufferKiB * 1024
            configuration.collectedReceiveBufferSize = receiveBufferKiB * 1024
        }
        let transport = try CurlTransport(configuration: configuration)
        let uploadSize = try options.input.map { try InputFile.size(atPath: $0) }
        let opened: ConnectionCount? = countConnections ? ConnectionCount() : nil

        let report: ClosedLoopReport
        if options.idle {
            // The engine's thread has started; let it reach its poll before shutting it down.
            try await Task.sleep(for: idleDuration)
            report = .idle(options: options)
        } else {
            let onLoops = executor == .loop
            switch stack {
            case .transport:
                report = await runMode(
                    through: transport, engine: transport, onLoops: onLoops, options: options,
                    uploadSize: uploadSize, opened: opened)
            case .chain, .telemetry:
                let links: [any TransportMiddleware] =
                    stack == .chain ? [PassThrough(), PassThrough()] : [RequestTelemetry(), AttemptTelemetry()]
                report = await runMode(
                    through: MiddlewareTransport(transport, middleware: links), engine: transport, onLoops: onLoops,
                    options: options, uploadSize: uploadSize, opened: opened)
            case .full, .direct:
                // The handles' operations prefer one loop (the client's `taskExecutor`), and the
                // workers that one too.
                let preferred: (any TaskExecutor)? = onLoops ? transport.taskExecutor : nil
                let client = try FullStackClient(transport: transport, url: options.url, taskExecutor: preferred)
                let throughHandle = stack == .full
                report = await withTaskExecutorPreference(preferred) {
                    await runClosedLoop(options: options) { _ in
                        try await throughHandle ? client.forecast() : client.forecastAwaited()
                    }
                }
            }
        }
        await transport.shutdown()
        if let opened {
            printToStandardError(
                "connections opened: \(opened.count.load(ordering: .relaxed)) for \(options.warmup + options.requests) "
                    + "requests on \(transport.loopCount) loop(s)")
        }
        print(report.resultLine(peer: options.label ?? "parley"))
        if !report.succeeded {
            throw ExitCode.failure
        }
    }
}

/// A link that hands every request on: `--stack chain`.
private struct PassThrough: TransportMiddleware {
    func intercept(_ request: TransportRequest, next: Next) async throws -> TransportResponse {
        try await next(request)
    }
}

/// How long an `--idle` run keeps its engine running before shutting it down.
private let idleDuration = Duration.milliseconds(200)

/// The receive buffer of a download, as large as the baseline's: 512 KiB.
private let downloadReceiveBufferSize = 512 * 1024

/// Counts responses that came on a new connection (`--count-connections`).
private final class ConnectionCount: Sendable {
    let count = Atomic(0)
}

/// Runs the closed loop of `options.mode` through `client`. With `onLoops`, each worker
/// prefers one of `engine`'s loops, the loops taken in turn, so that with several loops the
/// workers spread over all of them (and each request stays on its worker's loop). A GET's
/// worker calls `get` directly, so that the frames a waiting request's task holds are an
/// application's, not ones sized for every mode's locals.
private func runMode(
    through client: some HTTPTransport, engine: CurlTransport, onLoops: Bool, options: BenchmarkOptions,
    uploadSize: Int?, opened: ConnectionCount?
) async -> ClosedLoopReport {
    let workerExecutor: @Sendable () -> (any TaskExecutor)? = { onLoops ? engine.taskExecutor : nil }
    let url = options.url
    let perform: @Sendable (Int) async throws -> Int
    if options.mode == .get {
        perform = { _ in try await get(on: client, url: url, opened: opened) }
    } else {
        perform = { _ in try await send(on: client, options: options, uploadSize: uploadSize) }
    }
    return await runClosedLoop(options: options, workerExecutor: workerExecutor, perform)
}

/// Performs one download or upload in `options.mode` and returns its body byte count.
private func send(on transport: some HTTPTransport, options: BenchmarkOptions, uploadSize: Int?) async throws -> Int {
    switch options.mode {
    case .get:
        return try await get(on: transport, url: options.url, opened: nil)

    case .download:
        let request = try TransportRequest(method: .get, url: options.url, options: collectingAll)
        let response = try await transport.send(request)
        try requireSuccess(response.status)
        let file = try OutputFile(path: options.out)
        var bytes = 0
        for try await chunk in response.body {
            try chunk.withUnsafeBytes { try file.write($0) }
            bytes += chunk.count
        }
        return bytes

    case .upload:
        guard let input = options.input, let uploadSize else {
            throw ValidationError("--mode upload needs --in FILE.")
        }
        let request = try TransportRequest(
            method: .post,
            url: options.url,
            body: .file(path: input),
            options: collectingAll
        )
        let response = try await transport.data(for: request)
        try requireSuccess(response.status)
        return uploadSize
    }
}

/// Transfer options that collect a body whatever its size, as every peer collects them.
private let collectingAll: TransferOptions = {
    var options = TransferOptions()
    options.maximumBodySize = .max
    return options
}()

/// One GET, collected: a function of its own, so that a waiting request's task holds this
/// small frame and not one sized for every mode's locals.
/// Counts it in `opened` when it came on a new connection.
private func get(on transport: some HTTPTransport, url: String, opened: ConnectionCount?) async throws -> Int {
    let request = try TransportRequest(method: .get, url: url, options: collectingAll)
    let response = try await transport.data(for: request)
    try requireSuccess(response.status)
    if let opened, response.metrics?.reusedConnection == false { opened.count.add(1, ordering: .relaxed) }
    return response.body.count
}

private func requireSuccess(_ status: HTTPResponse.Status) throws {
    guard status.kind == .successful else {
        throw UnexpectedStatus(code: status.code)
    }
}
