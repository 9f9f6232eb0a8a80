public import HTTPTypes
public import Retry
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
        /// with `.checksumMismatch` and deletes the partial.
        public var expectedSHA256: String?

        /// When a failed attempt is sent again, resuming where the bytes on disk end: the
        /// library's one ``/Retry/RetryPolicy``, ``/Retry/RetryPolicy/init()`` by default.
        ///
        /// What is retried is the policy's table: its ``/Retry/RetryPolicy/retryableFailures``
        /// (by default a refused, reset or timed-out connection, a DNS failure, a stall, an
        /// incomplete body, an empty reply) and its ``/Retry/RetryPolicy/retryableStatuses``
        /// (408, 429, 500, 502, 503 and 504); anything else fails at once. Its envelope codes do
        /// not apply: a download's body is the file, not an envelope.
        ///
        /// A download reads the policy as a long transfer needs it:
        ///
        /// - ``/Retry/RetryPolicy/maximumRetries`` (3) counts failures *in a row*: an attempt
        ///   that added bytes to the file resets the count, so a long download over a flaky
        ///   network is not failed by drops spread over hours, while a server that fails at once
        ///   is given up after `maximumRetries + 1` attempts.
        /// - The wait before each retry is the policy's backoff with full jitter (drawn from zero
        ///   to ``/Retry/RetryPolicy/baseDelay`` doubled for each retry in a row, at most
        ///   ``/Retry/RetryPolicy/maximumDelay``); a server's `Retry-After` replaces it, and one
        ///   longer than ``/Retry/RetryPolicy/longestRetryAfter`` fails the run at once with
        ///   `retryAfterTooLong`, naming the wait.
        /// - ``/Retry/RetryPolicy/deadline`` is counted from the first attempt of the run (each
        ///   ``FileDownload/resume()`` starts a new one); each attempt's transfer deadline is cut
        ///   to the time left.
        /// - Retries draw on the host's ``/Retry/RetryPolicy/budget``, and a finished file gives
        ///   back to it. An attempt that added bytes before it failed takes nothing from the
        ///   budget: the host was serving the file.
        ///
        /// Waits are measured on the policy's ``/Retry/RetryPolicy/clock``. Whenever the run
        /// stops, the partial is kept (the message says how many bytes, and where), and running
        /// the download again continues from there. ``/Retry/RetryPolicy/never`` turns retrying off.
        ///
        /// A download form that leaves this unset gets its client's retry policy, as every other
        /// request of the client does; one that sets it keeps its own.
        public var retry: RetryPolicy {
            get { chosenRetry ?? RetryPolicy() }
            set { chosenRetry = newValue }
        }

        /// The policy assigned to ``retry``; `nil` while it was never set.
        private var chosenRetry: RetryPolicy?

        /// Whether ``retry`` was ever assigned (a changed field counts), so that whoever builds
        /// the download can put its own default in its place.
        package var setsRetry: Bool { chosenRetry != nil }

        /// Who is asked whether to start again once the retries of a network failure are over:
        /// `nil` (the default) never asks, and the failure stands.
        ///
        /// The failures offered are those ``/Retry/RetryPolicy/reloadOffer(after:stop:of:attempts:)``
        /// offers: a network failure among the policy's ``/Retry/RetryPolicy/retryableFailures``
        /// whose retries in a row were spent or which the budget stopped; never a status, a
        /// `Retry-After` too long or a passed deadline. A yes starts a new round with the count of
        /// retries in a row and the ``/Retry/RetryPolicy/deadline`` started afresh, resuming from
        /// the bytes on disk; a no lets the failure stand, with the partial kept. FeedbackConsole's
        /// `ConsoleReloadPrompt` asks at the terminal; a download made by Forms for a type that is
        /// ``/Retry/Reloadable`` gets that type's prompt when the form's options name none.
        public var reloadPrompt: (any ReloadPrompt)?

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

        /// Called before each retry with the retry (the number of the request about to be sent
        /// in this run, 2 for the first retry; the wait the policy chose; whether the server's
        /// `Retry-After` chose it; no `maximumAttempts`, because the count resets when an attempt
        /// adds bytes) and the failure that caused it, on the download's task: return quickly.
        /// `nil` by default.
        public var retryHandler: (@Sendable (_ retry: RetryEvent, _ failure: TransportError) -> Void)?

        /// Whether the first run continues a partial that an earlier download to the same
        /// destination left behind (a suspended, failed or killed one): `true` by default.
        ///
        /// With `false`, the first run discards such a partial and its sidecar and downloads
        /// from zero. Later runs of the same ``FileDownload`` (``FileDownload/resume()`` after a
        /// suspend or a failure) and its own retries always continue from the bytes on disk.
        public var resumesEarlierPartial: Bool = true

        /// Whether a partial that an earlier download of *another URL* left at the destination
        /// is continued: `false` by default, which discards it and starts from zero.
        ///
        /// Turn it on for a resource whose URL changes while it stays the same file, such as a
        /// signed URL that was refreshed. The partial is continued only when its record proves
        /// what the bytes are: a strong `ETag` and the file's whole length. The request to the new
        /// URL then carries `If-Range` with that `ETag`, and only a `206` under the same `ETag`
        /// and length is appended; any other answer (a `200`, another `ETag`, another length)
        /// discards the partial and downloads the new URL's file from zero. A partial recorded
        /// with a `Last-Modified` date alone, or without a length, is discarded: a date and a
        /// size do not tell two files apart across URLs.
        public var resumesPartialOfAnotherURL: Bool = false

        /// Produces a fresh URL when the server refuses the current one with `403` or `410`, as
        /// storage services answer a signed URL whose signature expired: called with the URL
        /// and the refusal's head; return the new URL, or `nil` to let the refusal stand (a
        /// `403` and a `410` are not retried). `nil` by default.
        ///
        /// ```swift
        /// options.refreshURL = { expired, _ in try await storage.signedURL(for: "big.iso") }
        /// ```
        ///
        /// The download goes on at once from the new URL, resuming the bytes on disk under the
        /// rule of ``resumesPartialOfAnotherURL`` (a strong `ETag` and the whole length; the
        /// partial is discarded otherwise), and its record names the new URL from the first
        /// byte it appends. A new URL on another origin does not get the request's
        /// `Authorization`, `Cookie` or ``/Transport/TransferOptions/credentials``. A run asks
        /// at most three times; an error the closure throws ends the run (wrapped in
        /// `downloadFailed` unless it is a ``/Transport/TransportError``), as does a URL that is
        /// not a valid `http` or `https` URL (`invalidURL`).
        public var refreshURL: (@Sendable (_ expiredURL: String, _ refusal: HTTPResponse) async throws -> String?)?

        /// Creates the default options.
        public init() {}
    }
}
