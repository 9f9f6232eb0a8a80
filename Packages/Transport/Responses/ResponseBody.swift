public import Foundation

/// The body of a response: already collected in memory, or streamed as it arrives.
///
/// `ResponseBody` is an `AsyncSequence` of `Data` chunks. Iterate it to process a large body
/// in bounded memory; the engine stops reading from the network while you do not consume
/// (backpressure). Or call ``collect(upTo:)`` to gather it into one `Data`.
///
/// A body is single-pass: its chunks are delivered once, to whichever iterator asks first.
/// Dropping a streaming body without reading it to the end does not cancel the transfer by
/// itself; call ``cancel()`` (or cancel the task) to stop it and free the connection.
public struct ResponseBody: AsyncSequence, Sendable {
    /// A chunk of the body, in arrival order.
    public typealias Element = Data
    /// Transfers fail with ``TransportError`` and producers may add their own errors.
    public typealias Failure = any Error

    enum Storage: Sendable {
        case collected(Data)
        case streaming(any ResponseBodyStream)
    }

    let storage: Storage

    /// A body whose bytes are all in memory.
    ///
    /// - Parameter data: The whole body.
    public init(_ data: Data = Data()) {
        storage = .collected(data)
    }

    /// A body whose chunks come from `stream`.
    ///
    /// - Parameter stream: The producer of the body's chunks.
    public init(stream: some ResponseBodyStream) {
        storage = .streaming(stream)
    }

    /// Whether the body is already in memory (``collectedData`` is not `nil`).
    var isCollected: Bool {
        if case .collected = storage { return true }
        return false
    }

    /// The whole body, when it is already in memory; `nil` for a streaming body.
    public var collectedData: Data? {
        if case .collected(let data) = storage { return data }
        return nil
    }

    /// Reads the rest of the body into memory.
    ///
    /// - Parameter limit: The most bytes to accept; a larger body fails.
    /// - Returns: The body's bytes.
    /// - Throws: ``TransportError`` with category ``ErrorCategory/responseTooLarge``
    ///   when the body exceeds `limit` (the transfer is cancelled), or any error of the transfer.
    public func collect(upTo limit: Int) async throws -> Data {
        switch storage {
        case .collected(let data):
            guard data.count <= limit else { throw Self.tooLarge(limit: limit) }
            return data
        case .streaming(let stream):
            var result = Data()
            while let chunk = try await stream.next() {
                guard result.count + chunk.count <= limit else {
                    stream.cancel()
                    throw Self.tooLarge(limit: limit)
                }
                result.append(chunk)
            }
            return result
        }
    }

    /// Stops a streaming transfer and frees its connection; does nothing for a collected body.
    public func cancel() {
        if case .streaming(let stream) = storage { stream.cancel() }
    }

    /// Returns the iterator; every iterator of one body shares the same single pass.
    public func makeAsyncIterator() -> AsyncIterator {
        AsyncIterator(storage: storage)
    }

    /// Delivers the body's chunks.
    public struct AsyncIterator: AsyncIteratorProtocol {
        private var storage: Storage?

        init(storage: Storage) { self.storage = storage }

        /// The next chunk, or `nil` at the end of the body.
        public mutating func next() async throws -> Data? {
            switch storage {
            case .none:
                return nil
            case .collected(let data):
                storage = nil
                return data.isEmpty ? nil : data
            case .streaming(let stream):
                return try await stream.next()
            }
        }
    }

    static func tooLarge(limit: Int) -> TransportError {
        TransportError(
            .responseTooLarge,
            message: "The response body is larger than the in-memory limit of \(limit) bytes (counted after "
                + "decoding). Stream it with HTTPTransport.send(_:) or raise TransferOptions.maximumBodySize."
        )
    }
}

/// A source of response-body chunks that a transport implements for streaming responses.
///
/// Implementations must tolerate ``cancel()`` from any thread at any time, including after
/// the end of the body, and must make ``next()`` throw (or return `nil`) once cancelled.
public protocol ResponseBodyStream: Sendable {
    /// The next chunk, `nil` at the end of the body; suspends until one arrives.
    func next() async throws -> Data?
    /// Stops the transfer and frees its resources.
    func cancel()
}
