#if Observability
    internal import Caching
    internal import Foundation
    internal import HTTPTypes
    internal import Metrics
    internal import Tracing
    public import Transport

    /// The outer link of the telemetry: one span and one set of metrics per logical request,
    /// however many attempts the retry link inside it makes.
    ///
    /// Put it outside the retry link, and ``AttemptTelemetry`` inside it, so that a request's
    /// attempts are children of its span and its retries are counted:
    ///
    /// ```swift
    /// let transport = MiddlewareTransport(
    ///     try CurlTransport(),
    ///     middleware: [RequestTelemetry(), RetryMiddleware(), AttemptTelemetry(), HTTPCache()])
    /// ```
    ///
    /// It is on when a backend is bootstrapped: it reads `MetricsSystem.factory` and
    /// `InstrumentationSystem.tracer` for every request (a `withMetricsFactory` or `withTracer`
    /// scope included), and while both are the no-op ones it hands the request on untouched.
    ///
    /// For each request it
    /// - starts a span named `HTTP {method}` (kind internal) under the task's current context,
    ///   with the attributes `http.request.method`, `server.address`, `server.port`, `url.scheme`
    ///   and `url.full` (redacted), then `http.response.status_code`, `parley.cache.status`,
    ///   `parley.request.attempts`, and `error.type` with an error status for a thrown error or a
    ///   status of 400 or more; each retry is an event `retry` on it;
    /// - propagates the span's context into the request's header fields with
    ///   `InstrumentationSystem.instrument.inject` (`traceparent` and `tracestate` with a W3C
    ///   tracer), which ``AttemptTelemetry`` replaces with each attempt's own;
    /// - counts it in ``TelemetryNames/requests``, ``TelemetryNames/failures``,
    ///   ``TelemetryNames/retries`` and ``TelemetryNames/cacheLookups``, keeps it in
    ///   ``TelemetryNames/activeRequests`` while it runs, and times it in
    ///   ``TelemetryNames/logicalRequestDuration``.
    ///
    /// A request ends, for the telemetry, when the response head comes back through the link;
    /// reading a streamed body afterwards is not part of its span.
    ///
    /// Retries are seen through the request's `TransferOptions.eventHandler`, which the link wraps
    /// (the request's own handler is still called). A handler set only in an engine's default
    /// options is not called for the requests the link sees: set it on the request.
    public struct RequestTelemetry: TransportMiddleware {
        /// Creates the link. It has no settings: the backends are those bootstrapped, or those of
        /// the enclosing `withMetricsFactory` and `withTracer` scopes.
        public init() {}

        /// Observes one logical request, or hands it on untouched while both backends are no-ops.
        public func intercept(_ request: TransportRequest, next: Next) async throws -> TransportResponse {
            guard let backends = TelemetryBackends.current else { return try await next(request) }
            return try await observe(request, next: next, metrics: backends.metrics, tracer: backends.tracer)
        }

        private func observe(
            _ request: TransportRequest, next: Next, metrics: (any MetricsFactory)?, tracer: (any Tracer)?
        ) async throws -> TransportResponse {
            let target = ObservedTarget(request)
            let context = InstrumentationContext.current ?? .topLevel
            let span = tracer.map { $0.startSpan("HTTP \(target.method)", context: context, ofKind: .internal) }
            defer { span?.end() }
            span?.updateAttributes { target.describe(into: &$0) }

            let observation = RequestObservation(target: target, metrics: metrics, span: span)
            var request = request
            request.userInfo[RequestObservation.Key.self] = observation
            let forward = request.options.eventHandler
            request.options.eventHandler = { event in
                if case .retry(let retry) = event { observation.retried(retry) }
                forward?(event)
            }
            if let span {
                InstrumentationSystem.instrument.inject(
                    span.context, into: &request.head.headerFields, using: HTTPFieldsInjector())
            }

            let active = metrics.map {
                Meter(
                    label: TelemetryNames.activeRequests,
                    dimensions: target.dimensions(TelemetryNames.urlScheme, target.scheme), factory: $0)
            }
            active?.increment()
            defer { active?.decrement() }
            let start = ContinuousClock.now
            do {
                let response: TransportResponse
                if let span {
                    response = try await InstrumentationContext.withValue(span.context) { try await next(request) }
                } else {
                    response = try await next(request)
                }
                ended(observation, status: response.status, cache: CacheStatus(response.head), after: start)
                return response
            } catch {
                failed(observation, error: error, after: start)
                throw error
            }
        }

        private func ended(
            _ observation: RequestObservation, status: HTTPResponse.Status, cache: CacheStatus?,
            after start: ContinuousClock.Instant
        ) {
            let target = observation.target
            let statusClass = ObservedTarget.statusClass(status)
            if let span = observation.span {
                span.updateAttributes { attributes in
                    attributes.set(TelemetryNames.statusCode, value: .int(Int64(status.code)))
                    attributes.set(TelemetryNames.attempts, value: .int(Int64(observation.attempts)))
                    if let cache { attributes.set(TelemetryNames.cacheStatus, value: .string(cache.rawValue)) }
                    if status.code >= 400 { attributes.set(TelemetryNames.errorType, value: .string("\(status.code)")) }
                }
                if status.code >= 400 { span.setStatus(SpanStatus(code: .error)) }
            }
            guard let metrics = observation.metrics else { return }
            let dimensions = target.dimensions(TelemetryNames.statusClass, statusClass)
            Counter(label: TelemetryNames.requests, dimensions: dimensions, factory: metrics).increment()
            Timer(label: TelemetryNames.logicalRequestDuration, dimensions: dimensions, factory: metrics)
                .recordNanoseconds((ContinuousClock.now - start).nanoseconds)
            if let cache {
                Counter(
                    label: TelemetryNames.cacheLookups,
                    dimensions: target.dimensions(TelemetryNames.cacheStatus, cache.rawValue), factory: metrics
                ).increment()
            }
        }

        private func failed(_ observation: RequestObservation, error: any Error, after start: ContinuousClock.Instant) {
            let target = observation.target
            let errorType = ObservedTarget.errorType(error)
            if let span = observation.span {
                span.updateAttributes { attributes in
                    attributes.set(TelemetryNames.errorType, value: .string(errorType))
                    attributes.set(TelemetryNames.attempts, value: .int(Int64(observation.attempts)))
                }
                span.recordError(error)
                span.setStatus(SpanStatus(code: .error))
            }
            guard let metrics = observation.metrics else { return }
            let dimensions = target.dimensions(TelemetryNames.statusClass, "error")
            Counter(label: TelemetryNames.requests, dimensions: dimensions, factory: metrics).increment()
            Counter(
                label: TelemetryNames.failures, dimensions: target.dimensions(TelemetryNames.errorType, errorType),
                factory: metrics
            ).increment()
            Timer(label: TelemetryNames.logicalRequestDuration, dimensions: dimensions, factory: metrics)
                .recordNanoseconds((ContinuousClock.now - start).nanoseconds)
        }
    }
#endif
