import Foundation
import Glibc
import Transport

/// Where the read callback takes request-body bytes from, for one hop of a transfer.
///
/// In-memory and file bodies are read directly on the loop thread (a file read is a short
/// `read(2)` of at most libcurl's upload buffer); a streamed body is pumped by its own task
/// into an ``UploadStreamBuffer``.
final class UploadSource {
    private enum Storage {
        case bytes(Data, offset: Int)
        case file(descriptor: Int32, remaining: Int64, path: String)
        case stream(UploadStreamBuffer, Task<Void, Never>)
    }

    private var storage: Storage
    /// The body's length when known (sent as `Content-Length`), `nil` for chunked.
    let length: Int64?

    /// Opens the body for sending.
    ///
    /// - Throws: ``TransportError`` with category `.invalidBody` when a file cannot be opened.
    init(body: RequestBody, highWaterMark: Int, resumeSending: @escaping @Sendable () -> Void) throws {
        switch body.content {
        case .bytes(let data):
            storage = .bytes(data, offset: 0)
            length = Int64(data.count)
        case .file(let path, let offset, let requestedLength):
            let descriptor = open(path, O_RDONLY | O_CLOEXEC)
            guard descriptor >= 0 else {
                throw Self.fileError(path, "cannot be opened (\(String(cString: strerror(errno))))")
            }
            var info = stat()
            guard fstat(descriptor, &info) == 0, (info.st_mode & S_IFMT) == S_IFREG else {
                Glibc.close(descriptor)
                throw Self.fileError(path, "is not a regular file")
            }
            let available = Int64(info.st_size) - offset
            guard offset >= 0, available >= 0, lseek(descriptor, off_t(offset), SEEK_SET) >= 0 else {
                Glibc.close(descriptor)
                throw Self.fileError(path, "is shorter than the offset \(offset)")
            }
            let size = requestedLength ?? available
            guard size <= available else {
                Glibc.close(descriptor)
                throw Self.fileError(
                    path, "holds \(available) bytes after offset \(offset), fewer than the \(size) requested")
            }
            storage = .file(descriptor: descriptor, remaining: size, path: path)
            length = size
        case .stream(let stream):
            let buffer = UploadStreamBuffer(highWaterMark: highWaterMark, resumeSending: resumeSending)
            let task = Task {
                do {
                    try await stream.pump { chunk in try await buffer.push(chunk) }
                    buffer.finish(failure: nil)
                } catch let error as TransportError {
                    buffer.finish(failure: error)
                } catch is CancellationError {
                    buffer.finish(
                        failure: TransportError(.cancelled, message: "The request body stream was cancelled."))
                } catch {
                    buffer.finish(
                        failure: TransportError(
                            .invalidBody, message: "The request body stream failed: \(error)."))
                }
            }
            storage = .stream(buffer, task)
            length = body.length
        }
    }

    /// Copies the next bytes into `buffer`.
    func read(into destination: UnsafeMutableRawBufferPointer) -> UploadStreamBuffer.ReadResult {
        switch storage {
        case .bytes(let data, let offset):
            let count = min(destination.count, data.count - offset)
            guard count > 0 else { return .end }
            data.withUnsafeBytes { source in
                if let from = source.baseAddress, let to = destination.baseAddress {
                    to.copyMemory(from: from + offset, byteCount: count)
                }
            }
            storage = .bytes(data, offset: offset + count)
            return .bytes(count)
        case .file(let descriptor, let remaining, let path):
            guard remaining > 0 else { return .end }
            let wanted = Int(min(Int64(destination.count), remaining))
            let count = Glibc.read(descriptor, destination.baseAddress, wanted)
            if count < 0 {
                return .failed(Self.fileError(path, "could not be read (\(String(cString: strerror(errno))))"))
            }
            if count == 0 {
                return .failed(Self.fileError(path, "ended \(remaining) bytes early; was it truncated while sending?"))
            }
            storage = .file(descriptor: descriptor, remaining: remaining - Int64(count), path: path)
            return .bytes(count)
        case .stream(let stream, _):
            return stream.read(into: destination)
        }
    }

    /// Releases the file or stops the producer task.
    func close() {
        switch storage {
        case .bytes:
            break
        case .file(let descriptor, _, let path):
            Glibc.close(descriptor)
            storage = .file(descriptor: -1, remaining: 0, path: path)
        case .stream(let buffer, let task):
            buffer.close()
            task.cancel()
        }
    }

    deinit { close() }

    private static func fileError(_ path: String, _ problem: String) -> TransportError {
        TransportError(.invalidBody, message: "The request body file \(path) \(problem).", mayHaveReachedServer: false)
    }
}
