public import Foundation

/// The bytes a request sends: in memory, from a file, or from an asynchronous stream.
///
/// A body knows whether it can be sent again (``isReplayable``), which matters when a
/// `307`/`308` redirect or a retry must re-send it. In-memory and file bodies always can;
/// a stream can when it was created from a factory (``stream(length:_:)``) and cannot when it
/// wraps a single sequence (``stream(length:oneShot:)``): replaying that one fails with a
/// ``ErrorCategory/invalidBody`` error that says so.
///
/// ```swift
/// let json = RequestBody.bytes(Data(#"{"city":"Toronto"}"#.utf8))
/// let video = RequestBody.file(path: "/tmp/video.mp4")                 // streamed, never loaded whole
/// let live = RequestBody.stream(length: nil) { makeChunks() }          // chunked, replayable
/// ```
public struct RequestBody: Sendable {
    /// Where a body's bytes come from. Engines switch over this to pick the cheapest way to send.
    public enum Content: Sendable {
        /// Bytes held in memory.
        case bytes(Data)
        /// A region of a file on disk, read while sending.
        ///
        /// `length` is `nil` for "to the end of the file", resolved when the transfer starts.
        case file(path: String, offset: Int64, length: Int64?)
        /// An asynchronous sequence of chunks.
        case stream(ByteStream)
    }

    /// Where the bytes come from.
    public let content: Content

    /// The number of bytes the body holds, when known before sending.
    ///
    /// A known length is sent as `Content-Length`; an unknown one makes HTTP/1.1 requests
    /// use chunked transfer encoding. For a file with no explicit length this is `nil` until
    /// the engine measures the file.
    public let length: Int64?

    /// Whether the body can be sent more than once (for redirects and retries).
    public var isReplayable: Bool {
        switch content {
        case .bytes, .file: true
        case .stream(let stream): stream.isReplayable
        }
    }

    private init(content: Content, length: Int64?) {
        self.content = content
        self.length = length
    }

    /// A body held in memory.
    ///
    /// - Parameter data: The bytes to send.
    public static func bytes(_ data: Data) -> RequestBody {
        RequestBody(content: .bytes(data), length: Int64(data.count))
    }

    /// A body made of a string's UTF-8 bytes.
    ///
    /// - Parameter string: The text to send.
    public static func string(_ string: String) -> RequestBody {
        .bytes(Data(string.utf8))
    }

    /// A body read from a file while it is sent, never loaded whole into memory.
    ///
    /// The file is opened when the transfer starts; a missing or unreadable file fails the
    /// transfer with ``ErrorCategory/invalidBody`` before any byte is sent.
    ///
    /// - Parameters:
    ///   - path: The file's path.
    ///   - offset: Where to start reading, 0 by default.
    ///   - length: How many bytes to send; `nil` (the default) sends up to the end of the file.
    public static func file(path: String, offset: Int64 = 0, length: Int64? = nil) -> RequestBody {
        RequestBody(content: .file(path: path, offset: offset, length: length), length: length)
    }

    /// A replayable body produced by an asynchronous sequence that `makeSequence` creates anew
    /// for every attempt.
    ///
    /// - Parameters:
    ///   - length: The total number of bytes, if known; `nil` sends the body chunked.
    ///   - makeSequence: Creates the sequence of chunks; called once per attempt.
    public static func stream<Chunks: AsyncSequence & Sendable>(
        length: Int64? = nil,
        _ makeSequence: @escaping @Sendable () -> Chunks
    ) -> RequestBody where Chunks.Element == Data {
        let stream = ByteStream(replayable: true) { sink in
            for try await chunk in makeSequence() { try await sink(chunk) }
        }
        return RequestBody(content: .stream(stream), length: length)
    }

    /// A body produced by one asynchronous sequence, which can be sent only once.
    ///
    /// A redirect that must re-send the body (`307`, `308`) or a retry fails with
    /// ``ErrorCategory/invalidBody``; use ``stream(length:_:)`` with a factory
    /// when the body must survive those.
    ///
    /// - Parameters:
    ///   - length: The total number of bytes, if known; `nil` sends the body chunked.
    ///   - sequence: The chunks to send.
    public static func stream<Chunks: AsyncSequence & Sendable>(
        length: Int64? = nil,
        oneShot sequence: Chunks
    ) -> RequestBody where Chunks.Element == Data {
        let stream = ByteStream(replayable: false) { sink in
            for try await chunk in sequence { try await sink(chunk) }
        }
        return RequestBody(content: .stream(stream), length: length)
    }
}

extension RequestBody {
    /// A type-erased, pull-free producer of body chunks.
    ///
    /// The engine calls ``pump(into:)`` with a sink that suspends while its buffer is full, so
    /// a fast producer is held back by a slow connection (backpressure) without the engine
    /// ever holding the producer's iterator.
    public struct ByteStream: Sendable {
        /// Whether ``pump(into:)`` may be called more than once.
        public let isReplayable: Bool
        private let produce: @Sendable (_ sink: @Sendable (Data) async throws -> Void) async throws -> Void
        private let claims = Claims()

        init(
            replayable: Bool,
            produce: @escaping @Sendable (_ sink: @Sendable (Data) async throws -> Void) async throws -> Void
        ) {
            self.isReplayable = replayable
            self.produce = produce
        }

        /// Produces every chunk into `sink`, in order, suspending while `sink` suspends.
        ///
        /// - Parameter sink: Receives each chunk; may suspend to apply backpressure.
        /// - Throws: What the sequence or the sink throws, or a
        ///   ``ErrorCategory/invalidBody`` error when a one-shot stream is
        ///   pumped a second time.
        public func pump(into sink: @Sendable (Data) async throws -> Void) async throws {
            if !isReplayable && !claims.claimFirst() {
                throw TransportError(
                    .invalidBody,
                    message: "The request body is a one-shot stream that was already sent; it cannot be "
                        + "sent again for a redirect or retry. Create it with RequestBody.stream(length:_:) "
                        + "and a factory to make it replayable."
                )
            }
            try await produce(sink)
        }
    }

    /// Remembers whether a one-shot stream was used.
    private final class Claims: Sendable {
        /// A `PThreadMutex`, not a `Mutex`, so that ThreadSanitizer sees the locking.
        private let used = PThreadMutex(false)

        /// Returns `true` exactly once.
        func claimFirst() -> Bool {
            used.withLock { used in
                defer { used = true }
                return !used
            }
        }
    }
}
