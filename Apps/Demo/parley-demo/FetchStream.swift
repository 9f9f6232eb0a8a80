import Downloads
import Feedback
import FeedbackConsole
import Forms
import Foundation
import HTTPTypes
import Logging
import Mapping
import Retry
import Transport

/// `fetch` without `--output`: the body goes to standard output as it arrives, in constant
/// memory, through the engine's streaming `send(_:)`.
///
/// The request is retried under the client's policy until a response head stands (the same
/// `RetryLoop` as every form's). A status of 400 or more writes nothing: its (small) body is
/// read only to describe the failure. Once bytes are on standard output they cannot be taken
/// back, so a transfer that fails part-way is resumed only where no byte can be written twice:
/// a GET whose response named a strong validator (`ETag`, or a strong `Last-Modified`) asks
/// for the rest with `Range` and `If-Range` from the count already written, with the
/// download's own rules (`ResumePoint`); any other answer, or a response without a validator,
/// fails with an error saying how many bytes were written.
struct FetchStream {
    /// The request, headers and body included.
    var request: TransportRequest
    /// What the progress bar is called.
    var label: String
    /// Sent with every attempt, when there is one.
    var idempotencyKey: String?

    /// Streams the body to standard output.
    ///
    /// - Throws: The failure that stands: `TransportError`, `MappingError` for a status of
    ///   400 or more, ``FetchStreamBroken`` after a partial body that cannot be resumed, or
    ///   `StandardOutputError`.
    func run(in session: DemoSession) async throws {
        let progress = ProgressType.bar(label: label)
        let activity = ActivityID.next()
        progress.progressBegan(activity)
        do {
            try await stream(session: session, progress: progress, activity: activity)
            progress.progressEnded(activity, outcome: ActivityOutcome(Result<Void, any Error>.success(())))
        } catch {
            progress.progressEnded(activity, outcome: ActivityOutcome(Result<Void, any Error>.failure(error)))
            throw error
        }
    }

    private func stream(session: DemoSession, progress: ProgressType, activity: ActivityID) async throws {
        let client = session.client
        let policy = client.retry
        let memory = RetryMemory(idempotencyKey: idempotencyKey)
        var written: Int64 = 0
        var validator: DownloadValidator?
        var expectedLength: Int64?
        // Resumes in a row that added nothing; one that added bytes starts the count again.
        var resumes = 0
        while true {
            let point = ResumePoint(offset: written, validator: validator, expectedLength: expectedLength)
            var attempt = request
            if let key = memory.idempotencyKey { attempt.head.headerFields[IdempotencyKey.fieldName] = key }
            attempt.head.headerFields[.range] = point.rangeHeaderValue
            attempt.head.headerFields[.ifRange] = point.ifRangeHeaderValue
            let base = written
            attempt.options.eventHandler = { event in
                switch event {
                case .uploadProgress(let value):
                    progress.progressChanged(activity, direction: .upload, progress: value)
                case .downloadProgress(let value):
                    // Counted from the first byte of the body, across resumes.
                    let whole = TransferProgress(
                        completed: base + value.completed, total: value.total.map { base + $0 },
                        bytesPerSecond: value.bytesPerSecond, isFinal: value.isFinal)
                    progress.progressChanged(activity, direction: .download, progress: whole)
                default:
                    break
                }
            }
            let loop = RetryLoop(
                policy: policy, memory: memory, logger: client.logger,
                reloadPrompt: written == 0 ? session.screen.reloadPrompt : nil,
                onRetry: { progress.progressRetrying(activity, notice: $0) })
            let sent = attempt
            let transport = client.transport
            // The engine logs each request's line; the headers, which a form's request logs
            // through the client's `LoggingPlugin`, are logged here the same way.
            if client.isLoggingEnabled { client.logger.debug("\(sent.head.headerFields.redactedForLogging)") }
            let response = try await loop.run(RetryRequest(sent)) { remaining in
                try await transport.send(sent.cappingDeadline(to: remaining))
            }
            defer { response.body.cancel() }
            if client.isLoggingEnabled { client.logger.debug("\(response.head.headerFields.redactedForLogging)") }

            if written == 0 {
                try await Self.checkStatus(of: response)
                validator = DownloadValidator(response: response.head)
                expectedLength = response.head.headerFields[.contentLength].flatMap { Int64($0) }
            } else {
                switch point.decision(for: response.head) {
                case .append:
                    break
                case .alreadyComplete:
                    return
                case .replace:
                    throw FetchStreamBroken(
                        written: written,
                        reason: "the server sent the whole body again instead of the rest (a new version, or "
                            + "it ignores ranges)")
                case .discardAndRefetch(let reason):
                    throw FetchStreamBroken(written: written, reason: reason)
                case .unexpectedStatus(let status):
                    throw FetchStreamBroken(
                        written: written, reason: "the server answered \(status) to the request for the rest")
                }
            }

            do {
                for try await chunk in response.body {
                    try StandardStreams.writeOutput(chunk)
                    written += Int64(chunk.count)
                }
                return
            } catch let error as TransportError where error.category != .cancelled && !Task.isCancelled {
                guard written > 0 else {
                    // Nothing written yet: the request can be sent again as it was.
                    resumes += 1
                    guard resumes <= policy.maximumRetries else { throw error }
                    try await Self.wait(before: resumes, policy: policy, error: error, progress: progress, activity)
                    continue
                }
                guard RetryRequest(request).method == .get, validator != nil,
                    policy.retryableFailures.contains(error.category)
                else {
                    throw FetchStreamBroken(
                        written: written,
                        reason: validator == nil
                            ? "the server named no strong validator (ETag or Last-Modified) to ask for the rest of "
                                + "the same version with: \(error.message)"
                            : error.message)
                }
                resumes = written > base ? 1 : resumes + 1
                guard resumes <= policy.maximumRetries else {
                    throw FetchStreamBroken(written: written, reason: error.message)
                }
                try await Self.wait(before: resumes, policy: policy, error: error, progress: progress, activity)
            }
        }
    }

    /// Fails a response whose status is not a success: nothing of its body goes to standard
    /// output, and the body (read up to 1 MiB) is only described, as for every other command.
    private static func checkStatus(of response: TransportResponse) async throws {
        guard !(200..<300).contains(response.head.status.code) else { return }
        let body = (try? await response.body.collect(upTo: 1 << 20)) ?? Data()
        let collected = DataResponse(head: response.head, body: body, url: response.url)
        try ResponseDecoder().validate(collected)
        // A status the decoder accepts (a 304, say) is written as it came.
        try StandardStreams.writeOutput(body)
    }

    /// Says that the transfer is sent again, and waits the policy's backoff.
    private static func wait(
        before retry: Int, policy: RetryPolicy, error: TransportError, progress: ProgressType, _ activity: ActivityID
    ) async throws {
        let delay = policy.backoff(beforeRetry: retry)
        progress.progressRetrying(
            activity,
            notice: RetryEvent(
                attempt: retry + 1, maximumAttempts: policy.maximumAttempts, reason: error.message, delay: delay,
                serverAsked: false))
        try await Task.sleep(for: delay)
    }
}

/// A body that failed part-way after some of it was written to standard output, and that
/// cannot be resumed without writing a byte twice.
struct FetchStreamBroken: Error, Errorable, CustomStringConvertible {
    /// The bytes written to standard output, all of them the body's first bytes, in order.
    var written: Int64
    /// Why the rest could not be fetched.
    var reason: String

    var message: String? {
        "The body stopped after \(written) bytes were written to standard output, and the rest cannot be "
            + "fetched without writing bytes twice: \(reason). Run it again, or use --output FILE, which resumes "
            + "from the bytes on disk."
    }
    var isFailure: Bool { true }
    var description: String { message ?? "" }
}
