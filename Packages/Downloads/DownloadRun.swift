import Foundation
import HTTPTypes
import Transport

/// One run of a ``FileDownload``: from opening the partial to renaming it into place, with
/// the retries in between. A run ends complete, failed, or cancelled (by its task).
///
/// The order of the steps is the crash-consistency argument; see ``FileDownload``.
struct DownloadRun: Sendable {
    /// The request, as the caller gave it; `Range` and `If-Range` are set per attempt.
    let request: TransportRequest
    /// The absolute destination path.
    let destination: String
    /// The transport the requests go through.
    let transport: any HTTPTransport
    /// Verification, retries, syncing and progress.
    let options: FileDownload.Options
    /// Receives each progress event.
    let report: @Sendable (TransferProgress) -> Void
    /// Whether a partial left by an earlier download is discarded instead of continued.
    var discardsEarlierPartial = false

    private var url: String { request.url }

    /// What an attempt left to do.
    private enum AttemptOutcome {
        /// The partial holds the whole file.
        case finished
        /// The partial was discarded because the response could not continue it; ask again.
        case refetch(reason: String)
    }

    /// Where the download stands: what is on disk, and what the sidecar says about it.
    private struct Position {
        /// The partial's size.
        var size: Int64
        /// The sidecar on disk, when it describes this download.
        var sidecar: DownloadSidecar?
    }

    /// A failure the run may retry, wrapped so the retry loop can tell it apart.
    private struct RetryableFailure: Error {
        let error: TransportError
        /// The wait the server asked for with `Retry-After`, when it did.
        var retryAfter: Duration?
    }

    /// Runs the download to its end.
    ///
    /// - Returns: What was produced.
    /// - Throws: ``TransportError``: `.cancelled` when the task was cancelled, `.checksumMismatch`,
    ///   `.downloadFailed`, or the last network error once the retries are spent.
    func execute() async throws -> FileDownload.Summary {
        let expectedDigest = try validatedDigest()
        let file = try PartialFile.open(destination: destination, url: url)
        defer { file.close() }

        var position = try startingPosition(of: file)
        let resumedFrom = position.size
        var digest: PartialDigest?  // nil when no digest is expected
        if expectedDigest != nil {
            digest =
                position.size > 0 ? try await PartialDigest.prefix(of: file, length: position.size) : PartialDigest()
        }
        var lastResponse: HTTPResponse?
        var meter = ProgressMeter(interval: options.progressInterval)
        var failuresInARow = 0
        var refetches = 0
        var requestCount = 0

        attempts: while true {
            try checkCancellation()
            let sizeBefore = position.size
            requestCount += 1
            do {
                switch try await attempt(
                    file: file, position: &position, digest: digest, meter: &meter, head: &lastResponse)
                {
                case .finished:
                    break attempts
                case .refetch(let reason):
                    refetches += 1
                    guard refetches <= 2 else {
                        throw TransportError(
                            .downloadFailed,
                            message: "The server at \(url) keeps answering range requests inconsistently (\(reason)). "
                                + "The partial was discarded; report the server's range handling to its owner.",
                            url: url)
                    }
                }
            } catch {
                try checkCancellation()
                let retryable: TransportError
                var retryAfter: Duration?
                if let failure = error as? RetryableFailure {
                    retryable = failure.error
                    retryAfter = failure.retryAfter
                } else if let transportError = error as? TransportError, Self.isRetryable(transportError) {
                    retryable = transportError
                } else {
                    throw error
                }
                if position.size > sizeBefore { failuresInARow = 0 }
                failuresInARow += 1
                guard failuresInARow <= options.retryLimit else {
                    var final = retryable
                    final.message +=
                        " Gave up after \(failuresInARow) attempts in a row; \(position.size) bytes are kept in "
                        + "\(file.partialPath), and \(resumeAdvice) resumes from there."
                    throw final
                }
                if let retryAfter, retryAfter > options.longestRetryAfter {
                    var final = retryable
                    final.message +=
                        " The server asked to wait \(retryAfter) before trying again, longer than the download waits "
                        + "(\(options.longestRetryAfter)); \(position.size) bytes are kept in \(file.partialPath), and "
                        + "\(resumeAdvice) later resumes from there."
                    throw final
                }
                let backoff = backoff(afterFailures: failuresInARow)
                let delay = max(backoff, retryAfter ?? .zero)
                options.retryHandler?(
                    RetryEvent(
                        attempt: requestCount + 1, reason: retryable.message, delay: delay,
                        serverAsked: (retryAfter ?? .zero) > backoff),
                    retryable)
                do {
                    try await Task.sleep(for: delay)
                } catch {
                    throw Self.cancelledError(url: url)
                }
            }
        }

        return try await finish(
            file: file, byteCount: position.size, expectedDigest: expectedDigest, digest: digest, meter: meter,
            resumedFrom: resumedFrom, requestCount: requestCount, response: lastResponse)
    }

    // MARK: - Steps

    /// Reads what is on disk and trusts only what can be trusted: bytes under a sidecar for this
    /// URL, no more than its total length.
    private func startingPosition(of file: PartialFile) throws -> Position {
        var position = Position(size: try file.size(), sidecar: file.readSidecar())
        if discardsEarlierPartial {
            position.sidecar = nil
        } else if let sidecar = position.sidecar, sidecar.url != url {
            position.sidecar = nil
        }
        if position.sidecar == nil, position.size > 0 {
            // Bytes without a record of where they came from: not ours to continue.
            try file.truncate(to: 0, durable: false)
            position.size = 0
        }
        if let total = position.sidecar?.totalLength, position.size > total {
            try file.truncate(to: total, durable: false)
            position.size = total
        }
        return position
    }

    /// Sends one request and writes its body, keeping `position` (and `digest`, when there is
    /// one) true to the disk throughout, also when it throws.
    private func attempt(
        file: PartialFile,
        position: inout Position,
        digest: PartialDigest?,
        meter: inout ProgressMeter,
        head: inout HTTPResponse?
    ) async throws -> AttemptOutcome {
        let point = ResumePoint(
            offset: position.size, validator: position.sidecar?.validator,
            expectedLength: position.sidecar?.totalLength)
        var request = request
        request.options.decodesContent = false  // byte offsets are offsets in the bytes as sent
        request.head.headerFields[.range] = point.rangeHeaderValue
        request.head.headerFields[.ifRange] = point.ifRangeHeaderValue
        let response = try await transport.send(request)
        head = response.head

        let total: Int64?
        switch point.decision(for: response.head) {
        case .alreadyComplete:
            response.body.cancel()
            return .finished
        case .discardAndRefetch(let reason):
            response.body.cancel()
            try file.truncate(to: 0, durable: false)
            position.size = 0
            digest?.reset()
            return .refetch(reason: reason)
        case .unexpectedStatus(let code):
            response.body.cancel()
            throw statusFailure(code, head: response.head)
        case .append(let completeLength):
            total = completeLength
            if let completeLength, var sidecar = position.sidecar, sidecar.totalLength == nil {
                sidecar.totalLength = completeLength
                try await writeSidecar(sidecar, file: file)
                position.sidecar = sidecar
            }
        case .replace(let validator, let completeLength):
            total = completeLength
            // Truncate first, then record the new version: a crash between the two leaves an
            // empty partial, which is a prefix of any version.
            if position.size > 0 {
                try await blocking { try file.truncate(to: 0, durable: options.synchronizesToDisk) }
                position.size = 0
                digest?.reset()
            }
            let record = DownloadSidecar(url: url, validator: validator, totalLength: completeLength)
            if record != position.sidecar {
                try await writeSidecar(record, file: file)
                position.sidecar = record
            }
        }

        if let progress = meter.progress(completed: position.size, total: total) { report(progress) }
        do {
            for try await chunk in response.body where !chunk.isEmpty {
                if let total, position.size + Int64(chunk.count) > total {
                    throw TransportError(
                        .invalidResponse,
                        message: "The server at \(url) sent more than the \(total) bytes it announced; the extra "
                            + "bytes were not written. Report the server's framing to its owner.",
                        url: url)
                }
                try chunk.withUnsafeBytes { try file.append($0) }
                await digest?.append(chunk)
                position.size += Int64(chunk.count)
                meter.add(chunk.count)
                if let progress = meter.progress(completed: position.size, total: total) { report(progress) }
            }
        } catch {
            response.body.cancel()
            throw error
        }
        if let total, position.size < total {
            throw TransportError(
                .incompleteBody,
                message: "The server at \(url) ended the body after \(position.size) of \(total) bytes.", url: url)
        }
        return .finished
    }

    /// Flushes, verifies and renames the complete partial, then sends the final progress event.
    private func finish(
        file: PartialFile,
        byteCount: Int64,
        expectedDigest: String?,
        digest: PartialDigest?,
        meter: ProgressMeter,
        resumedFrom: Int64,
        requestCount: Int,
        response: HTTPResponse?
    ) async throws -> FileDownload.Summary {
        let durable = options.synchronizesToDisk
        if durable { try await BlockingWork.run { try file.synchronize() } }
        var verifiedDigest: String?
        if let expectedDigest, let digest {
            var (actual, length) = await digest.finalize()
            if length != byteCount {
                // Not reached while the run keeps the digest in step with the partial: debug builds
                // (and so the tests) stop here. Should it ever happen in a release build, the file
                // on disk is what is renamed, so it is what gets verified.
                assertionFailure("the digest covers \(length) bytes of a \(byteCount)-byte partial")
                actual = try await PartialDigest.prefix(of: file, length: byteCount).finalize().hex
            }
            guard actual == expectedDigest else {
                PartialFile.removeArtifacts(of: destination)
                throw TransportError(
                    .checksumMismatch,
                    message: "The \(byteCount) bytes downloaded from \(url) have SHA-256 \(actual), not the expected "
                        + "\(expectedDigest); the partial file was deleted. Check the expected digest, or whether the "
                        + "server now serves another version, then download again.",
                    url: url)
            }
            verifiedDigest = actual
        }
        try await blocking { try file.commit(durable: durable) }
        report(meter.finalProgress(completed: byteCount))
        return FileDownload.Summary(
            destination: destination, byteCount: byteCount, sha256: verifiedDigest, resumedFrom: resumedFrom,
            requestCount: requestCount, response: response)
    }

    // MARK: - Helpers

    /// What continues from the kept bytes: running this download again, unless it was made to
    /// discard an earlier partial.
    private var resumeAdvice: String {
        options.resumesEarlierPartial
            ? "running the download again"
            : "a download that resumes the partial (resumesEarlierPartial, as a resuming download form sets it)"
    }

    /// Replaces the sidecar; flushed first and off the cooperative pool when syncing.
    private func writeSidecar(_ record: DownloadSidecar, file: PartialFile) async throws {
        try await blocking { try file.writeSidecar(record, durable: options.synchronizesToDisk) }
    }

    /// Runs `work` on its own thread when it will `fsync`, inline otherwise.
    private func blocking(_ work: @escaping @Sendable () throws -> Void) async throws {
        if options.synchronizesToDisk {
            try await BlockingWork.run(work)
        } else {
            try work()
        }
    }

    /// The expected digest in lowercase, or `nil`; a malformed one fails before any request.
    private func validatedDigest() throws -> String? {
        guard let expected = options.expectedSHA256 else { return nil }
        let lowercased = expected.lowercased()
        guard lowercased.utf8.count == 64,
            lowercased.utf8.allSatisfy({ (0x30...0x39).contains($0) || (0x61...0x66).contains($0) })
        else {
            throw TransportError(
                .downloadFailed,
                message: "The expected SHA-256 '\(expected)' is not 64 hexadecimal characters; pass the digest as "
                    + "sha256sum prints it.",
                url: url, mayHaveReachedServer: false)
        }
        return lowercased
    }

    /// `retryDelay × 2^(failures − 1)`, at most 8 seconds.
    private func backoff(afterFailures failures: Int) -> Duration {
        let cap = Duration.seconds(8)
        var delay = max(.zero, options.retryDelay)
        for _ in 1..<max(1, failures) where delay < cap { delay *= 2 }
        return min(delay, cap)
    }

    /// The error for a status a download cannot use; retryable for 408, 429 and 5xx gateway
    /// errors, after the wait their `Retry-After` asks for.
    private func statusFailure(_ code: Int, head: HTTPResponse) -> any Error {
        let reason = head.status.reasonPhrase
        let status = reason.isEmpty ? "\(code)" : "\(code) \(reason)"
        let retryable = [408, 429, 500, 502, 503, 504].contains(code)
        let advice: String
        switch code {
        case 401, 403: advice = "Check the URL and the credentials the request carries."
        case 404, 410: advice = "Check the URL."
        case _ where retryable: advice = "The server is failing or overloaded; try again later."
        default: advice = "A download needs 200 (or 206 for a resumed one)."
        }
        let error = TransportError(
            .downloadFailed, message: "The server at \(url) answered \(status) to the download. \(advice)", url: url)
        guard retryable else { return error }
        let retryAfter = head.headerFields[.retryAfter].flatMap { RetryAfter.delay(from: $0) }
        return RetryableFailure(error: error, retryAfter: retryAfter)
    }

    /// Throws `.cancelled` when the run's task was cancelled (a suspend or a cancel).
    private func checkCancellation() throws {
        if Task.isCancelled { throw Self.cancelledError(url: url) }
    }

    static func cancelledError(url: String) -> TransportError {
        TransportError(.cancelled, message: "The download of \(url) was stopped before it finished.", url: url)
    }

    /// Failures of the network that a resumed attempt may well get past.
    static func isRetryable(_ error: TransportError) -> Bool {
        [.connectionReset, .incompleteBody, .emptyReply, .stalledTransfer, .connectTimeout, .connectionRefused]
            .contains(error.category)
    }
}
