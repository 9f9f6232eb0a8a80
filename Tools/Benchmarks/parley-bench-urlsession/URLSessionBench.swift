// parley-bench-urlsession: the Foundation URLSession peer of the Parley benchmarks.
//
// On Linux, URLSession comes from FoundationNetworking, itself built on libcurl's multi interface, so this peer
// shows what a general-purpose Foundation layer costs over the raw libcurl baseline. Its configuration is an
// application's: an ephemeral session, no cache, up to `--concurrency` connections per host.
//
// TLS: FoundationNetworking on Linux offers no way to trust an extra certificate authority. It neither delivers
// server-trust challenges to the delegate nor reads `SSL_CERT_FILE` or `CURL_CA_BUNDLE`; libcurl verifies against
// the system store (`/etc/ssl/certs`). `--cacert` is therefore accepted for the sake of the contract, and an
// `https://` URL only works when its certificate chains to a system-trusted authority.

import ArgumentParser
import BenchmarkSupport
import Foundation
import Synchronization

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// Runs the benchmark contract of docs/BENCHMARKS.md on URLSession.
@main
struct URLSessionBench: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "parley-bench-urlsession",
        abstract: "Benchmarks Foundation's URLSession with the Parley benchmark contract."
    )

    @OptionGroup var options: BenchmarkOptions

    func run() async throws {
        let options = self.options
        guard let url = URL(string: options.url) else {
            throw ValidationError("--url is not a valid URL.")
        }
        let configuration = URLSessionConfiguration.ephemeral
        configuration.httpMaximumConnectionsPerHost = options.concurrency
        configuration.requestCachePolicy = .reloadIgnoringLocalCacheData
        configuration.urlCache = nil
        configuration.timeoutIntervalForRequest = requestTimeout
        configuration.timeoutIntervalForResource = requestTimeout

        let downloads = DownloadDelegate()
        let session = URLSession(configuration: configuration, delegate: downloads, delegateQueue: nil)
        let uploadSize = try options.input.map { try InputFile.size(atPath: $0) }

        if options.idle {
            // The session exists; give its threads a moment, as the other peers do, and send nothing.
            try await Task.sleep(for: idleDuration)
            session.finishTasksAndInvalidate()
            print(ClosedLoopReport.idle(options: options).resultLine(peer: options.label ?? "urlsession"))
            return
        }
        let report = await runClosedLoop(options: options) { _ in
            switch options.mode {
            case .get:
                let (body, response) = try await session.data(for: URLRequest(url: url))
                try requireSuccess(response)
                return body.count
            case .download:
                return try await downloads.download(URLRequest(url: url), to: options.out, in: session)
            case .upload:
                guard let input = options.input, let uploadSize else {
                    throw ValidationError("--mode upload needs --in FILE.")
                }
                var request = URLRequest(url: url)
                request.httpMethod = "POST"
                let (_, response) = try await session.upload(for: request, fromFile: URL(fileURLWithPath: input))
                try requireSuccess(response)
                return uploadSize
            }
        }
        session.finishTasksAndInvalidate()
        print(report.resultLine(peer: options.label ?? "urlsession"))
        if !report.succeeded {
            throw ExitCode.failure
        }
    }
}

/// How long an `--idle` run keeps its session before invalidating it.
private let idleDuration = Duration.milliseconds(200)

/// An hour: a 1 GiB transfer is timed, not cut short.
private let requestTimeout: TimeInterval = 3600

private func requireSuccess(_ response: URLResponse) throws {
    let code = (response as? HTTPURLResponse)?.statusCode ?? 0
    guard (200..<300).contains(code) else {
        throw UnexpectedStatus(code: code)
    }
}

/// Streams data-task bodies to files as they arrive.
///
/// URLSession's async `download(from:)` would first land the whole body in a temporary file; a data delegate sees
/// each chunk instead, and writes it to `--out` before the next one. URLSession calls the delegate on its serial
/// delegate queue; `download(_:to:in:)` runs on the caller's. The transfers in flight, keyed by task identifier,
/// are the only state they share, behind a mutex.
private final class DownloadDelegate: NSObject, URLSessionDataDelegate, Sendable {
    /// One download in flight.
    private struct Transfer {
        let file: OutputFile
        let continuation: CheckedContinuation<Int, any Error>
        var bytes = 0
        var failure: (any Error)?
    }

    // `Mutex`, not the library's `PThreadMutex`: that type is `package`, out of reach of this
    // package, and the benchmarks are never built with a sanitizer (CONTRIBUTING.md, Locks).
    private let transfers = Mutex<[Int: Transfer]>([:])

    /// Downloads `request` into the file at `path` and returns the body byte count.
    func download(_ request: URLRequest, to path: String, in session: URLSession) async throws -> Int {
        try await withCheckedThrowingContinuation { continuation in
            let task = session.dataTask(with: request)
            do {
                // Opened under the lock, so the file belongs to the shared state from the start.
                try transfers.withLock { transfers in
                    let file = try OutputFile(path: path)
                    transfers[task.taskIdentifier] = Transfer(file: file, continuation: continuation)
                }
                task.resume()
            } catch {
                task.cancel()
                continuation.resume(throwing: error)
            }
        }
    }

    func urlSession(
        _ session: URLSession,
        dataTask: URLSessionDataTask,
        didReceive response: URLResponse,
        completionHandler: @escaping @Sendable (URLSession.ResponseDisposition) -> Void
    ) {
        do {
            try requireSuccess(response)
            completionHandler(.allow)
        } catch {
            transfers.withLock { $0[dataTask.taskIdentifier]?.failure = error }
            completionHandler(.cancel)
        }
    }

    func urlSession(_ session: URLSession, dataTask: URLSessionDataTask, didReceive data: Data) {
        transfers.withLock { transfers in
            guard var transfer = transfers[dataTask.taskIdentifier], transfer.failure == nil else { return }
            do {
                try data.withUnsafeBytes { try transfer.file.write($0) }
                transfer.bytes += data.count
            } catch {
                transfer.failure = error
                dataTask.cancel()
            }
            transfers[dataTask.taskIdentifier] = transfer
        }
    }

    func urlSession(_ session: URLSession, task: URLSessionTask, didCompleteWithError error: (any Error)?) {
        let transfer = transfers.withLock { $0.removeValue(forKey: task.taskIdentifier) }
        guard let transfer else { return }
        if let failure = transfer.failure ?? error {
            transfer.continuation.resume(throwing: failure)
        } else {
            transfer.continuation.resume(returning: transfer.bytes)
        }
    }
}
