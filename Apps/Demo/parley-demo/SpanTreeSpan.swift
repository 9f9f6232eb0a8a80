import Foundation
import Synchronization
import Tracing

/// A span of ``SpanTreeTracer``: it records what is said of it, and hands a record of itself
/// to the tracer when it ends.
final class SpanTreeSpan: Span, Sendable {
    /// The trace and span ids, as W3C Trace Context writes them (lowercase hex).
    struct Identity: Sendable, Hashable {
        let traceID: String
        let spanID: String
    }

    /// What the tree prints of a span that ended.
    struct Record: Sendable {
        let identity: Identity
        let parentID: String?
        let start: UInt64
        let summary: String
        let eventLines: [String]
    }

    private struct State {
        var operationName: String
        var attributes = SpanAttributes()
        var status: SpanStatus?
        var events: [SpanEvent] = []
        var errors: [String] = []
        var ended = false
    }

    let context: InstrumentationContext
    private let kind: SpanKind
    private let parentID: String?
    private let start: UInt64
    private let tracer: SpanTreeTracer
    private let state: Mutex<State>

    init(
        operationName: String, kind: SpanKind, context: InstrumentationContext, parentID: String?, start: UInt64,
        tracer: SpanTreeTracer
    ) {
        self.kind = kind
        self.context = context
        self.parentID = parentID
        self.start = start
        self.tracer = tracer
        state = Mutex(State(operationName: operationName))
    }

    var operationName: String {
        get { state.withLock { $0.operationName } }
        set { state.withLock { $0.operationName = newValue } }
    }

    var attributes: SpanAttributes {
        get { state.withLock { $0.attributes } }
        set { state.withLock { $0.attributes = newValue } }
    }

    var isRecording: Bool { state.withLock { !$0.ended } }

    func setStatus(_ status: SpanStatus) {
        state.withLock { $0.status = status }
    }

    func addEvent(_ event: SpanEvent) {
        state.withLock { $0.events.append(event) }
    }

    func recordError<Instant: TracerInstant>(
        _ error: any Error, attributes: SpanAttributes, at instant: @autoclosure () -> Instant
    ) {
        let text = String(describing: error)
        state.withLock { $0.errors.append(text) }
    }

    func addLink(_ link: SpanLink) {}

    func end<Instant: TracerInstant>(at instant: @autoclosure () -> Instant) {
        let end = instant().nanosecondsSinceEpoch
        guard
            let ended = state.withLock({ state -> State? in
                guard !state.ended else { return nil }
                state.ended = true
                return state
            })
        else { return }
        guard let identity = context.spanTreeIdentity else { return }
        tracer.ended(
            Record(
                identity: identity, parentID: parentID, start: start,
                summary: Self.summary(of: ended, kind: kind, milliseconds: Double(end &- start) / 1_000_000),
                eventLines: ended.events.map(Self.line(of:)) + ended.errors.map { "error: \($0)" }))
    }

    /// `GET [client] 3.2 ms  http.response.status_code=503 error.type=503 ✗`.
    private static func summary(of state: State, kind: SpanKind, milliseconds: Double) -> String {
        var parts = ["\(state.operationName) [\(kind)] \(String(format: "%.1f", milliseconds)) ms"]
        let names = [
            "url.full", "http.request.resend_count", "http.response.status_code", "parley.cache.status",
            "parley.request.attempts", "error.type", "exit.status",
        ]
        for name in names {
            if let value = state.attributes.get(name) { parts.append("\(name)=\(value.shown)") }
        }
        if state.status?.code == .error { parts.append("✗") }
        return parts.joined(separator: "  ")
    }

    private static func line(of event: SpanEvent) -> String {
        var parts = [event.name]
        // `SpanAttributes` is no sequence: `forEach` is its one way through.
        // swift-format-ignore: ReplaceForEachWithForLoop
        event.attributes.forEach { name, value in parts.append("\(name)=\(value.shown)") }
        return parts.joined(separator: " ")
    }
}

extension SpanAttribute {
    /// The value as the tree prints it: `503`, `GET`, `true`.
    fileprivate var shown: String {
        switch self {
        case .int32(let value): "\(value)"
        case .int64(let value): "\(value)"
        case .double(let value): "\(value)"
        case .bool(let value): "\(value)"
        case .string(let value): value
        case .stringConvertible(let value): value.description
        default: "\(self)"
        }
    }
}
