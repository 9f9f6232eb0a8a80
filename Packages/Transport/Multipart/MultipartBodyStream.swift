package import Foundation

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
        ///   ``ErrorCategory/invalidBody`` when a file cannot be opened or
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
struct FilePartReader {
    private let path: String
    private let handle: FileHandle
    private var remaining: Int64
    private let chunkSize: Int
    private var scanner: BoundaryScanner

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
        self.scanner = BoundaryScanner(boundary: boundary)
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
        if scanner.scan(chunk) {
            throw MultipartFormData.fileError(
                path,
                "contains the multipart boundary \"\(String(decoding: scanner.boundary, as: UTF8.self))\", so the "
                    + "server would split the part there; build the form again, which draws a new random boundary")
        }
        return chunk
    }
}

/// Finds a multipart boundary in content that arrives in chunks of any size.
///
/// The search covers each chunk and the seam with the chunks before it (the last
/// `boundary.count - 1` bytes seen), so a boundary split across two reads, or spread over
/// several short ones, is found too. It keeps no more than that tail between chunks.
///
/// `package` so that the fuzz target in `Tests/Fuzz` can compare it, on arbitrary content cut
/// at arbitrary places, with a search of the whole content.
package struct BoundaryScanner: Sendable {
    /// The bytes searched for.
    package let boundary: Data
    /// The end of the content seen so far: at most `boundary.count - 1` bytes.
    private var tail = Data()

    /// A scanner at the start of the content.
    ///
    /// - Parameter boundary: The bytes to find. An empty boundary, which no form makes, is
    ///   never found.
    package init(boundary: Data) {
        self.boundary = boundary
    }

    /// Scans the next chunk of the content.
    ///
    /// - Parameter chunk: The bytes that follow those already scanned.
    /// - Returns: Whether the boundary occurs in the content seen so far and ends in `chunk`.
    package mutating func scan(_ chunk: Data) -> Bool {
        guard !boundary.isEmpty else { return false }
        let overlap = boundary.count - 1
        var seam = tail
        seam.append(chunk.prefix(overlap))
        if chunk.range(of: boundary) != nil || (seam.count >= boundary.count && seam.range(of: boundary) != nil) {
            return true
        }
        var joined = tail
        joined.append(chunk.suffix(overlap))
        tail = Data(joined.suffix(overlap))
        return false
    }
}
