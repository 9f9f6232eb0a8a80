#if Observability
    import InMemoryTracing
    import Synchronization
    import Tracing

    /// An `InMemoryTracer` that propagates as W3C Trace Context does: `traceparent:
    /// 00-{trace id}-{span id}-01` and a fixed `tracestate`, its ids 32 and 16 hex digits, counted
    /// from 1. What a real tracer (swift-otel's) writes, without its exporter.
    struct W3CTestTracer: Tracer {
        /// The `tracestate` every request carries.
        static let traceState = "parley=test"

        let base: InMemoryTracer

        init() {
            let traces = Atomic(0)
            let spans = Atomic(0)
            let generator = InMemoryTracer.IDGenerator(
                nextTraceID: { hex(traces.add(1, ordering: .relaxed).newValue, digits: 32) },
                nextSpanID: { hex(spans.add(1, ordering: .relaxed).newValue, digits: 16) })
            base = InMemoryTracer(idGenerator: generator)
        }

        func startSpan<Instant: TracerInstant>(
            _ operationName: String,
            context: @autoclosure () -> InstrumentationContext,
            ofKind kind: SpanKind,
            at instant: @autoclosure () -> Instant,
            function: String,
            file fileID: String,
            line: UInt
        ) -> InMemorySpan {
            base.startSpan(
                operationName, context: context(), ofKind: kind, at: instant(), function: function, file: fileID,
                line: line)
        }

        func forceFlush() {}

        func inject<Carrier, Inject: Injector>(
            _ context: InstrumentationContext, into carrier: inout Carrier, using injector: Inject
        ) where Inject.Carrier == Carrier {
            guard let span = context.inMemorySpanContext else { return }
            injector.inject("00-\(span.traceID)-\(span.spanID)-01", forKey: "traceparent", into: &carrier)
            injector.inject(Self.traceState, forKey: "tracestate", into: &carrier)
        }

        func extract<Carrier, Extract: Extractor>(
            _ carrier: Carrier, into context: inout InstrumentationContext, using extractor: Extract
        ) where Extract.Carrier == Carrier {}
    }

    /// `value` in lowercase hex, zero-padded to `digits`.
    private func hex(_ value: Int, digits: Int) -> String {
        let text = String(value, radix: 16)
        return String(repeating: "0", count: max(0, digits - text.count)) + text
    }
#endif
