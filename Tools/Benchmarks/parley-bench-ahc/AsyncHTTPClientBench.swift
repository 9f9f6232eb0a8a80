// parley-bench-ahc: the AsyncHTTPClient peer of the Parley benchmarks.
//
// AsyncHTTPClient on SwiftNIO, configured as an application would: the shared singleton event loop group, HTTP/2
// over TLS where ALPN offers it (`httpVersion = .automatic`, the default) and HTTP/1.1 keep-alive in cleartext, with
// up to `--concurrency` HTTP/1.1 connections per host.

import ArgumentParser
import AsyncHTTPClient
import BenchmarkSupport
import NIOCore
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

    func run() async throws {
        let options = self.options
        let client = try makeClient(options: options)
        let uploadSize = try options.input.map { try InputFile.size(atPath: $0) }
        let report = await runClosedLoop(options: options) { _ in
            try await perform(on: client, options: options, uploadSize: uploadSize)
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
