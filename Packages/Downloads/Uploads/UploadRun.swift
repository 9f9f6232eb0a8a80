import Foundation
import HTTPTypes
import Retry
import Transport

/// One run of a ``ResumableUpload``: from the check of the file against its sidecar to the
/// server's final answer, with the retries in between.
///
/// The run drives a ``/Retry/RetrySession`` that counts failures in a row, as a download's
/// does: it sends an attempt (a creation, or an offset retrieval and the appends after it),
/// tells the session what it did, and does what the session says.
struct UploadRun: Sendable {
    /// The path of the file.
    let source: String
    /// The URL the upload is created at.
    let target: String
    /// The transport the requests go through.
    let transport: any HTTPTransport
    /// Retries, progress and headers.
    let options: ResumableUpload.Options

    /// The most times one run takes a server's word that the offsets disagree (`409`).
    static let maximumConflicts = 3

    /// The file's version: its length and modification time.
    private struct Stamp: Equatable {
        var length: Int64
        var modified: Double
    }

    /// What an attempt ended with.
    private enum Outcome {
        /// The server has the whole upload; its final answer.
        case finished(DataResponse)
        /// The offsets disagree and the server did not say its own: ask again at once.
        case askAgain
    }

    /// A status the retry policy judges, with the head it judges it by.
    private struct StatusFailure: Error {
        let error: TransportError
        let head: HTTPResponse
        let url: String
    }

    /// What the engine's handlers and the run share while a request is in flight.
    private struct Live {
        /// The upload resource's URL once known.
        var uploadURL: String?
        /// Why the sidecar could not be written, if it could not.
        var sidecarFailure: String?
        /// Bytes of the current request's body sent so far.
        var attemptSent: Int64 = 0
        /// Bytes sent in this run, across requests.
        var sent: Int64 = 0
        /// The offset the current request's body starts at.
        var base: Int64 = 0
        var meter: ProgressMeter
    }

    /// The mutable facts of a run.
    private struct Progress {
        var uploadURL: String?
        var resumedFrom: Int64?
        var requestCount = 0
        var conflicts = 0
    }

    /// Runs the upload to its end.
    func execute() async throws -> ResumableUpload.Summary {
        let stamp = try readStamp()
        var progress = Progress()
        if let sidecar = UploadSidecar.read(besides: source), sidecar.url == target {
            guard sidecar.length == stamp.length, sidecar.modified == stamp.modified else {
                throw TransportError(
                    .uploadSourceChanged,
                    message: "\(source) changed since its upload to \(target) began (its length or modification time "
                        + "differs from the sidecar's), so its upload is not resumed. Cancel the upload (which "
                        + "removes \(UploadSidecar.path(of: source))) and run it again.",
                    url: target, mayHaveReachedServer: false)
            }
            progress.uploadURL = sidecar.uploadURL
        }
        let live = PThreadMutex(
            Live(uploadURL: progress.uploadURL, meter: ProgressMeter(interval: options.progressInterval)))
        let authority = (try? RequestValidation.parseURL(target).authority) ?? target
        // Each attempt appends at the server's own offset: sending it again has the effect of
        // sending it once, as a PUT.
        let retryRequest = RetryRequest(method: .put, url: target, host: authority, body: .replayable)
        let clock = options.retry.clock
        var session = RetrySession(policy: options.retry, counting: .inARow)
        var action = session.receive(.started(at: clock.now))
        var lastError = cancelledError()
        var final: DataResponse?

        attempts: while true {
            switch action {
            case .send(let remaining):
                try checkCancellation()
                let sentBefore = live.withLock { $0.sent }
                do {
                    switch try await attempt(stamp: stamp, progress: &progress, live: live, remaining: remaining) {
                    case .finished(let response):
                        final = response
                        _ = session.receive(.attemptSucceeded(of: retryRequest))
                        break attempts
                    case .askAgain:
                        action = session.receive(.attemptRepeated(at: clock.now))
                    }
                } catch let failure as StatusFailure {
                    lastError = failure.error
                    let moved = live.withLock { $0.sent } > sentBefore
                    action = session.receive(
                        .attemptFailed(
                            .status(failure.head, url: failure.url), of: retryRequest, madeProgress: moved,
                            at: clock.now))
                } catch let error as TransportError {
                    try checkCancellation()
                    if Self.endsTheRun(error) { throw error }
                    lastError = error
                    let moved = live.withLock { $0.sent } > sentBefore
                    action = session.receive(
                        .attemptFailed(.transport(error), of: retryRequest, madeProgress: moved, at: clock.now))
                }
            case .wait(let delay, let retry):
                options.retryHandler?(retry, lastError)
                do {
                    try await clock.sleep(for: delay)
                } catch {
                    throw cancelledError()
                }
                action = session.receive(.waited(at: clock.now))
            case .offerReload(_, let otherwise):
                action = .stop(otherwise)
            case .stop(let conclusion):
                try checkCancellation()
                let kept =
                    progress.uploadURL == nil
                    ? "The server offered no upload to resume."
                    : "The upload stays at \(progress.uploadURL ?? ""), and running it again resumes from there."
                throw conclusion.error(standingFor: lastError, then: kept)
            case .finish:
                break attempts
            }
        }
        guard let final else { throw cancelledError() }
        UploadSidecar.remove(besides: source)
        if let handler = options.progressHandler {
            handler(live.withLock { $0.meter.finalProgress(completed: stamp.length) })
        }
        return ResumableUpload.Summary(
            uploadURL: progress.uploadURL, byteCount: stamp.length, resumedFrom: progress.resumedFrom ?? 0,
            requestCount: progress.requestCount, response: final.head, body: final.body)
    }

    /// One attempt: the creation when no upload resource is known; otherwise the offset
    /// retrieval and the appends from the server's offset.
    private func attempt(
        stamp: Stamp, progress: inout Progress, live: PThreadMutex<Live>, remaining: Duration?
    ) async throws -> Outcome {
        try checkUnchanged(stamp)
        let retryable = options.retry.retryableStatuses
        if progress.uploadURL == nil {
            let response = try await create(stamp: stamp, progress: &progress, live: live, remaining: remaining)
            switch UploadStep.afterCreation(
                status: response.head.status.code, fields: response.head.headerFields,
                knowsUploadURL: progress.uploadURL != nil, retryableStatuses: retryable)
            {
            case .complete:
                progress.resumedFrom = progress.resumedFrom ?? 0
                return .finished(response)
            case .askOffset:
                break
            case .notResumable(let why):
                throw unsupported(why)
            case .retry:
                throw statusFailure(response.head, url: target)
            default:
                throw refused(response.head, url: target)
            }
        }
        guard let resource = progress.uploadURL else { throw unsupported("it gave no upload URL") }

        // Offset retrieval.
        let head = try request(.head, url: resource, remaining: remaining)
        progress.requestCount += 1
        let offsetResponse = try await transport.data(for: head)
        var offset: Int64
        switch UploadStep.afterOffset(
            status: offsetResponse.head.status.code, fields: offsetResponse.head.headerFields, length: stamp.length,
            retryableStatuses: retryable)
        {
        case .complete:
            progress.resumedFrom = progress.resumedFrom ?? stamp.length
            return .finished(offsetResponse)
        case .append(let from):
            offset = from
        case .gone:
            throw gone(resource)
        case .notResumable(let why):
            throw unsupported(why)
        case .offsetInvalid(let claimed):
            throw invalidOffset(claimed, resource: resource, length: stamp.length)
        case .retry:
            throw statusFailure(offsetResponse.head, url: resource)
        default:
            throw refused(offsetResponse.head, url: resource)
        }
        progress.resumedFrom = progress.resumedFrom ?? offset
        let limit = ResumableUploadFields.parseLimit(offsetResponse.head.headerFields[ResumableUploadFields.limitName])

        // Appends, each from the offset the server confirmed.
        while true {
            try checkCancellation()
            try checkUnchanged(stamp)
            try? UploadSidecar(
                url: target, uploadURL: resource, length: stamp.length, modified: stamp.modified, offset: offset
            ).write(besides: source)
            let chunk = min(stamp.length - offset, limit.maximumAppendSize ?? Int64.max)
            let end = offset + chunk
            var append = try request(.patch, url: resource, remaining: remaining)
            append.head.headerFields[.contentType] = ResumableUploadFields.partialUploadType
            append.head.headerFields[ResumableUploadFields.offsetName] = String(offset)
            append.head.headerFields[ResumableUploadFields.completeName] = ResumableUploadFields.boolean(
                end == stamp.length)
            append.body = chunk > 0 ? .file(path: source, offset: offset, length: chunk) : .bytes(Data())
            append.options.eventHandler = handler(base: offset, total: stamp.length, live: live, onLocation: nil)
            progress.requestCount += 1
            let response = try await transport.data(for: append)
            let code = response.head.status.code
            switch UploadStep.afterAppend(
                status: code, fields: response.head.headerFields, end: end, length: stamp.length,
                retryableStatuses: retryable)
            {
            case .complete:
                return .finished(response)
            case .append(let next):
                if code == 409 {
                    progress.conflicts += 1
                    guard progress.conflicts <= Self.maximumConflicts else { throw conflicting(resource) }
                }
                offset = next
            case .askOffset:
                progress.conflicts += 1
                guard progress.conflicts <= Self.maximumConflicts else { throw conflicting(resource) }
                return .askAgain
            case .gone:
                throw gone(resource)
            case .offsetInvalid(let claimed):
                throw invalidOffset(claimed, resource: resource, length: stamp.length)
            case .retry:
                throw statusFailure(response.head, url: resource)
            default:
                throw refused(response.head, url: resource)
            }
        }
    }

    /// The creation request: the whole file, with the `104`'s `Location` recorded in the
    /// sidecar the moment it arrives.
    private func create(
        stamp: Stamp, progress: inout Progress, live: PThreadMutex<Live>, remaining: Duration?
    ) async throws -> DataResponse {
        var creation = try request(.post, url: target, remaining: remaining)
        if creation.head.headerFields[.contentType] == nil {
            creation.head.headerFields[.contentType] = options.contentType
        }
        creation.head.headerFields[ResumableUploadFields.completeName] = ResumableUploadFields.boolean(true)
        creation.head.headerFields[ResumableUploadFields.lengthName] = String(stamp.length)
        creation.body = .file(path: source, offset: 0, length: stamp.length)
        let record: @Sendable (String) -> Void = { [source, target] location in
            let sidecar = UploadSidecar(
                url: target, uploadURL: location, length: stamp.length, modified: stamp.modified, offset: 0)
            do {
                try sidecar.write(besides: source)
            } catch {
                live.withLock { $0.sidecarFailure = "\(error)" }
            }
        }
        creation.options.eventHandler = handler(base: 0, total: stamp.length, live: live, onLocation: record)
        progress.requestCount += 1
        let response: DataResponse
        do {
            response = try await transport.data(for: creation)
        } catch let error as TransportError {
            progress.uploadURL = live.withLock { $0.uploadURL }
            try checkCancellation()
            if progress.uploadURL == nil, live.withLock({ $0.sent }) > 0 {
                throw unsupported(
                    "the connection failed (\(error.message)) after part of the file was sent, before the server "
                        + "offered to resume it (no 104 Upload Resumption Supported with a Location)")
            }
            throw error
        }
        var found = live.withLock { $0.uploadURL }
        if found == nil, let location = response.head.headerFields[.location], let resolved = resolve(location) {
            found = resolved
            if ResumableUploadFields.parseBoolean(response.head.headerFields[ResumableUploadFields.completeName])
                == false
            {
                record(resolved)
            }
        }
        progress.uploadURL = found
        if let failure = live.withLock({ $0.sidecarFailure }) {
            throw TransportError(
                .uploadFailed,
                message: "The sidecar \(UploadSidecar.path(of: source)) could not be written (\(failure)), so the "
                    + "upload could not be resumed after a crash. Check that the file's folder is writable.",
                url: target)
        }
        return response
    }

    /// The engine's event handler for a request whose body starts at `base`: progress, and
    /// the upload resource from a `104`.
    private func handler(
        base: Int64, total: Int64, live: PThreadMutex<Live>, onLocation: (@Sendable (String) -> Void)?
    ) -> @Sendable (TransferEvent) -> Void {
        live.withLock {
            $0.attemptSent = 0
            $0.base = base
        }
        let report = options.progressHandler
        return { [target] event in
            switch event {
            case .uploadProgress(let sent):
                let progress = live.withLock { state -> TransferProgress? in
                    let delta = max(0, sent.completed - state.attemptSent)
                    state.attemptSent += delta
                    state.sent += delta
                    state.meter.add(Int(delta))
                    return state.meter.progress(completed: state.base + state.attemptSent, total: total)
                }
                if let progress { report?(progress) }
            case .informationalResponse(let head):
                guard head.status.code == ResumableUploadFields.resumptionSupportedStatus,
                    let onLocation, let location = head.headerFields[.location],
                    let resolved = URL(string: location, relativeTo: URL(string: target))?.absoluteString
                else { return }
                let isNew = live.withLock { state -> Bool in
                    guard state.uploadURL == nil else { return false }
                    state.uploadURL = resolved
                    return true
                }
                // Written here, on the engine's thread, before the body goes on: a crash from now on
                // leaves a sidecar that resumes the upload. One small file, renamed into place.
                if isNew { onLocation(resolved) }
            default:
                break
            }
        }
    }

    // MARK: - Helpers

    /// A request of the upload: the caller's fields, the interop version, the deadline.
    private func request(_ method: HTTPRequest.Method, url: String, remaining: Duration?) throws -> TransportRequest {
        var request = try TransportRequest(method: method, url: url)
        request.head.headerFields.append(contentsOf: options.headerFields)
        request.head.headerFields[ResumableUploadFields.interopVersionName] = ResumableUploadFields.interopVersion
        return request.cappingDeadline(to: remaining)
    }

    /// `location` resolved against the creation URL.
    private func resolve(_ location: String) -> String? {
        URL(string: location, relativeTo: URL(string: target))?.absoluteString
    }

    private func readStamp() throws -> Stamp {
        do {
            let attributes = try FileManager.default.attributesOfItem(atPath: source)
            let length = (attributes[.size] as? NSNumber)?.int64Value ?? 0
            let modified = (attributes[.modificationDate] as? Date)?.timeIntervalSince1970 ?? 0
            return Stamp(length: length, modified: modified)
        } catch {
            throw TransportError(
                .uploadFailed, message: "The file \(source) cannot be read for its upload to \(target): \(error).",
                url: target, mayHaveReachedServer: false)
        }
    }

    private func checkUnchanged(_ stamp: Stamp) throws {
        guard try readStamp() == stamp else {
            throw TransportError(
                .uploadSourceChanged,
                message: "\(source) changed while it was being uploaded to \(target); nothing more is sent. Cancel "
                    + "the upload and run it again.",
                url: target, mayHaveReachedServer: false)
        }
    }

    /// Whether a failure ends the run whatever the policy says: the upload's own verdicts.
    private static func endsTheRun(_ error: TransportError) -> Bool {
        [.resumptionUnsupported, .uploadGone, .uploadOffsetInvalid, .uploadSourceChanged, .uploadFailed]
            .contains(error.category)
    }

    private func statusFailure(_ head: HTTPResponse, url: String) -> StatusFailure {
        StatusFailure(
            error: TransportError(
                .uploadFailed,
                message: "\(answered(head, url: url)) The server is failing or overloaded; try again later.",
                url: url),
            head: head, url: url)
    }

    private func refused(_ head: HTTPResponse, url: String) -> TransportError {
        TransportError(
            .uploadFailed,
            message:
                "\(answered(head, url: url)) The upload cannot go on; check the URL and the request's credentials.",
            url: url)
    }

    private func unsupported(_ why: String) -> TransportError {
        TransportError(
            .resumptionUnsupported,
            message: "The server at \(target) does not support resumable uploads: \(why). Send the file again as a "
                + "plain upload, or to a server that supports draft-ietf-httpbis-resumable-upload (interop version "
                + "\(ResumableUploadFields.interopVersion)).",
            url: target)
    }

    private func gone(_ resource: String) -> TransportError {
        UploadSidecar.remove(besides: source)
        return TransportError(
            .uploadGone,
            message: "The upload at \(resource) is gone (the server expired or removed it); its sidecar was removed. "
                + "Run the upload again to send \(source) from the start.",
            url: resource)
    }

    private func invalidOffset(_ claimed: Int64, resource: String, length: Int64) -> TransportError {
        TransportError(
            .uploadOffsetInvalid,
            message: "The upload at \(resource) claims offset \(claimed) of a \(length)-byte file, which was never "
                + "sent; nothing more is sent. Cancel the upload and send the file again.",
            url: resource)
    }

    private func conflicting(_ resource: String) -> TransportError {
        TransportError(
            .uploadFailed,
            message: "The upload at \(resource) disagreed with the client's offset \(Self.maximumConflicts + 1) times "
                + "(409 Conflict); another client may be uploading to it. Run the upload again later.",
            url: resource)
    }

    private func answered(_ head: HTTPResponse, url: String) -> String {
        let reason = head.status.reasonPhrase
        let status = reason.isEmpty ? "\(head.status.code)" : "\(head.status.code) \(reason)"
        return "The server at \(url) answered \(status) to the upload."
    }

    private func checkCancellation() throws {
        if Task.isCancelled { throw cancelledError() }
    }

    private func cancelledError() -> TransportError {
        TransportError(
            .cancelled, message: "The upload of \(source) to \(target) was stopped before it finished.", url: target)
    }
}
