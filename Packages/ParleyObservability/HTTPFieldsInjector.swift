#if Observability
    internal import HTTPTypes
    internal import Tracing

    /// Writes what an instrument propagates (`traceparent`, `tracestate`, …) into a request's
    /// header fields, replacing a field of the same name; a key that is no valid field name is
    /// left out.
    struct HTTPFieldsInjector: Injector {
        func inject(_ value: String, forKey key: String, into carrier: inout HTTPFields) {
            guard let name = HTTPField.Name(key) else { return }
            carrier[name] = value
        }
    }
#endif
