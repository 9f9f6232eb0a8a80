import CMockServerSystem

/// Streaming gzip (RFC 1952) decompression through the system zlib, for request bodies sent
/// with `Content-Encoding: gzip` to `/upload`.
///
/// Feed the body's buffers in order to ``inflate(_:into:)``; after the last one,
/// ``isComplete`` says whether the gzip stream ended (its trailer, with the CRC-32 and length
/// zlib checks, was read). One gzip member only: bytes after its end are an error.
///
/// Non-copyable: it owns the zlib stream, which must not move, and frees it in `deinit`.
struct GzipInflater: ~Copyable {
    /// Why a body is not valid gzip.
    struct Failure: Error {
        /// A sentence naming what zlib found.
        let message: String
    }

    private let stream: UnsafeMutablePointer<z_stream>
    private let output: UnsafeMutableBufferPointer<Bytef>
    /// Whether the end of the gzip stream (and its verified trailer) has been read.
    private(set) var isComplete = false

    /// The output buffer's size: 64 KiB.
    private static let outputSize = 64 * 1024

    /// Starts an inflater that accepts the gzip format only (`windowBits` 15 + 16).
    ///
    /// - Throws: ``Failure`` when zlib cannot start.
    init() throws {
        stream = UnsafeMutablePointer<z_stream>.allocate(capacity: 1)
        stream.initialize(to: z_stream())
        output = UnsafeMutableBufferPointer<Bytef>.allocate(capacity: Self.outputSize)
        let result = mock_inflateInit2(stream, 15 + 16)
        guard result == Z_OK else {
            stream.deinitialize(count: 1)
            stream.deallocate()
            output.deallocate()
            throw Failure(message: "inflateInit2 returned \(result)")
        }
    }

    deinit {
        inflateEnd(stream)
        stream.deinitialize(count: 1)
        stream.deallocate()
        output.deallocate()
    }

    /// Decompresses the next compressed bytes, handing each run of output to `body`.
    ///
    /// - Parameters:
    ///   - input: The next bytes of the gzip stream.
    ///   - body: Receives the decompressed bytes, in order; the buffer is valid only during the call.
    /// - Throws: ``Failure`` when the bytes are not gzip, fail its checks, or continue after its end.
    mutating func inflate(_ input: UnsafeRawBufferPointer, into body: (UnsafeRawBufferPointer) -> Void) throws {
        guard !input.isEmpty else { return }
        guard !isComplete else {
            throw Failure(message: "the body continues after the end of the gzip stream")
        }
        stream.pointee.next_in = input.baseAddress.map {
            UnsafeMutablePointer(mutating: $0.assumingMemoryBound(to: Bytef.self))
        }
        stream.pointee.avail_in = uInt(input.count)
        defer {
            stream.pointee.next_in = nil
            stream.pointee.avail_in = 0
            stream.pointee.next_out = nil
        }
        while true {
            stream.pointee.next_out = output.baseAddress
            stream.pointee.avail_out = uInt(output.count)
            let result = CMockServerSystem.inflate(stream, Z_NO_FLUSH)
            let produced = output.count - Int(stream.pointee.avail_out)
            if produced > 0 { body(UnsafeRawBufferPointer(start: output.baseAddress, count: produced)) }
            switch result {
            case Z_STREAM_END:
                isComplete = true
                if stream.pointee.avail_in > 0 {
                    throw Failure(message: "the body continues after the end of the gzip stream")
                }
                return
            case Z_OK, Z_BUF_ERROR:
                // All input taken and the output not full: wait for more input.
                if stream.pointee.avail_in == 0 && stream.pointee.avail_out > 0 { return }
                if result == Z_BUF_ERROR {
                    throw Failure(message: "inflate made no progress (Z_BUF_ERROR)")
                }
            default:
                let detail = stream.pointee.msg.map { String(cString: $0) } ?? "error \(result)"
                throw Failure(message: "inflate failed: \(detail)")
            }
        }
    }
}
