import Foundation
import Synchronization
import Tracing

/// `--trace`: an in-process tracer that keeps the spans of one command and prints them as an
/// indented tree, children under their parent in the order they started.
///
/// It propagates its context as W3C Trace Context does (`traceparent:
/// 00-{trace id}-{span id}-01`), so the backend sees the trace that the tree shows. A demo's
/// tracer, not a backend: it keeps every span in memory until the command ends.
final class SpanTreeTracer: Tracer, Sendable {
    /// The spans that ended, in the order they ended.
    private let finished = Mutex<[SpanTreeSpan.Record]>([])

    func startSpan<Instant: TracerInstant>(
        _ operationName: String,
        context: @autoclosure () -> InstrumentationContext,
        ofKind kind: SpanKind,
        at instant: @autoclosure () -> Instant,
        function: String,
        file fileID: String,
        line: UInt
    ) -> SpanTreeSpan {
        var context = context()
        let parent = context.spanTreeIdentity
        let identity = SpanTreeSpan.Identity(
            traceID: parent?.traceID ?? Self.randomHex(bytes: 16), spanID: Self.randomHex(bytes: 8))
        context.spanTreeIdentity = identity
        return SpanTreeSpan(
            operationName: operationName, kind: kind, context: context, parentID: parent?.spanID,
            start: instant().nanosecondsSinceEpoch, tracer: self)
    }

    func forceFlush() {}

    func inject<Carrier, Inject: Injector>(
        _ context: InstrumentationContext, into carrier: inout Carrier, using injector: Inject
    ) where Inject.Carrier == Carrier {
        guard let identity = context.spanTreeIdentity else { return }
        injector.inject("00-\(identity.traceID)-\(identity.spanID)-01", forKey: "traceparent", into: &carrier)
    }

    func extract<Carrier, Extract: Extractor>(
        _ carrier: Carrier, into context: inout InstrumentationContext, using extractor: Extract
    ) where Extract.Carrier == Carrier {}

    /// Keeps a span that ended.
    func ended(_ record: SpanTreeSpan.Record) {
        finished.withLock { $0.append(record) }
    }

    /// The spans that ended, as an indented tree: one line a span (its name, kind, duration and
    /// the attributes worth reading), its events and errors under it.
    func renderedTree() -> String {
        let records = finished.withLock { $0 }.sorted { $0.start < $1.start }
        let ids = Set(records.map(\.identity.spanID))
        var lines: [String] = []
        func render(_ record: SpanTreeSpan.Record, depth: Int) {
            let indent = String(repeating: "  ", count: depth)
            lines.append(indent + record.summary)
            for event in record.eventLines { lines.append(indent + "  · " + event) }
            for child in records where child.parentID == record.identity.spanID {
                render(child, depth: depth + 1)
            }
        }
        for root in records where root.parentID.map({ !ids.contains($0) }) ?? true {
            render(root, depth: 0)
        }
        return (["trace:"] + lines.map { "  " + $0 }).joined(separator: "\n")
    }

    private static func randomHex(bytes: Int) -> String {
        var generator = SystemRandomNumberGenerator()
        return (0..<bytes).map { _ in String(format: "%02x", UInt8.random(in: 0...255, using: &generator)) }.joined()
    }
}

extension InstrumentationContext {
    /// The demo tracer's identity of the current span.
    fileprivate(set) var spanTreeIdentity: SpanTreeSpan.Identity? {
        get { self[SpanTreeIdentityKey.self] }
        set { self[SpanTreeIdentityKey.self] = newValue }
    }
}

/// Where ``SpanTreeTracer`` keeps a span's identity in its context.
private enum SpanTreeIdentityKey: InstrumentationContextKey {
    typealias Value = SpanTreeSpan.Identity
}
