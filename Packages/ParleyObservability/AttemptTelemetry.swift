#if Observability
    internal import Foundation
    internal import HTTPTypes
    internal import Metrics
    internal import Tracing
    public import Transport

    /// The inner link of the telemetry: one client span and one duration per attempt, the
    /// transfer's phases as timers, and the attempt's trace context in its header fields.
    ///
    /// Put it inside the retry link, last before the transport, with ``RequestTelemetry``
    /// outside the retry link: each attempt then becomes a child of the request's span, numbered
    /// by the ``RequestTelemetry`` it belongs to. Alone, it treats every request as a first attempt.
    ///
    /// For each attempt it
    /// - starts a span named `{method}` (kind client, the span OpenTelemetry describes for an HTTP
    ///   client) under the task's current context, with the request's attributes,
    ///   `http.request.resend_count` from the second attempt on, then `http.response.status_code`,
    ///   `network.protocol.version`, and `error.type` with an error status for a thrown error or
    ///   a status of 400 or more;
    /// - writes the span's context into the request's header fields with
    ///   `InstrumentationSystem.instrument.inject`, so that the server continues the trace from
    ///   the attempt (`traceparent` and `tracestate` with a W3C tracer);
    /// - records ``TelemetryNames/requestDuration`` and, from the engine's `TransferMetrics`, the
    ///   phases: ``TelemetryNames/nameLookupDuration``, ``TelemetryNames/connectDuration``,
    ///   ``TelemetryNames/tlsHandshakeDuration`` and ``TelemetryNames/firstByteDuration``.
    ///
    /// The engine reports `TransferMetrics` through the request's `TransferOptions.eventHandler`
    /// (wrapped by the link; the request's own handler is still called) when the transfer ends:
    /// before the response comes back from `data(for:)`, after its body is read from `send(_:)`.
    /// The timers are recorded then, with the status; the span ends when the response head comes
    /// back. A failed transfer reports no `TransferMetrics`: its duration is measured by the link.
    ///
    /// Like ``RequestTelemetry``, it is on when a metrics or tracing backend is bootstrapped, and
    /// hands the request on untouched otherwise.
    public struct AttemptTelemetry: TransportMiddleware {
        /// Creates the link. It has no settings: the backends are those bootstrapped, or those of
        /// the enclosing `withMetricsFactory` and `withTracer` scopes.
        public init() {}

        /// Observes one attempt, or hands it on untouched while both backends are no-ops.
        public func intercept(_ request: TransportRequest, next: Next) async throws -> TransportResponse {
            guard let backends = TelemetryBackends.current else { return try await next(request) }
            return try await observe(request, next: next, metrics: backends.metrics, tracer: backends.tracer)
        }

        private func observe(
            _ request: TransportRequest, next: Next, metrics: (any MetricsFactory)?, tracer: (any Tracer)?
        ) async throws -> TransportResponse {
            let observation = request.userInfo[RequestObservation.Key.self]
            let target = observation?.target ?? ObservedTarget(request)
            let attempt = observation?.attemptStarted() ?? 1
            let context = InstrumentationContext.current ?? .topLevel
            let span = tracer.map { $0.startSpan(target.method, context: context, ofKind: .client) }
            defer { span?.end() }
            span?.updateAttributes { attributes in
                target.describe(into: &attributes)
                if attempt > 1 { attributes.set(TelemetryNames.resendCount, value: .int(Int64(attempt - 1))) }
            }

            var request = request
            let record = AttemptRecord(target: target, metrics: metrics)
            let forward = request.options.eventHandler
            request.options.eventHandler = { event in
                if case .metrics(let transfer) = event { record.transferEnded(transfer) }
                forward?(event)
            }
            if let span {
                InstrumentationSystem.instrument.inject(
                    span.context, into: &request.head.headerFields, using: HTTPFieldsInjector())
            }

            let start = ContinuousClock.now
            do {
                let response: TransportResponse
                if let span {
                    response = try await InstrumentationContext.withValue(span.context) { try await next(request) }
                } else {
                    response = try await next(request)
                }
                let status = response.status
                observation?.attemptEnded(outcome: "\(status.code)")
                record.responded(status)
                if let span {
                    let version = record.protocolVersion
                    span.updateAttributes { attributes in
                        attributes.set(TelemetryNames.statusCode, value: .int(Int64(status.code)))
                        if let version { attributes.set(TelemetryNames.protocolVersion, value: .string(version)) }
                        if status.code >= 400 {
                            attributes.set(TelemetryNames.errorType, value: .string("\(status.code)"))
                        }
                    }
                    if status.code >= 400 { span.setStatus(SpanStatus(code: .error)) }
                }
                return response
            } catch {
                let errorType = ObservedTarget.errorType(error)
                observation?.attemptEnded(outcome: errorType)
                record.failed(errorType: errorType, after: ContinuousClock.now - start)
                if let span {
                    span.updateAttributes { $0.set(TelemetryNames.errorType, value: .string(errorType)) }
                    span.recordError(error)
                    span.setStatus(SpanStatus(code: .error))
                }
                throw error
            }
        }
    }

    /// The timers of one attempt, recorded once both its status and its `TransferMetrics` are
    /// known, in whichever order they come.
    private final class AttemptRecord: Sendable {
        private struct State {
            var status: HTTPResponse.Status?
            var transfer: TransferMetrics?
            var recorded = false
        }

        let target: ObservedTarget
        /// Where the timers go; `nil` when metrics are off (the record then keeps the HTTP version
        /// for the span alone).
        let metrics: (any MetricsFactory)?
        private let state = PThreadMutex(State())

        init(target: ObservedTarget, metrics: (any MetricsFactory)?) {
            self.target = target
            self.metrics = metrics
        }

        /// The HTTP version of the transfer, once its metrics came.
        var protocolVersion: String? { state.withLock { $0.transfer?.httpVersion } }

        func transferEnded(_ transfer: TransferMetrics) {
            let ready = state.withLock { state -> HTTPResponse.Status? in
                state.transfer = transfer
                return Self.claim(&state)
            }
            if let ready { record(status: ready, transfer: transfer) }
        }

        func responded(_ status: HTTPResponse.Status) {
            let transfer = state.withLock { state -> TransferMetrics? in
                state.status = status
                return Self.claim(&state) != nil ? state.transfer : nil
            }
            if let transfer { record(status: status, transfer: transfer) }
        }

        func failed(errorType: String, after duration: Duration) {
            guard let metrics else { return }
            Timer(
                label: TelemetryNames.requestDuration,
                dimensions: target.dimensions(TelemetryNames.errorType, errorType),
                factory: metrics
            ).recordNanoseconds(duration.nanoseconds)
        }

        /// The status, the first time both it and the metrics are there.
        private static func claim(_ state: inout State) -> HTTPResponse.Status? {
            guard !state.recorded, let status = state.status, state.transfer != nil else { return nil }
            state.recorded = true
            return status
        }

        private func record(status: HTTPResponse.Status, transfer: TransferMetrics) {
            guard let metrics else { return }
            let dimensions =
                target.dimensions + [
                    (TelemetryNames.statusCode, "\(status.code)"),
                    (TelemetryNames.statusClass, ObservedTarget.statusClass(status)),
                ]
            Timer(label: TelemetryNames.requestDuration, dimensions: dimensions, factory: metrics)
                .recordNanoseconds(transfer.total.nanoseconds)
            let phases: [(String, Duration)] = [
                (TelemetryNames.nameLookupDuration, transfer.nameLookup),
                (TelemetryNames.connectDuration, transfer.connect),
                (TelemetryNames.tlsHandshakeDuration, transfer.tlsHandshake),
                (TelemetryNames.firstByteDuration, transfer.firstByte),
            ]
            for (label, duration) in phases {
                Timer(label: label, dimensions: target.dimensions, factory: metrics).recordNanoseconds(
                    duration.nanoseconds)
            }
        }
    }
#endif
