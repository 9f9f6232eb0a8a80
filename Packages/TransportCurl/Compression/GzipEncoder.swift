import CZlib
import Foundation
import Transport

/// A streaming gzip (RFC 1952) compressor: feed it chunks in order, send what each call
/// returns, then send what ``finish()`` returns.
///
/// Used for ``Transport/TransferOptions/compressesRequestBody``: the request body's producer
/// task compresses with it, so deflate never runs on the engine's loop thread. Memory is
/// bounded whatever the body's size: zlib's state (about 256 KiB at memory level 8) and one
/// 64 KiB output buffer.
///
/// ```swift
/// var encoder = try GzipEncoder()
/// for chunk in chunks { send(try encoder.compress(chunk)) }   // often empty: deflate buffers
/// send(try encoder.finish())
/// ```
///
/// Non-copyable: it owns the zlib stream, which must stay at one address, and frees it in
/// `deinit`. It is not thread-safe; wrap it in a `PThreadMutex` to use it from a `@Sendable` sink
/// that is called one chunk at a time.
struct GzipEncoder: ~Copyable {
    /// zlib keeps a back pointer to the `z_stream`, so it lives at one heap address.
    private let stream: UnsafeMutablePointer<z_stream>
    /// Where deflate writes before the bytes are copied into the returned `Data`.
    private let output: UnsafeMutableBufferPointer<Bytef>
    private var isFinished = false

    /// The output buffer's size: 64 KiB.
    private static let outputSize = 64 * 1024
    /// The most input handed to zlib at once (its counters are 32-bit): 1 GiB.
    private static let maximumInputPerCall = 1 << 30

    /// Creates an encoder.
    ///
    /// - Parameter level: The zlib compression level, 1 (fastest) to 9 (smallest); 6 by
    ///   default, zlib's own balance of speed and size.
    /// - Throws: ``Transport/TransportError`` with category `.invalidBody` when zlib cannot
    ///   start (out of memory, or a level outside 0...9).
    init(level: Int32 = 6) throws {
        stream = UnsafeMutablePointer<z_stream>.allocate(capacity: 1)
        stream.initialize(to: z_stream())
        output = UnsafeMutableBufferPointer<Bytef>.allocate(capacity: Self.outputSize)
        // windowBits 15 + 16: a 32 KiB window and a gzip header and trailer instead of zlib's.
        let result = parley_deflateInit2(stream, level, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY)
        guard result == Z_OK else {
            stream.deinitialize(count: 1)
            stream.deallocate()
            output.deallocate()
            throw Self.error("deflateInit2", result, nil)
        }
    }

    deinit {
        deflateEnd(stream)
        stream.deinitialize(count: 1)
        stream.deallocate()
        output.deallocate()
    }

    /// Compresses the next chunk of the body.
    ///
    /// - Parameter chunk: The next bytes, in order.
    /// - Returns: The compressed bytes ready so far; often empty, because deflate gathers
    ///   input before it emits a block.
    /// - Throws: ``Transport/TransportError`` with category `.invalidBody` when zlib fails, or
    ///   when called after ``finish()``.
    mutating func compress(_ chunk: Data) throws -> Data {
        guard !chunk.isEmpty else { return Data() }
        var compressed = Data()
        var start = chunk.startIndex
        while start < chunk.endIndex {
            let end = chunk.index(start, offsetBy: min(Self.maximumInputPerCall, chunk.endIndex - start))
            try chunk[start..<end].withUnsafeBytes { input in
                compressed.append(try deflateAll(input, flush: Z_NO_FLUSH))
            }
            start = end
        }
        return compressed
    }

    /// Ends the stream: the last compressed bytes and the gzip trailer (CRC-32 and length).
    ///
    /// - Returns: The final bytes; at least the 8-byte trailer.
    /// - Throws: ``Transport/TransportError`` with category `.invalidBody` when zlib fails, or
    ///   when called twice.
    mutating func finish() throws -> Data {
        let last = try deflateAll(UnsafeRawBufferPointer(start: nil, count: 0), flush: Z_FINISH)
        isFinished = true
        return last
    }

    /// Runs deflate over all of `input` until it is consumed (or, with `Z_FINISH`, until the
    /// stream ends), collecting the output.
    private mutating func deflateAll(_ input: UnsafeRawBufferPointer, flush: Int32) throws -> Data {
        guard !isFinished else {
            throw TransportError(
                .invalidBody, message: "The gzip encoder for the request body was used after it finished.")
        }
        var compressed = Data()
        stream.pointee.next_in = input.baseAddress.map {
            UnsafeMutablePointer(mutating: $0.assumingMemoryBound(to: Bytef.self))
        }
        stream.pointee.avail_in = uInt(input.count)
        // The input pointer must not outlive the buffer the caller lent.
        defer {
            stream.pointee.next_in = nil
            stream.pointee.avail_in = 0
        }
        while true {
            stream.pointee.next_out = output.baseAddress
            stream.pointee.avail_out = uInt(output.count)
            let result = deflate(stream, flush)
            let produced = output.count - Int(stream.pointee.avail_out)
            if produced > 0, let base = output.baseAddress { compressed.append(base, count: produced) }
            switch result {
            case Z_STREAM_END:
                stream.pointee.next_out = nil
                return compressed
            case Z_OK, Z_BUF_ERROR:
                // Z_NO_FLUSH is done once deflate leaves room in the output: all input is taken.
                // Z_FINISH goes on until Z_STREAM_END. Z_BUF_ERROR means no progress was possible
                // with an empty input and output room to spare, which is done too.
                if flush != Z_FINISH && stream.pointee.avail_out > 0 {
                    stream.pointee.next_out = nil
                    return compressed
                }
                if result == Z_BUF_ERROR && stream.pointee.avail_out > 0 {
                    throw Self.error("deflate", result, stream.pointee.msg)
                }
            default:
                throw Self.error("deflate", result, stream.pointee.msg)
            }
        }
    }

    private static func error(_ call: String, _ code: Int32, _ message: UnsafePointer<CChar>?) -> TransportError {
        let detail = message.map { ": \(String(cString: $0))" } ?? ""
        return TransportError(
            .invalidBody,
            message: "Compressing the request body with gzip failed: zlib's \(call) returned \(code)\(detail).")
    }
}
