#if Observability
    internal import HTTPTypes
    internal import Tracing
    internal import Transport

    /// What the telemetry says of a request: its method, server and URL as OpenTelemetry names
    /// them, worked out once per logical request.
    struct ObservedTarget: Sendable {
        /// `http.request.method`: a known method, or `_OTHER`.
        let method: String
        /// `server.address`.
        let address: String
        /// `server.port`.
        let port: Int
        /// `url.scheme`.
        let scheme: String
        /// `url.full`, redacted.
        let url: String

        /// The methods OpenTelemetry names; any other is `_OTHER`, so a metric's dimensions stay few.
        private static let knownMethods: Set<String> = [
            "CONNECT", "DELETE", "GET", "HEAD", "OPTIONS", "PATCH", "POST", "PUT", "TRACE",
        ]

        init(_ request: TransportRequest) {
            let method = request.head.method.rawValue
            self.method = Self.knownMethods.contains(method) ? method : "_OTHER"
            let scheme = request.head.scheme ?? "http"
            self.scheme = scheme
            let (host, port) = Self.split(authority: request.head.authority ?? "")
            address = host
            self.port = port ?? (scheme == "https" ? 443 : 80)
            url = LogRedaction.redactedURL(request.url)
        }

        /// The dimensions every metric of the request has.
        var dimensions: [(String, String)] {
            [
                (TelemetryNames.method, method), (TelemetryNames.serverAddress, address),
                (TelemetryNames.serverPort, "\(port)"),
            ]
        }

        /// The dimensions plus one.
        func dimensions(_ name: String, _ value: String) -> [(String, String)] {
            dimensions + [(name, value)]
        }

        /// Host and port of an authority: `example.com:8080`, `[::1]:8080`, `user@host`.
        static func split(authority: String) -> (host: String, port: Int?) {
            var rest = Substring(authority)
            if let at = rest.lastIndex(of: "@") { rest = rest[rest.index(after: at)...] }
            if rest.hasPrefix("["), let close = rest.firstIndex(of: "]") {
                let host = rest[rest.index(after: rest.startIndex)..<close]
                let after = rest[rest.index(after: close)...]
                return (String(host), after.hasPrefix(":") ? Int(after.dropFirst()) : nil)
            }
            if let colon = rest.lastIndex(of: ":") {
                return (String(rest[..<colon]), Int(rest[rest.index(after: colon)...]))
            }
            return (String(rest), nil)
        }

        /// Sets the span attributes that describe the request.
        func describe(into attributes: inout SpanAttributes) {
            attributes.set(TelemetryNames.method, value: .string(method))
            attributes.set(TelemetryNames.serverAddress, value: .string(address))
            attributes.set(TelemetryNames.serverPort, value: .int(Int64(port)))
            attributes.set(TelemetryNames.urlScheme, value: .string(scheme))
            attributes.set(TelemetryNames.urlFull, value: .string(url))
        }

        /// `2xx` for 200 to 299, and so on.
        static func statusClass(_ status: HTTPResponse.Status) -> String {
            "\(status.code / 100)xx"
        }

        /// The `error.type` of an error: a `TransportError`'s category, `cancelled` for a task's
        /// cancellation, else the error's type name.
        static func errorType(_ error: any Error) -> String {
            if let error = error as? TransportError { return error.category.name }
            if error is CancellationError { return TransportError.Category.cancelled.name }
            return String(reflecting: type(of: error))
        }
    }
#endif
