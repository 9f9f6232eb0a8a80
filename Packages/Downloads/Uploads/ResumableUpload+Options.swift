public import Foundation
public import HTTPTypes
public import Retry
public import Transport

extension ResumableUpload {
    /// How a resumable upload runs.
    public struct Options: Sendable {
        /// The retry policy the run's attempts follow: ``/Retry/RetryPolicy``'s defaults by default.
        ///
        /// Failures are counted in a row, as a download counts them: an attempt that sent bytes
        /// before it failed starts the count afresh. Each retry asks the server for its offset
        /// first, so sending again is safe whatever the method.
        public var retry = RetryPolicy()
        /// Receives the upload's progress, counting the bytes the server already had; `nil` by
        /// default. Runs on the engine's thread: it must return quickly.
        public var progressHandler: (@Sendable (TransferProgress) -> Void)?
        /// The shortest time between two progress events that are not final: 50 ms by default.
        public var progressInterval: Duration = .milliseconds(50)
        /// Called before each retry with the retry and the failure; `nil` by default.
        public var retryHandler: (@Sendable (_ retry: RetryEvent, _ failure: TransportError) -> Void)?
        /// The `Content-Type` of the creation request: `application/octet-stream` by default.
        public var contentType = "application/octet-stream"
        /// Fields every request of the upload carries (credentials, say); empty by default.
        public var headerFields = HTTPFields()

        /// The defaults.
        public init() {}
    }

    /// What an upload did.
    public struct Summary: Sendable {
        /// The upload resource's URL, or `nil` when the server took the file as a plain upload
        /// (it offered no resumption and needed none).
        public var uploadURL: String?
        /// The file's length: the bytes the server has.
        public var byteCount: Int64
        /// The offset this run started from: 0 for a new upload, the server's offset for a
        /// resumed one.
        public var resumedFrom: Int64
        /// The requests this run sent (creation, offset retrievals, appends).
        public var requestCount: Int
        /// The final response's head: the answer of the resource the upload was created at.
        public var response: HTTPResponse
        /// The final response's body.
        public var body: Data
    }
}
