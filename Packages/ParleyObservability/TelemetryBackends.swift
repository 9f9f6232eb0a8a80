#if Observability
    internal import Metrics
    internal import Tracing

    /// The metrics factory and the tracer a telemetry link records to: what is bootstrapped, or
    /// what the enclosing `withMetricsFactory` and `withTracer` scopes set.
    struct TelemetryBackends {
        /// The factory, `nil` while it is the no-op one.
        let metrics: (any MetricsFactory)?
        /// The tracer, `nil` while it is the no-op one.
        let tracer: (any Tracer)?

        /// The backends a request is recorded to now, or `nil` while both are the no-op ones.
        ///
        /// The instrument is read first: checking its concrete type is cheap, where finding the
        /// tracer in it is a protocol cast. Without a backend these two reads are all a request
        /// pays.
        static var current: TelemetryBackends? {
            let factory = MetricsSystem.factory
            let measures = !(factory is NOOPMetricsHandler)
            guard measures || !(InstrumentationSystem.instrument is NoOpInstrument) else { return nil }
            let tracer = InstrumentationSystem.tracer
            let traces = !(tracer is NoOpTracer)
            guard measures || traces else { return nil }
            return TelemetryBackends(metrics: measures ? factory : nil, tracer: traces ? tracer : nil)
        }
    }
#endif
