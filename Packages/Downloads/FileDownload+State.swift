public import HTTPTypes
public import Transport

extension FileDownload {
    /// Where a download is in its life.
    ///
    /// ```
    /// queued ──start──► running ──► completed
    ///                    │  ▲  └────► failed ──resume──► running
    ///            suspend │  │ resume
    ///                    ▼  │
    ///                  suspended          (cancel from any state but completed ──► cancelled)
    /// ```
    public enum State: Sendable, Hashable, CustomStringConvertible {
        /// Not started yet, or waiting for a slot in a ``DownloadManager``.
        case queued
        /// Transferring (or waiting to retry).
        case running
        /// Stopped by ``FileDownload/suspend()``; the partial and its sidecar are kept.
        case suspended
        /// The file is at its destination.
        case completed(Summary)
        /// The last attempt failed; the partial is kept (except after a checksum mismatch),
        /// so ``FileDownload/resume()`` continues where it ended.
        case failed(TransportError)
        /// Stopped by ``FileDownload/cancel()``; the partial and its sidecar are deleted.
        case cancelled

        /// Whether nothing more can happen: completed or cancelled.
        public var isFinal: Bool {
            switch self {
            case .completed, .cancelled: true
            default: false
            }
        }

        /// The state's name: `queued`, `running`, `suspended`, `completed`, `failed` or `cancelled`.
        public var description: String {
            switch self {
            case .queued: "queued"
            case .running: "running"
            case .suspended: "suspended"
            case .completed: "completed"
            case .failed: "failed"
            case .cancelled: "cancelled"
            }
        }
    }

    /// What a finished download produced.
    public struct Summary: Sendable, Hashable {
        /// The absolute path of the file.
        public var destination: String
        /// The file's length in bytes.
        public var byteCount: Int64
        /// The file's SHA-256 (lowercase hexadecimal), when ``Options/expectedSHA256`` asked
        /// for a check; `nil` otherwise.
        public var sha256: String?
        /// The bytes that were already on disk when this run began (0 for a fresh download).
        public var resumedFrom: Int64
        /// The requests this run sent, retries and restarts included.
        public var requestCount: Int
        /// The head of the last response (`200`, `206`, or `416` for a partial that was
        /// already whole); `nil` when the summary was made without one.
        public var response: HTTPResponse?

        /// Creates a summary.
        public init(
            destination: String, byteCount: Int64, sha256: String?, resumedFrom: Int64, requestCount: Int,
            response: HTTPResponse? = nil
        ) {
            self.destination = destination
            self.byteCount = byteCount
            self.sha256 = sha256
            self.resumedFrom = resumedFrom
            self.requestCount = requestCount
            self.response = response
        }
    }
}
