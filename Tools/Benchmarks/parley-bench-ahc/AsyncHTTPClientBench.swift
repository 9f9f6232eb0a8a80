// parley-bench-ahc: the AsyncHTTPClient peer of the Parley benchmarks.
//
// AsyncHTTPClient on SwiftNIO, configured as an application would: the shared singleton event loop group, HTTP/2
// over TLS where ALPN offers it (`httpVersion = .automatic`, the default) and HTTP/1.1 keep-alive in cleartext, with
// up to `--concurrency` HTTP/1.1 connections per host. With `--stack full` each GET's body is decoded as an
// application decodes it without Parley: Foundation's `JSONDecoder` into an envelope struct, whose code is checked.

import ArgumentParser
import AsyncHTTPClient
import BenchmarkSupport
import Foundation
import NIOCore
import NIOFoundationCompat
import NIOHTTP1
import NIOSSL

/// Runs the benchmark contract of docs/BENCHMARKS.md on AsyncHTTPClient.
@main
struct AsyncHTTPClientBench: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "parley-bench-ahc",
        abstract: "Benchmarks AsyncHTTPClient with the Parley benchmark contract."
    )

    @OptionGroup var options: BenchmarkOptions

    /// What a request does with the body it receives.
    enum Stack: String, ExpressibleByArgument, CaseIterable {
        /// Counts the body's bytes.
        case transport
        /// Decodes the body with `JSONDecoder` into ``Envelope`` of ``Forecast`` and checks it, as
        /// `parley-bench --stack full` does through Parley's business layer. Only with `--mode get`.
        case full
    }

    @Option(help: "transport (the client alone) or full (the envelope decoded with JSONDecoder and checked).")
    var stack: Stack = .transport

    func validate() throws {
        if stack == .full && options.mode != .get {
            throw ValidationError("--stack full works with --mode get only.")
        }
    }

    func run() async throws {
        let options = self.options
        let client = try makeClient(options: options)
        let uploadSize = try options.input.map { try InputFile.size(atPath: $0) }
        let report: ClosedLoopReport
        if options.idle {
            // The singleton event loop group's threads have started; let them run before shutting down.
            try await Task.sleep(for: idleDuration)
            report = .idle(options: options)
        } else {
            switch stack {
            case .transport:
                report = await runClosedLoop(options: options) { _ in
                    try await perform(on: client, options: options, uploadSize: uploadSize)
                }
            case .full:
                let decoder = JSONDecoder()
                report = await runClosedLoop(options: options) { _ in
                    try await forecast(on: client, url: options.url, decoder: decoder)
                }
            }
        }
        try await client.shutdown()
        print(report.resultLine(peer: options.label ?? "ahc"))
        if !report.succeeded {
            throw ExitCode.failure
        }
    }
}

/// A client with up to `options.concurrency` connections per host, trusting `options.cacert` when given.
private func makeClient(options: BenchmarkOptions) throws -> HTTPClient {
    var configuration = HTTPClient.Configuration()
    configuration.connectionPool.concurrentHTTP1ConnectionsPerHostSoftLimit = options.concurrency
    if let cacert = options.cacert {
        var tls = TLSConfiguration.makeClientConfiguration()
        tls.trustRoots = .file(cacert)
        configuration.tlsConfiguration = tls
    }
    return HTTPClient(eventLoopGroupProvider: .singleton, configuration: configuration)
}

/// How long an `--idle` run keeps its client before shutting it down.
private let idleDuration = Duration.milliseconds(200)

/// A deadline no benchmark request reaches: a 1 GiB transfer is timed, not cut short.
private let requestTimeout = TimeAmount.hours(1)

/// The read size of an upload: each request body chunk is one `read(2)` of this many bytes.
private let uploadChunkSize = 256 * 1024

/// Performs one request in `options.mode` and returns its body byte count.
private func perform(on client: HTTPClient, options: BenchmarkOptions, uploadSize: Int?) async throws -> Int {
    var request = HTTPClientRequest(url: options.url)
    switch options.mode {
    case .get:
        let response = try await client.execute(request, timeout: requestTimeout)
        try requireSuccess(response.status)
        let body = try await response.body.collect(upTo: .max)
        return body.readableBytes

    case .download:
        let response = try await client.execute(request, timeout: requestTimeout)
        try requireSuccess(response.status)
        let file = try OutputFile(path: options.out)
        var bytes = 0
        for try await chunk in response.body {
            try chunk.withUnsafeReadableBytes { try file.write($0) }
            bytes += chunk.readableBytes
        }
        return bytes

    case .upload:
        guard let input = options.input, let uploadSize else {
            throw ValidationError("--mode upload needs --in FILE.")
        }
        request.method = .POST
        request.body = .stream(FileChunks(path: input, chunkSize: uploadChunkSize), length: .known(Int64(uploadSize)))
        let response = try await client.execute(request, timeout: requestTimeout)
        try requireSuccess(response.status)
        _ = try await response.body.collect(upTo: .max)
        return uploadSize
    }
}

/// One GET of the weather envelope, decoded and checked; returns the body's byte count.
///
/// The same checks as `parley-bench --stack full`: a 2xx status, an envelope whose code is a success, a `data`
/// that decodes as ``Forecast``, and exactly three days in it. Any other outcome throws and counts as an error.
private func forecast(on client: HTTPClient, url: String, decoder: JSONDecoder) async throws -> Int {
    let response = try await client.execute(HTTPClientRequest(url: url), timeout: requestTimeout)
    try requireSuccess(response.status)
    let body = try await response.body.collect(upTo: .max)
    let envelope = try decoder.decode(Envelope<Forecast>.self, from: body)
    guard envelope.code.isSuccess else {
        throw EnvelopeFailure(description: "The envelope's code \(envelope.code) is not a success.")
    }
    guard let forecast = envelope.data else {
        throw EnvelopeFailure(description: "The envelope has no data.")
    }
    guard forecast.threeDayForecast.count == 3 else {
        throw EnvelopeFailure(description: "The forecast has \(forecast.threeDayForecast.count) days, not 3.")
    }
    return body.readableBytes
}

/// The server's envelope, `{"code": …, "message": …, "data": …}`.
private struct Envelope<Payload: Decodable & Sendable>: Decodable, Sendable {
    /// The result code.
    let code: EnvelopeCode
    /// The human-readable message; it may be absent.
    let message: String?
    /// The payload; absent or `null` in a failure envelope.
    let data: Payload?
}

/// An envelope's result code, a JSON number or a string, read as Parley's `BusinessCode` reads it.
private struct EnvelopeCode: Decodable, Sendable, CustomStringConvertible {
    /// The code as the server wrote it.
    let rawValue: String
    /// The code as an integer, when its text is one.
    let intValue: Int?

    init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        if let int = try? container.decode(Int.self) {
            rawValue = String(int)
            intValue = int
        } else {
            rawValue = try container.decode(String.self)
            intValue = Int(rawValue)
        }
    }

    /// Whether the code means success: `200`, as a number or a string, like the default envelope format of
    /// Parley's Mapping (`StandardEnvelope.successCodes`).
    var isSuccess: Bool { intValue == 200 }

    var description: String { rawValue }
}

/// An envelope that decoded but is not the successful forecast the benchmark expects.
private struct EnvelopeFailure: Error, CustomStringConvertible {
    let description: String
}

private func requireSuccess(_ status: HTTPResponseStatus) throws {
    guard (200..<300).contains(status.code) else {
        throw UnexpectedStatus(code: Int(status.code))
    }
}

/// A file as a sequence of `ByteBuffer` chunks, each read from disk when AsyncHTTPClient asks for it.
///
/// The file is opened by each iterator, so a request that is retried from the start reads it again.
private struct FileChunks: AsyncSequence, Sendable {
    typealias Element = ByteBuffer

    let path: String
    let chunkSize: Int

    func makeAsyncIterator() -> Iterator {
        Iterator(path: path, chunkSize: chunkSize)
    }

    struct Iterator: AsyncIteratorProtocol {
        let path: String
        let chunkSize: Int
        private var file: InputFile?
        private let allocator = ByteBufferAllocator()

        init(path: String, chunkSize: Int) {
            self.path = path
            self.chunkSize = chunkSize
        }

        mutating func next() async throws -> ByteBuffer? {
            let file = try self.file ?? InputFile(path: path)
            self.file = file
            var buffer = allocator.buffer(capacity: chunkSize)
            let count = try buffer.writeWithUnsafeMutableBytes(minimumWritableBytes: chunkSize) { space in
                try file.read(into: UnsafeMutableRawBufferPointer(rebasing: space.prefix(chunkSize)))
            }
            return count == 0 ? nil : buffer
        }
    }
}
