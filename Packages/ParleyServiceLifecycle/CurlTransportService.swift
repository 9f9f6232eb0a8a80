#if ServiceLifecycle
    public import ServiceLifecycle
    public import TransportCurl

    /// A ``/TransportCurl/CurlTransport`` run as a swift-service-lifecycle `Service`: it runs
    /// until a graceful shutdown or its task's cancellation, then stops the transport.
    ///
    /// On a graceful shutdown (the `ServiceGroup`'s signals, or its `triggerGracefulShutdown()`)
    /// the transport stops taking requests at once: a new one fails with
    /// `TransportError.Category.shutDown` without reaching a server. The requests in flight may
    /// finish for up to ``gracePeriod``; those still running then fail with
    /// `TransportError.Category.cancelled`, and the engine's loops stop
    /// (``/TransportCurl/CurlTransport/shutdown(gracePeriod:)``). Cancelled instead (another
    /// service failed, or the group was cancelled), it stops the transport without a grace
    /// period.
    ///
    /// A `ServiceGroup` shuts its services down in the reverse order of its list, each after
    /// the one after it has returned: put the transport before the services that send requests
    /// through it, so that they finish their work before it stops.
    ///
    /// ```swift
    /// let transport = try CurlTransport()
    /// let group = ServiceGroup(
    ///     services: [CurlTransportService(transport, gracePeriod: .seconds(10)), worker],
    ///     gracefulShutdownSignals: [.sigterm, .sigint],
    ///     logger: logger)
    /// try await group.run()
    /// ```
    public struct CurlTransportService: Service {
        /// The transport this service stops.
        public let transport: CurlTransport
        /// How long the requests in flight at a graceful shutdown may take to finish.
        public let gracePeriod: Duration

        /// A service that stops `transport` on a graceful shutdown.
        ///
        /// - Parameters:
        ///   - transport: The transport; the application sends its requests through it as
        ///     before.
        ///   - gracePeriod: How long the requests in flight at a graceful shutdown may take to
        ///     finish; 10 seconds by default.
        public init(_ transport: CurlTransport, gracePeriod: Duration = .seconds(10)) {
            self.transport = transport
            self.gracePeriod = gracePeriod
        }

        /// Runs until a graceful shutdown or cancellation, then stops the transport and returns
        /// once its loops have exited.
        public func run() async throws {
            do {
                try await gracefulShutdown()
            } catch {
                // Cancelled: no grace period.
                await transport.shutdown(gracePeriod: .zero)
                return
            }
            await transport.shutdown(gracePeriod: gracePeriod)
        }
    }
#else
    // Without the package trait `ServiceLifecycle`, swift-service-lifecycle is not resolved and
    // the service cannot be built. This stand-in turns a use of the product without the trait
    // into a compile error that says what to do.

    /// Needs the package trait `ServiceLifecycle`.
    @available(
        *, unavailable,
        message:
            "ParleyServiceLifecycle needs the package trait ServiceLifecycle: .package(url: ..., from: ..., traits: [\"ServiceLifecycle\"])"
    )
    public struct CurlTransportService {}
#endif
