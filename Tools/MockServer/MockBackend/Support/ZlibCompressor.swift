import CMockServerSystem

/// One-shot DEFLATE compression through the system zlib, for the `/gzip` and `/deflate` routes.
enum ZlibCompressor {
    /// The container around the DEFLATE stream.
    enum Format {
        /// RFC 1952 gzip: what `Content-Encoding: gzip` names.
        case gzip
        /// RFC 1950 zlib: what `Content-Encoding: deflate` names (despite the name).
        case zlib

        /// zlib's `windowBits`: 15 is a 32 KiB window; adding 16 asks for a gzip wrapper.
        var windowBits: Int32 {
            switch self {
            case .gzip: 15 + 16
            case .zlib: 15
            }
        }
    }

    /// Compresses `input` completely.
    ///
    /// - Parameters:
    ///   - input: The bytes to compress.
    ///   - format: The wrapper to write around the DEFLATE stream.
    /// - Returns: The compressed bytes, a complete gzip or zlib stream.
    /// - Throws: ``MockServerError/compressionFailed`` when zlib reports an error.
    static func compress(_ input: [UInt8], format: Format) throws -> [UInt8] {
        // zlib keeps a back pointer to the z_stream and refuses to work if it moves, so the
        // stream lives at one heap address for its whole life.
        let stream = UnsafeMutablePointer<z_stream>.allocate(capacity: 1)
        stream.initialize(to: z_stream())
        defer {
            stream.deinitialize(count: 1)
            stream.deallocate()
        }
        let initResult = mock_deflateInit2(
            stream, Z_DEFAULT_COMPRESSION, Z_DEFLATED, format.windowBits, 8, Z_DEFAULT_STRATEGY)
        guard initResult == Z_OK else {
            throw MockServerError(.compressionFailed, "deflateInit2 returned \(initResult)")
        }
        defer { deflateEnd(stream) }

        let bound = Int(deflateBound(stream, uLong(input.count)))
        var output = [UInt8](repeating: 0, count: bound)
        var input = input
        let (result, remaining) = input.withUnsafeMutableBufferPointer { inputBuffer in
            output.withUnsafeMutableBufferPointer { outputBuffer in
                stream.pointee.next_in = inputBuffer.baseAddress
                stream.pointee.avail_in = uInt(inputBuffer.count)
                stream.pointee.next_out = outputBuffer.baseAddress
                stream.pointee.avail_out = uInt(outputBuffer.count)
                let result = deflate(stream, Z_FINISH)
                // The pointers must not outlive the closures that lent them.
                stream.pointee.next_in = nil
                stream.pointee.next_out = nil
                return (result, Int(stream.pointee.avail_out))
            }
        }
        guard result == Z_STREAM_END else {
            throw MockServerError(.compressionFailed, "deflate returned \(result)")
        }
        output.removeLast(remaining)
        return output
    }
}
