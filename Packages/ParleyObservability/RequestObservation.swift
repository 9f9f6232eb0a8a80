#if Observability
    internal import Metrics
    internal import Tracing
    internal import Transport

    /// What ``RequestTelemetry`` hands to the ``AttemptTelemetry`` inside it, through the
    /// request's `userInfo`: which logical request an attempt belongs to, its attempt count, and
    /// the outcome of the last attempt, which names the reason of the retry that follows.
    ///
    /// The retry link sends the request it was given, `userInfo` included, once per attempt, so
    /// every attempt finds the observation of its logical request.
    final class RequestObservation: Sendable {
        /// The key under which the observation travels.
        enum Key: RequestUserInfoKey {
            typealias Value = RequestObservation
        }

        private struct State {
            var attempts = 0
            var lastOutcome: String?
        }

        /// The request, as the telemetry names it.
        let target: ObservedTarget
        /// Where the request's metrics go; `nil` when metrics are off.
        let metrics: (any MetricsFactory)?
        /// The request's span, for the retry events; `nil` when tracing is off.
        let span: (any Span)?
        private let state = PThreadMutex(State())

        init(target: ObservedTarget, metrics: (any MetricsFactory)?, span: (any Span)?) {
            self.target = target
            self.metrics = metrics
            self.span = span
        }

        /// Counts an attempt starting and returns its number, 1 for the first.
        func attemptStarted() -> Int {
            state.withLock { state in
                state.attempts += 1
                return state.attempts
            }
        }

        /// How many attempts started.
        var attempts: Int { state.withLock { $0.attempts } }

        /// Records how an attempt ended: its `error.type`, or the status code of its response.
        func attemptEnded(outcome: String) {
            state.withLock { $0.lastOutcome = outcome }
        }

        /// Counts a retry the retry link announced and adds it to the request span as an event.
        func retried(_ event: RetryEvent) {
            let outcome = state.withLock { $0.lastOutcome }
            let reason = Self.reason(lastOutcome: outcome)
            if let metrics {
                Counter(
                    label: TelemetryNames.retries, dimensions: target.dimensions(TelemetryNames.retryReason, reason),
                    factory: metrics
                )
                .increment()
            }
            if let span {
                var attributes = SpanAttributes()
                attributes.set("parley.retry.attempt", value: .int(Int64(event.attempt)))
                attributes.set(TelemetryNames.retryReason, value: .string(reason))
                if let delay = event.delay {
                    attributes.set("parley.retry.delay_ms", value: .int(delay.milliseconds))
                }
                span.addEvent(SpanEvent(name: "retry", attributes: attributes))
            }
        }

        /// The reason of a retry: the outcome of the attempt before it, when that was a failure;
        /// `business` when it answered below 400 (the retry policy refused the body); `unknown`
        /// when no attempt was seen.
        static func reason(lastOutcome: String?) -> String {
            guard let lastOutcome else { return "unknown" }
            if let code = Int(lastOutcome), code < 400 { return "business" }
            return lastOutcome
        }
    }

    extension Duration {
        /// The duration in whole milliseconds.
        fileprivate var milliseconds: Int64 {
            let (seconds, attoseconds) = components
            return seconds * 1000 + attoseconds / 1_000_000_000_000_000
        }

        /// The duration in whole nanoseconds, saturating.
        var nanoseconds: Int64 {
            let (seconds, attoseconds) = components
            let (whole, overflow) = seconds.multipliedReportingOverflow(by: 1_000_000_000)
            return overflow ? .max : whole + attoseconds / 1_000_000_000
        }
    }
#endif
