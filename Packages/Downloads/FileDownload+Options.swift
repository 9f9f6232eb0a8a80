public import Transport

extension FileDownload {
    /// How a ``FileDownload`` verifies, retries, syncs and reports.
    ///
    /// Every default is stated beside its property.
    public struct Options: Sendable {
        /// The SHA-256 the finished file must have, as 64 hexadecimal characters (either
        /// case); `nil` (the default) for no check.
        ///
        /// The digest is computed while the bytes are written (bytes kept from an earlier run
        /// are read back once, when it resumes) and checked before the file is renamed into
        /// place, so verifying costs no second pass over the file. A mismatch fails the download
        /// with ``Transport/TransportError/Category/checksumMismatch`` and deletes the partial.
        public var expectedSHA256: String?

        /// How many times in a row a failed attempt is retried, resuming where the bytes on
        /// disk end: 3 by default.
        ///
        /// Network failures (a dropped or reset connection, an incomplete body, a stall, a
        /// refused or timed-out connect) and the statuses 408, 429, 500, 502, 503 and 504 are
        /// retried; anything else fails at once. An attempt that added bytes to the file resets
        /// the count, so a long download over a flaky network is not failed by drops spread over
        /// hours, while a server that fails immediately is given up after `retryLimit + 1` tries.
        public var retryLimit: Int = 3

        /// The wait before the first retry, doubled for each further retry in a row and capped
        /// at 8 seconds: 250 milliseconds by default. A `Retry-After` from the server makes the
        /// wait at least as long as it asks.
        public var retryDelay: Duration = .milliseconds(250)

        /// The longest `Retry-After` the download waits for: 2 minutes by default. A server
        /// that asks for longer fails the run at once (the partial is kept for a later one),
        /// rather than leaving it waiting without a word.
        public var longestRetryAfter: Duration = .seconds(120)

        /// Whether the download flushes to the disk at the points its crash consistency relies
        /// on (`fsync`): `true` by default.
        ///
        /// A `kill -9` never loses bytes the kernel has accepted, so this only matters for a
        /// power cut or a kernel crash. With it on, the sidecar of a new version is on disk
        /// before the first byte of that version, a truncation before the sidecar that follows
        /// it, and the finished file before its new name. Appended bytes are not flushed one by
        /// one: after a power cut a file system may keep a shorter partial, which the next run
        /// simply continues.
        public var synchronizesToDisk: Bool = true

        /// The shortest time between two progress events: 50 milliseconds (20 a second) by
        /// default. The final event on success always comes.
        public var progressInterval: Duration = .milliseconds(50)

        /// Called with each progress event, in order, on the download's task: return quickly.
        /// `nil` by default; ``FileDownload/progressUpdates`` delivers the same events.
        public var progressHandler: (@Sendable (TransferProgress) -> Void)?

        /// Called before each retry with the retry (the number of the request about to be sent,
        /// 2 for the first retry; the wait before it; whether the server's `Retry-After` chose that
        /// wait) and the failure that caused it, on the download's task: return quickly.
        /// `nil` by default.
        public var retryHandler: (@Sendable (_ retry: RetryEvent, _ failure: TransportError) -> Void)?

        /// Whether the first run continues a partial that an earlier download to the same
        /// destination left behind (a suspended, failed or killed one): `true` by default.
        ///
        /// With `false`, the first run discards such a partial and its sidecar and downloads
        /// from zero. Later runs of the same ``FileDownload`` (``FileDownload/resume()`` after a
        /// suspend or a failure) and its own retries always continue from the bytes on disk.
        public var resumesEarlierPartial: Bool = true

        /// Creates the default options.
        public init() {}
    }
}
