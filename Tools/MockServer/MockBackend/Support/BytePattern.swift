import NIOCore

/// The deterministic body the byte routes send: byte `i` is `UInt8(i % 251)`.
///
/// `/bytes/{n}`, `/stream-bytes/{n}`, `/stall` and `/drop` all send a prefix of this infinite
/// pattern, so a test can check every byte it received without the server sending a checksum.
/// 251 is prime, so no power-of-two buffer size lines up with the period and an off-by-one in a
/// client's buffer handling shows up as a mismatch.
///
/// ```swift
/// let body: [UInt8] = try await download("\(server.baseURL)/bytes/1000")
/// #expect(body == BytePattern.bytes(0..<1000))
/// ```
public enum BytePattern {
    /// The period of the pattern: 251, the largest prime below 256.
    public static let period = 251

    /// The byte at `offset` in the pattern.
    ///
    /// - Parameter offset: A zero-based position, `>= 0`.
    /// - Returns: `UInt8(offset % 251)`.
    public static func byte(at offset: Int) -> UInt8 {
        UInt8(offset % period)
    }

    /// The pattern's bytes at the positions in `range`.
    ///
    /// - Parameter range: Zero-based positions, all `>= 0`.
    /// - Returns: One byte per position, in order.
    public static func bytes(_ range: Range<Int>) -> [UInt8] {
        range.map { byte(at: $0) }
    }
}

/// Hands out slices of the pattern as `ByteBuffer`s without allocating per write.
///
/// Holds one buffer of `period + maximumChunk` bytes; the slice for any offset starts at
/// `offset % period` inside it, so every chunk up to `maximumChunk` bytes is a zero-copy view.
struct BytePatternSource: Sendable {
    /// The largest chunk ``slice(from:count:)`` can return.
    let maximumChunk: Int
    private let storage: ByteBuffer

    /// Creates a source for chunks of up to `maximumChunk` bytes.
    ///
    /// The buffer is filled one period (251 bytes) per write: a debug build of NIO spends about
    /// a microsecond on each write, and byte by byte a 256 KiB source took a quarter of a
    /// second of the cooperative pool for every request.
    init(maximumChunk: Int) {
        self.maximumChunk = max(1, maximumChunk)
        let length = BytePattern.period + self.maximumChunk
        let period = BytePattern.bytes(0..<BytePattern.period)
        var buffer = ByteBufferAllocator().buffer(capacity: length)
        while buffer.writerIndex < length {
            buffer.writeBytes(period.prefix(length - buffer.writerIndex))
        }
        storage = buffer
    }

    /// The pattern bytes `offset ..< offset + count`; `count` is clamped to ``maximumChunk``.
    func slice(from offset: Int, count: Int) -> ByteBuffer {
        let length = min(count, maximumChunk)
        return storage.getSlice(at: storage.readerIndex + offset % BytePattern.period, length: length)
            ?? ByteBuffer()
    }

    /// Writes the pattern bytes `offset ..< offset + count` in chunks of at most ``maximumChunk``.
    ///
    /// - Returns: The offset after the last byte written.
    @discardableResult
    func write(
        from offset: Int,
        count: Int,
        using write: (ByteBuffer) async throws -> Void
    ) async throws -> Int {
        var position = offset
        let end = offset + count
        while position < end {
            let chunk = slice(from: position, count: end - position)
            guard chunk.readableBytes > 0 else { break }
            try await write(chunk)
            position += chunk.readableBytes
        }
        return position
    }
}
