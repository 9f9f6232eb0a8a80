#if Observability
    import Foundation
    import InMemoryTracing
    import Tracing
    import Transport

    /// The finished spans of an `InMemoryTracer` as an indented tree, one line a span: its name,
    /// kind, attributes (sorted) and status, then a line per event and recorded error. Children
    /// follow their parent in the order they started; a value holding `port` reads `PORT`, so
    /// that the tree of a run against a server on an ephemeral port can be written out exactly.
    func spanTree(_ spans: [FinishedInMemorySpan], port: Int) -> String {
        let sorted = spans.sorted { $0.startInstant.nanosecondsSinceEpoch < $1.startInstant.nanosecondsSinceEpoch }
        let ids = Set(sorted.map(\.spanID))
        var lines: [String] = []
        func shown(_ value: SpanAttribute) -> String {
            let text =
                switch value {
                case .int64(let value): "\(value)"
                case .string(let value): value
                default: "\(value)"
                }
            return text.replacingOccurrences(of: "\(port)", with: "PORT")
        }
        func render(_ span: FinishedInMemorySpan, depth: Int) {
            let indent = String(repeating: "  ", count: depth)
            var attributes: [String] = []
            // `SpanAttributes` is no sequence: `forEach` is its one way through.
            // swift-format-ignore: ReplaceForEachWithForLoop
            span.attributes.forEach { name, value in attributes.append("\(name)=\(shown(value))") }
            var line = "\(indent)\(span.operationName) [\(span.kind)]"
            if !attributes.isEmpty { line += " " + attributes.sorted().joined(separator: " ") }
            if span.status?.code == .error { line += " !error" }
            lines.append(line)
            for event in span.events {
                var values: [String] = []
                // `SpanAttributes` is no sequence: `forEach` is its one way through.
                // swift-format-ignore: ReplaceForEachWithForLoop
                event.attributes.forEach { name, value in values.append("\(name)=\(shown(value))") }
                lines.append("\(indent)  event \(event.name) " + values.sorted().joined(separator: " "))
            }
            for error in span.errors {
                lines.append("\(indent)  recorded \(errorName(error.error))")
            }
            for child in sorted where child.parentSpanID == span.spanID {
                render(child, depth: depth + 1)
            }
        }
        for root in sorted where root.parentSpanID.map({ !ids.contains($0) }) ?? true {
            render(root, depth: 0)
        }
        return lines.joined(separator: "\n")
    }

    /// A thrown error as the trees name it: a `TransportError`'s category, else the type.
    private func errorName(_ error: any Error) -> String {
        if let error = error as? TransportError { return "TransportError.\(error.category.name)" }
        return "\(type(of: error))"
    }
#endif
