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
    /// Writes one period, then doubles what it wrote (a copy of whole periods continues the
    /// pattern), so that tens of mebibytes take milliseconds even in a debug build: a test that
    /// builds its expected body on the concurrency pool must not hold one of its few threads
    /// for seconds.
    ///
    /// - Parameter range: Zero-based positions, all `>= 0`.
    /// - Returns: One byte per position, in order.
    public static func bytes(_ range: Range<Int>) -> [UInt8] {
        precondition(range.lowerBound >= 0, "BytePattern positions start at 0")
        let count = range.count
        return [UInt8](unsafeUninitializedCapacity: count) { buffer, initialized in
            guard let start = buffer.baseAddress else { return }
            let first = min(count, period)
            for index in 0..<first { (start + index).initialize(to: byte(at: range.lowerBound + index)) }
            var filled = first
            while filled < count {
                let run = min(filled, count - filled)
                (start + filled).initialize(from: start, count: run)
                filled += run
            }
            initialized = count
        }
    }
}

/// Hands out slices of a repeating body as `ByteBuffer`s without allocating per write.
///
/// The body repeats a unit: ``BytePattern``'s 251 bytes by default, or any other (the radar
/// images repeat 4093 bytes of their city). The source holds one buffer of `unit +
/// maximumChunk` bytes; the slice for any offset starts at `offset % unit.count` inside it, so
/// every chunk up to `maximumChunk` bytes is a zero-copy view, and a body of any length, or any
/// range of it, costs that one buffer.
struct BytePatternSource: Sendable {
    /// The largest chunk ``slice(from:count:)`` can return.
    let maximumChunk: Int
    /// The length of the repeating unit: byte `i` of the body is byte `i % period` of the unit.
    let period: Int
    private let storage: ByteBuffer

    /// Creates a source of ``BytePattern`` for chunks of up to `maximumChunk` bytes.
    init(maximumChunk: Int) {
        self.init(unit: BytePattern.bytes(0..<BytePattern.period), maximumChunk: maximumChunk)
    }

    /// Creates a source of `unit` repeated, for chunks of up to `maximumChunk` bytes.
    ///
    /// The buffer is filled one unit per write: a debug build of NIO spends about a microsecond
    /// on each write, and byte by byte a 256 KiB source took a quarter of a second of the
    /// cooperative pool for every request.
    ///
    /// - Parameters:
    ///   - unit: The bytes the body repeats; an empty unit stands for a single zero byte.
    ///   - maximumChunk: The largest chunk wanted, at least 1.
    init(unit: [UInt8], maximumChunk: Int) {
        let unit = unit.isEmpty ? [0] : unit
        self.maximumChunk = max(1, maximumChunk)
        period = unit.count
        let length = period + self.maximumChunk
        var buffer = ByteBufferAllocator().buffer(capacity: length)
        while buffer.writerIndex < length {
            buffer.writeBytes(unit.prefix(length - buffer.writerIndex))
        }
        storage = buffer
    }

    /// The body's bytes `offset ..< offset + count`; `count` is clamped to ``maximumChunk``.
    func slice(from offset: Int, count: Int) -> ByteBuffer {
        let length = min(count, maximumChunk)
        return storage.getSlice(at: storage.readerIndex + offset % period, length: length) ?? ByteBuffer()
    }

    /// Writes the body's bytes `offset ..< offset + count` in chunks of at most ``maximumChunk``.
    ///
    /// - Parameters:
    ///   - offset: The position of the first byte.
    ///   - count: How many bytes to write.
    ///   - pause: Milliseconds to wait after each chunk but the last (0, the default, for
    ///     none): a slow server, so a client's progress is visible.
    ///   - write: Sends one chunk.
    /// - Returns: The offset after the last byte written.
    @discardableResult
    func write(
        from offset: Int,
        count: Int,
        pausingAfterEachChunk pause: Int = 0,
        using write: (ByteBuffer) async throws -> Void
    ) async throws -> Int {
        var position = offset
        let end = offset + count
        while position < end {
            let chunk = slice(from: position, count: end - position)
            guard chunk.readableBytes > 0 else { break }
            try await write(chunk)
            position += chunk.readableBytes
            if pause > 0, position < end { try await Task.sleep(for: .milliseconds(pause)) }
        }
        return position
    }
}
