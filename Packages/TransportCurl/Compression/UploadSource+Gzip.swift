import Foundation
import Transport

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

// Request-body compression (`TransferOptions.compressesRequestBody`): every kind of body
// becomes a producer that deflates on the body's own task, so the loop thread only copies
// compressed bytes out of the `UploadStreamBuffer`, as for any streamed body.
extension UploadSource {
    /// How much of an in-memory or file body is compressed at a time: 64 KiB.
    static let gzipInputChunkSize = 64 * 1024

    /// A producer of `body`'s bytes, gzip-compressed.
    ///
    /// A file is opened now, so a missing file fails the transfer before any socket is used,
    /// exactly as without compression; the producer reads it in chunks of
    /// ``gzipInputChunkSize`` and closes it when it ends. Call the producer once.
    ///
    /// - Parameter body: The body to compress.
    /// - Returns: A producer that pushes the compressed bytes, ending with the gzip trailer.
    /// - Throws: ``TransportError`` with category `.invalidBody` when a file cannot be opened.
    static func gzipProducer(for body: RequestBody) throws -> Producer {
        switch body.content {
        case .bytes(let data):
            return { sink in
                var encoder = try GzipEncoder()
                var start = data.startIndex
                while start < data.endIndex {
                    let end = data.index(start, offsetBy: min(gzipInputChunkSize, data.endIndex - start))
                    let compressed = try encoder.compress(data[start..<end])
                    if !compressed.isEmpty { try await sink(compressed) }
                    start = end
                }
                try await sink(try encoder.finish())
            }
        case .file(let path, let offset, let length):
            let file = try openFile(path, offset: offset, length: length)
            return { sink in
                defer { Glibc.close(file.descriptor) }
                var encoder = try GzipEncoder()
                var remaining = file.size
                while remaining > 0 {
                    try Task.checkCancellation()
                    let chunk = try readChunk(
                        from: file.descriptor, count: Int(min(Int64(gzipInputChunkSize), remaining)), path: path,
                        remaining: remaining)
                    remaining -= Int64(chunk.count)
                    let compressed = try encoder.compress(chunk)
                    if !compressed.isEmpty { try await sink(compressed) }
                }
                try await sink(try encoder.finish())
            }
        case .stream(let stream):
            return { sink in
                // The sink is `@Sendable`; `pump` calls it one chunk at a time, so the lock is
                // never contended and only satisfies the compiler.
                let encoder = PThreadMutex(EncoderBox(try GzipEncoder()))
                try await stream.pump { chunk in
                    let compressed = try encoder.withLock { try $0.encoder.compress(chunk) }
                    if !compressed.isEmpty { try await sink(compressed) }
                }
                try await sink(try encoder.withLock { try $0.encoder.finish() })
            }
        }
    }

    /// Reads up to `count` bytes of a file body (fewer only at a short read).
    private static func readChunk(from descriptor: Int32, count: Int, path: String, remaining: Int64) throws -> Data {
        var chunk = Data(count: count)
        let read = chunk.withUnsafeMutableBytes { buffer in Glibc.read(descriptor, buffer.baseAddress, count) }
        if read < 0 {
            throw fileError(path, "could not be read (\(String(cString: strerror(errno))))")
        }
        if read == 0 {
            throw fileError(path, "ended \(remaining) bytes early; was it truncated while sending?")
        }
        chunk.count = read
        return chunk
    }
}

/// A `GzipEncoder` in a class: the encoder is `~Copyable`, and `PThreadMutex` holds copyable
/// values only.
private final class EncoderBox {
    var encoder: GzipEncoder

    init(_ encoder: consuming GzipEncoder) {
        self.encoder = encoder
    }
}
