import Foundation

/// The chunks of one sending of a ``MultipartFormData`` body: in-memory segments as they are,
/// files read a chunk at a time.
///
/// A new sequence is made for every attempt (``RequestBody/stream(length:_:)`` calls its
/// factory each time), so every attempt opens its files afresh. Iterating reads from disk on
/// the iterating task, which for an engine is the body's producer task.
struct MultipartBodyStream: AsyncSequence, Sendable {
    typealias Element = Data

    /// A run of the body.
    enum Segment: Sendable {
        /// Bytes in memory: delimiters, part headers, text fields and data parts.
        case bytes(Data)
        /// The first `size` bytes of a file, as measured when the body was made.
        case file(path: String, size: Int64)
    }

    /// The body, in order.
    let segments: [Segment]
    /// The boundary, which must not occur in a file.
    let boundary: Data
    /// The most bytes read from a file at once.
    let chunkSize: Int

    func makeAsyncIterator() -> Iterator {
        Iterator(segments: segments, boundary: boundary, chunkSize: chunkSize)
    }

    /// Walks the segments, reading files as it reaches them.
    struct Iterator: AsyncIteratorProtocol {
        private let segments: [Segment]
        private let boundary: Data
        private let chunkSize: Int
        private var nextIndex = 0
        private var file: FilePartReader?

        init(segments: [Segment], boundary: Data, chunkSize: Int) {
            self.segments = segments
            self.boundary = boundary
            self.chunkSize = chunkSize
        }

        /// The next chunk, or `nil` after the closing delimiter.
        ///
        /// - Throws: ``TransportError`` with category
        ///   ``TransportError/Category-swift.struct/invalidBody`` when a file cannot be opened or
        ///   read, is shorter than when it was measured, or contains the boundary; or
        ///   `CancellationError` when the task is cancelled.
        mutating func next() async throws -> Data? {
            try Task.checkCancellation()
            while true {
                if var reader = file {
                    let chunk = try reader.nextChunk()
                    file = chunk == nil ? nil : reader
                    if let chunk { return chunk }
                }
                guard nextIndex < segments.count else { return nil }
                let segment = segments[nextIndex]
                nextIndex += 1
                switch segment {
                case .bytes(let data):
                    return data
                case .file(let path, let size):
                    file = try FilePartReader(path: path, size: size, boundary: boundary, chunkSize: chunkSize)
                }
            }
        }
    }
}

/// Reads a file part's content in chunks, checking that the boundary never occurs in it.
///
/// The search covers each chunk and the seam with the previous one (the last
/// `boundary.count - 1` bytes before it), so a boundary split across two reads is found too.
struct FilePartReader {
    private let path: String
    private let handle: FileHandle
    private var remaining: Int64
    private let boundary: Data
    private let chunkSize: Int
    /// The end of the previous chunk: at most `boundary.count - 1` bytes.
    private var tail = Data()

    /// Opens the file.
    ///
    /// - Throws: ``TransportError`` (`.invalidBody`) naming the path when it cannot be opened.
    init(path: String, size: Int64, boundary: Data, chunkSize: Int) throws {
        do {
            self.handle = try FileHandle(forReadingFrom: URL(fileURLWithPath: path))
        } catch {
            throw MultipartFormData.fileError(path, "cannot be opened")
        }
        self.path = path
        self.remaining = size
        self.boundary = boundary
        self.chunkSize = max(1, chunkSize)
    }

    /// The next chunk of at most `chunkSize` bytes; `nil` once the measured size has been
    /// read, when the file is also closed.
    mutating func nextChunk() throws -> Data? {
        guard remaining > 0 else {
            try? handle.close()
            return nil
        }
        let wanted = Int(min(Int64(chunkSize), remaining))
        let chunk: Data
        do {
            chunk = try handle.read(upToCount: wanted) ?? Data()
        } catch {
            throw MultipartFormData.fileError(path, "could not be read")
        }
        guard !chunk.isEmpty else {
            throw MultipartFormData.fileError(
                path, "ended \(remaining) bytes before the size it had when the body was made; was it truncated?")
        }
        remaining -= Int64(chunk.count)
        try checkBoundary(in: chunk)
        return chunk
    }

    /// Fails if `chunk`, or the seam between the previous chunk and this one, holds the boundary.
    private mutating func checkBoundary(in chunk: Data) throws {
        let overlap = boundary.count - 1
        var seam = tail
        seam.append(chunk.prefix(overlap))
        if chunk.range(of: boundary) != nil || (seam.count >= boundary.count && seam.range(of: boundary) != nil) {
            throw MultipartFormData.fileError(
                path,
                "contains the multipart boundary \"\(String(decoding: boundary, as: UTF8.self))\", so the server "
                    + "would split the part there; build the form again, which draws a new random boundary")
        }
        var joined = tail
        joined.append(chunk.suffix(overlap))
        tail = Data(joined.suffix(overlap))
    }
}
