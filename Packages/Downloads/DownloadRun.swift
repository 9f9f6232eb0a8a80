import Foundation
import HTTPTypes
import Retry
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
    /// The request the attempts send once ``FileDownload/Options/refreshURL`` gave a new URL;
    /// `nil` while they send ``request``. A box, so that the run's non-mutating steps share it.
    private let refreshedRequest = PThreadMutex<TransportRequest?>(nil)

    /// The request the next attempt sends, before its `Range` and deadline.
    private var currentRequest: TransportRequest { refreshedRequest.withLock { $0 } ?? request }

    private var url: String { currentRequest.url }

    /// The most times one run asks ``FileDownload/Options/refreshURL`` for a new URL.
    static let maximumURLRefreshes = 3

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

    /// A status a download cannot use, with the head the retry policy judges it by.
    private struct StatusFailure: Error {
        /// The `downloadFailed` error the status stands as when it is not retried.
        let error: TransportError
        /// The response head, with any `Retry-After`.
        let head: HTTPResponse
    }

    /// Runs the download to its end.
    ///
    /// - Returns: What was produced.
    /// - Throws: ``TransportError``: `.cancelled` when the task was cancelled, `.checksumMismatch`,
    ///   `.downloadFailed`, or the last failure once the retry policy stops, as `stoppedError`
    ///   words it.
    func execute() async throws -> FileDownload.Summary {
        let expectedDigest = try validatedDigest()
        let createsPartial = !FileManager.default.fileExists(atPath: PartialFile.partialPath(of: destination))
        let file = try PartialFile.open(destination: destination, url: url)
        defer { file.close() }
        do {
            return try await transfer(into: file, expectedDigest: expectedDigest)
        } catch {
            // A partial this run created and never wrote a byte to holds nothing to resume:
            // leave no empty file (and sidecar) behind a download that failed at once, such as
            // one the server refused.
            if createsPartial, (try? file.size()) == 0 {
                PartialFile.removeArtifacts(of: destination)
            }
            throw error
        }
    }

    /// The attempts, retries and the final rename, into the open partial `file`.
    ///
    /// The run drives a ``/Retry/RetrySession`` that counts failures in a row: it sends, tells
    /// the session what each attempt did (finished, failed with or without bytes added, or
    /// discarded the partial and asks again), and does what the session says.
    private func transfer(into file: PartialFile, expectedDigest: String?) async throws -> FileDownload.Summary {
        var position = try startingPosition(of: file)
        let resumedFrom = position.size
        var digest: PartialDigest?  // nil when no digest is expected
        if expectedDigest != nil {
            digest =
                position.size > 0 ? try await PartialDigest.prefix(of: file, length: position.size) : PartialDigest()
        }
        var lastResponse: HTTPResponse?
        var meter = ProgressMeter(interval: options.progressInterval)
        let retryRequest = RetryRequest(request)
        let clock = options.retry.clock
        var session = RetrySession(
            policy: options.retry, counting: .inARow, offersReloads: options.reloadPrompt != nil)
        var action = session.receive(.started(at: clock.now))
        // The last failure, as it stands when the retries stop.
        var lastError = Self.cancelledError(url: url)
        var refetches = 0
        var refreshes = 0
        var requestCount = 0

        attempts: while true {
            switch action {
            case .send(let remaining):
                try checkCancellation()
                let sizeBefore = position.size
                requestCount += 1
                do {
                    switch try await attempt(
                        file: file, position: &position, digest: digest, meter: &meter, head: &lastResponse,
                        remaining: remaining)
                    {
                    case .finished:
                        _ = session.receive(.attemptSucceeded(of: retryRequest))
                        break attempts
                    case .refetch(let reason):
                        refetches += 1
                        guard refetches <= 2 else {
                            throw TransportError(
                                .downloadFailed,
                                message: "The server at \(url) keeps answering range requests inconsistently "
                                    + "(\(reason)). The partial was discarded; report the server's range handling "
                                    + "to its owner.",
                                url: url)
                        }
                        action = session.receive(.attemptRepeated(at: clock.now))
                    }
                } catch {
                    try checkCancellation()
                    if let status = error as? StatusFailure, [403, 410].contains(status.head.status.code),
                        refreshes < Self.maximumURLRefreshes,
                        try await refreshURL(after: status.head, file: file, position: &position, digest: digest)
                    {
                        refreshes += 1
                        action = session.receive(.attemptRepeated(at: clock.now))
                        continue attempts
                    }
                    let failure: RetryFailure
                    if let status = error as? StatusFailure {
                        failure = .status(status.head, url: url)
                        lastError = status.error
                    } else if let transportError = error as? TransportError {
                        failure = .transport(transportError)
                        lastError = transportError
                    } else {
                        throw error
                    }
                    action = session.receive(
                        .attemptFailed(
                            failure, of: retryRequest, madeProgress: position.size > sizeBefore, at: clock.now))
                }
            case .wait(let delay, let retry):
                options.retryHandler?(retry, lastError)
                do {
                    try await clock.sleep(for: delay)
                } catch {
                    throw Self.cancelledError(url: url)
                }
                action = session.receive(.waited(at: clock.now))
            case .offerReload(let context, let otherwise):
                // A yes starts a new round: a fresh count and deadline, resuming from the bytes on disk.
                if let prompt = options.reloadPrompt, !Task.isCancelled, await prompt.shouldReload(after: context),
                    !Task.isCancelled
                {
                    action = session.receive(.reloadAccepted(at: clock.now))
                } else {
                    action = .stop(otherwise)
                }
            case .stop(let conclusion):
                try checkCancellation()
                throw stoppedError(lastError, conclusion: conclusion, keptBytes: position.size, file: file)
            case .finish:
                break attempts
            }
        }

        return try await finish(
            file: file, byteCount: position.size, expectedDigest: expectedDigest, digest: digest, meter: meter,
            resumedFrom: resumedFrom, requestCount: requestCount, response: lastResponse)
    }

    // MARK: - Steps

    /// Reads what is on disk and trusts only what can be trusted: bytes under a sidecar for this
    /// URL (or for another, when ``FileDownload/Options/resumesPartialOfAnotherURL`` allows it
    /// and the sidecar proves what the bytes are), no more than its total length.
    private func startingPosition(of file: PartialFile) throws -> Position {
        var position = Position(size: try file.size(), sidecar: file.readSidecar())
        if discardsEarlierPartial {
            position.sidecar = nil
        } else if let sidecar = position.sidecar, sidecar.url != url,
            !(options.resumesPartialOfAnotherURL && sidecar.identifiesBytesAcrossURLs)
        {
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

    /// Asks ``FileDownload/Options/refreshURL`` for a new URL after the current one was refused
    /// with `refusal`, and makes it the URL of the next attempts.
    ///
    /// The bytes on disk stay only when their record proves what they are across URLs; they
    /// are discarded otherwise. Credentials stay with the origin they were given for.
    ///
    /// - Returns: Whether there is a new URL to send to.
    private func refreshURL(
        after refusal: HTTPResponse, file: PartialFile, position: inout Position, digest: PartialDigest?
    ) async throws -> Bool {
        guard let refresh = options.refreshURL else { return false }
        let expired = url
        let fresh: String?
        do {
            fresh = try await refresh(expired, refusal)
        } catch let error as TransportError {
            throw error
        } catch {
            throw TransportError(
                .downloadFailed,
                message: "The server at \(expired) refused the download (\(refusal.status.code)), and refreshing its "
                    + "URL failed: \(error). The bytes on disk are kept; run the download again once a new URL "
                    + "can be had.",
                url: expired)
        }
        guard let fresh, fresh != expired else { return false }
        let parts = try RequestValidation.parseURL(fresh)
        var next = currentRequest
        let sameOrigin =
            next.head.scheme?.lowercased() == parts.scheme.lowercased()
            && next.head.authority?.lowercased() == parts.authority.lowercased()
        next.head.scheme = parts.scheme
        next.head.authority = parts.authority
        next.head.path = parts.path
        if !sameOrigin {
            next.head.headerFields[.authorization] = nil
            next.head.headerFields[.cookie] = nil
            next.options.credentials = nil
        }
        refreshedRequest.withLock { $0 = next }
        if position.size > 0, position.sidecar?.identifiesBytesAcrossURLs != true {
            try file.truncate(to: 0, durable: false)
            position.size = 0
            position.sidecar = nil
            digest?.reset()
        }
        return true
    }

    /// Sends one request and writes its body, keeping `position` (and `digest`, when there is
    /// one) true to the disk throughout, also when it throws. `remaining` is the time left before
    /// the retry policy's deadline, which the request's own deadline is cut to.
    private func attempt(
        file: PartialFile,
        position: inout Position,
        digest: PartialDigest?,
        meter: inout ProgressMeter,
        head: inout HTTPResponse?,
        remaining: Duration?
    ) async throws -> AttemptOutcome {
        let point = ResumePoint(
            offset: position.size, validator: position.sidecar?.validator,
            expectedLength: position.sidecar?.totalLength)
        var request = currentRequest.cappingDeadline(to: remaining)
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
            // The record names the URL the bytes now come from, and the length once it is known.
            if var sidecar = position.sidecar,
                sidecar.url != url || (completeLength != nil && sidecar.totalLength == nil)
            {
                sidecar.url = url
                sidecar.totalLength = sidecar.totalLength ?? completeLength
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

    /// The failure for a status a download cannot use; the retry policy decides whether it is
    /// retried (and after how long, when it carries a `Retry-After`).
    private func statusFailure(_ code: Int, head: HTTPResponse) -> StatusFailure {
        let advice: String
        switch code {
        case 401, 403: advice = "Check the URL and the credentials the request carries."
        case 404, 410: advice = "Check the URL."
        case _ where options.retry.retryableStatuses.contains(code):
            advice = "The server is failing or overloaded; try again later."
        default: advice = "A download needs 200 (or 206 for a resumed one)."
        }
        let error = TransportError(
            .downloadFailed, message: "\(answered(head)) \(advice)", url: url)
        return StatusFailure(error: error, head: head)
    }

    /// `The server at URL answered 503 Service Unavailable to the download.`
    private func answered(_ head: HTTPResponse) -> String {
        let reason = head.status.reasonPhrase
        let status = reason.isEmpty ? "\(head.status.code)" : "\(head.status.code) \(reason)"
        return "The server at \(url) answered \(status) to the download."
    }

    /// The error a run ends with when the retry session stops after `error`.
    ///
    /// The session words it (``/Retry/RetryConclusion/error(standingFor:answer:then:)``): a
    /// failure the policy never retries stands as it is; otherwise the message says why the
    /// retries stopped, then how many bytes are kept where and what continues from them, with
    /// the last failure's category when the retries in a row are spent (`downloadFailed` for a
    /// status) and the policy's when something else stopped them. The policy's sentence then
    /// says what to do, so a status's own advice is left out.
    private func stoppedError(
        _ error: TransportError, conclusion: RetryConclusion, keptBytes: Int64, file: PartialFile
    ) -> TransportError {
        let kept =
            keptBytes == 0
            ? "No byte of the file arrived, so there is nothing to resume."
            : "\(keptBytes) bytes are kept in \(file.partialPath), and \(resumeAdvice) resumes from there."
        return conclusion.error(standingFor: error, answer: conclusion.failure.head.map(answered), then: kept)
    }

    /// Throws `.cancelled` when the run's task was cancelled (a suspend or a cancel).
    private func checkCancellation() throws {
        if Task.isCancelled { throw Self.cancelledError(url: url) }
    }

    static func cancelledError(url: String) -> TransportError {
        TransportError(.cancelled, message: "The download of \(url) was stopped before it finished.", url: url)
    }
}
