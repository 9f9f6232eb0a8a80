import Hummingbird
import NIOCore

extension BodySummary {
    /// Reads a body sent with `Content-Encoding: gzip` to its end, summarising both the bytes
    /// on the wire and the bytes they inflate to, and keeping neither.
    ///
    /// A body that is not valid gzip is still read to its end, so the client gets the 400
    /// instead of a connection reset while it is still sending.
    ///
    /// - Returns: The summary of the bytes as received, and of the decoded bytes.
    /// - Throws: ``RouteError`` (400) when the body is not one complete gzip stream.
    static func readGzip(
        _ body: RequestBody,
        entry: RequestRecorder.Entry
    ) async throws -> (received: BodySummary, decoded: BodySummary) {
        var received = BodySummary()
        var decoded = BodySummary()
        var receivedHasher = SHA256()
        var decodedHasher = SHA256()
        var inflater = try makeInflater()
        var failure: String?
        for try await buffer in body {
            buffer.withUnsafeReadableBytes { receivedHasher.update($0) }
            received.length += buffer.readableBytes
            entry.setBodyLength(received.length)
            guard failure == nil else { continue }
            do {
                try buffer.withUnsafeReadableBytes { input in
                    try inflater.inflate(input) { output in
                        decodedHasher.update(output)
                        decoded.length += output.count
                    }
                }
            } catch let error as GzipInflater.Failure {
                failure = "\(error.message) (after \(received.length) bytes)"
            }
        }
        entry.setBodyLength(received.length)
        if failure == nil && !inflater.isComplete {
            failure = "the body ends before the gzip stream does (\(received.length) bytes received)"
        }
        if let failure {
            throw RouteError(
                .badRequest, "The body is sent with Content-Encoding: gzip but is not valid gzip: \(failure)")
        }
        received.sha256 = receivedHasher.finalizeHex()
        decoded.sha256 = decodedHasher.finalizeHex()
        return (received, decoded)
    }

    private static func makeInflater() throws -> GzipInflater {
        do {
            return try GzipInflater()
        } catch let error as GzipInflater.Failure {
            throw RouteError(.internalServerError, "zlib could not start: \(error.message)")
        }
    }
}
