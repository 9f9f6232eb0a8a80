public import Foundation

extension MockServer {
    /// How a ``MockServer`` starts: the faults its business routes get from the first request.
    ///
    /// Everything here can be changed later through ``MockServer/faults``; the options only set
    /// the start, such as a standalone server run with `--chaos 0.2 --chaos-seed 7`.
    ///
    /// ```swift
    /// try await MockServer.withRunning(options: .init(chaosRate: 0.3, chaosSeed: 42)) { server in
    ///     // About three business requests in ten fail, the same ones on every run.
    /// }
    /// ```
    public struct Options: Hashable, Sendable {
        /// The probability, 0…1, that a business request gets a fault (see
        /// ``FaultInjector/chaosRate``); clamped when the server starts. 0 by default.
        public var chaosRate: Double
        /// The seed of the chaos generator: the same seed, the same faults. 0 by default.
        public var chaosSeed: UInt64
        /// The faults chaos picks from, uniformly (see ``FaultInjector/chaosFaults``): a drop or
        /// a 503 with `Retry-After: 1` by default (``FaultInjector/defaultChaosFaults``).
        public var chaosFaults: [FaultInjector.Outcome] = FaultInjector.defaultChaosFaults
        /// Delays before every answer of a business route, by route path (such as `/weather`).
        /// None by default.
        public var delays: [String: Duration]
        /// Folders of more canned feature routes (`*.json`, as in the bundle's
        /// `Resources/Features`), read after the bundle's: a test's own routes. None by default.
        public var featureRoutes: [URL] = []

        /// Options with the given chaos and delays; the defaults inject nothing.
        ///
        /// - Parameters:
        ///   - chaosRate: The probability of a fault, 0…1; 0 by default.
        ///   - chaosSeed: The seed of the chaos generator; 0 by default.
        ///   - delays: Delays by route path; none by default.
        public init(chaosRate: Double = 0, chaosSeed: UInt64 = 0, delays: [String: Duration] = [:]) {
            self.chaosRate = chaosRate
            self.chaosSeed = chaosSeed
            self.delays = delays
        }

        /// Options with the given chaos, picked among `chaosFaults`, and delays.
        ///
        /// - Parameters:
        ///   - chaosRate: The probability of a fault, 0…1.
        ///   - chaosSeed: The seed of the chaos generator.
        ///   - chaosFaults: The faults chaos picks from, uniformly; list one twice to make it
        ///     twice as likely. Empty (or only `ok`) means ``FaultInjector/defaultChaosFaults``.
        ///   - delays: Delays by route path; none by default.
        public init(
            chaosRate: Double, chaosSeed: UInt64, chaosFaults: [FaultInjector.Outcome],
            delays: [String: Duration] = [:]
        ) {
            self.init(chaosRate: chaosRate, chaosSeed: chaosSeed, delays: delays)
            self.chaosFaults = chaosFaults
        }
    }
}
