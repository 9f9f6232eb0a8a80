#if Observability
    /// The names of the metrics and the attribute keys that ``RequestTelemetry`` and
    /// ``AttemptTelemetry`` write, for dashboards, alerts and tests.
    ///
    /// Where the OpenTelemetry semantic conventions for HTTP clients name a metric or an
    /// attribute, that name is used (`http.client.request.duration`, `http.request.method`,
    /// `server.address`, `http.response.status_code`, `error.type`); what they do not cover is
    /// named under `parley.`.
    public enum TelemetryNames {
        // MARK: - Metrics of the logical request (RequestTelemetry)

        /// Counter: logical requests that ended, by method, server and
        /// ``statusClass`` (`2xx` … `5xx`, or `error` when no response came).
        public static let requests = "parley.http.client.requests"
        /// Counter: logical requests that ended in a thrown error, by method, server and
        /// ``errorType`` (the `TransportError` category, such as `connectionRefused`).
        public static let failures = "parley.http.client.failures"
        /// Counter: retries the retry link announced, by method, server and ``retryReason``.
        public static let retries = "parley.http.client.retries"
        /// Counter: responses that went through the HTTP cache, by method, server and
        /// ``cacheStatus`` (`hit`, `revalidated`, `miss`, `stale`).
        public static let cacheLookups = "parley.http.client.cache.lookups"
        /// Meter (an up-down counter): logical requests in flight, by method, server and
        /// ``urlScheme``. OpenTelemetry's `http.client.active_requests`.
        public static let activeRequests = "http.client.active_requests"
        /// Timer: a logical request from its start to its response head or error, retries and
        /// their waits included, by method, server and ``statusClass``.
        public static let logicalRequestDuration = "parley.http.client.logical_request.duration"

        // MARK: - Metrics of an attempt (AttemptTelemetry)

        /// Timer: one attempt, OpenTelemetry's `http.client.request.duration` (each resend is a
        /// request of its own there): the transfer's total time from `TransferMetrics` when the
        /// engine reports it, else the time until the attempt failed. By method, server,
        /// ``statusCode`` and ``statusClass``, or ``errorType``.
        public static let requestDuration = "http.client.request.duration"
        /// Timer: the name lookup of an attempt (`TransferMetrics.nameLookup`), by method and server.
        public static let nameLookupDuration = "parley.http.client.dns.duration"
        /// Timer: the TCP connect of an attempt (`TransferMetrics.connect`), by method and server.
        public static let connectDuration = "parley.http.client.connect.duration"
        /// Timer: the TLS handshake of an attempt (`TransferMetrics.tlsHandshake`), by method and server.
        public static let tlsHandshakeDuration = "parley.http.client.tls.duration"
        /// Timer: the time to the first response byte of an attempt (`TransferMetrics.firstByte`),
        /// by method and server.
        public static let firstByteDuration = "parley.http.client.first_byte.duration"

        // MARK: - Dimensions and span attributes

        /// The request method, `GET` … `PATCH`, or `_OTHER` for any other.
        public static let method = "http.request.method"
        /// The host the request is sent to, from its authority.
        public static let serverAddress = "server.address"
        /// The port the request is sent to: from its authority, else 80 or 443 by scheme.
        public static let serverPort = "server.port"
        /// `http` or `https`.
        public static let urlScheme = "url.scheme"
        /// The request's URL, its password and the values of sensitive query parameters redacted
        /// (`LogRedaction.redactedURL`).
        public static let urlFull = "url.full"
        /// The response status code.
        public static let statusCode = "http.response.status_code"
        /// The status code's class: `2xx`, `3xx`, `4xx`, `5xx`; `error` when no response came.
        public static let statusClass = "parley.http.response.status_class"
        /// Why a request failed: the `TransportError` category name (`connectionRefused`,
        /// `cancelled`, …), the status code of a response of 400 or more (`503`), or the error's
        /// type name for another error.
        public static let errorType = "error.type"
        /// Why a retry was made: the ``errorType`` of the attempt before it (`503`,
        /// `connectionReset`), `business` when the retry policy refused a successful status (an
        /// envelope's code), `unknown` when no ``AttemptTelemetry`` saw the attempt.
        public static let retryReason = "parley.retry.reason"
        /// What the HTTP cache made of the request (`Caching`'s `CacheStatus`).
        public static let cacheStatus = "parley.cache.status"
        /// On an attempt span: how many times the request was sent before this attempt (absent on
        /// the first).
        public static let resendCount = "http.request.resend_count"
        /// On a request span: how many attempts ``AttemptTelemetry`` saw.
        public static let attempts = "parley.request.attempts"
        /// The HTTP version of an attempt's transfer (`1.1`, `2`), from `TransferMetrics`.
        public static let protocolVersion = "network.protocol.version"
    }
#endif
