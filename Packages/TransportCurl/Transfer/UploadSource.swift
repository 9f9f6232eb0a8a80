import Foundation
import Transport

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Where the read callback takes request-body bytes from, for one hop of a transfer.
///
/// In-memory and file bodies are read directly on the loop thread (a file read is a short
/// `read(2)` of at most libcurl's upload buffer); a streamed body is pumped by its own task
/// into an ``UploadStreamBuffer``. A body sent gzip-compressed is always streamed that way,
/// whatever its kind, so deflate runs on that task (see `UploadSource+Gzip.swift`).
final class UploadSource {
    private enum Storage {
        case bytes(Data, offset: Int)
        /// A file: where the body starts in it and how long it is, for rewinding.
        case file(descriptor: Int32, remaining: Int64, path: String, start: Int64, size: Int64)
        case stream(UploadStreamBuffer, Task<Void, Never>)
    }

    private var storage: Storage
    /// The body's length when known (sent as `Content-Length`), `nil` for chunked.
    let length: Int64?
    /// Whether the bytes read are the body gzip-compressed (sent with `Content-Encoding: gzip`).
    let isGzipped: Bool

    /// A body's producer: pushes every chunk into `sink`, in order.
    typealias Producer = @Sendable (_ sink: @Sendable (Data) async throws -> Void) async throws -> Void

    /// Opens the body for sending.
    ///
    /// - Parameters:
    ///   - body: The body.
    ///   - gzip: Whether to send the body gzip-compressed (``TransferOptions/compressesRequestBody``).
    ///     Any body then becomes a stream of unknown length, compressed by its producer task, never
    ///     on the loop thread; a file is still opened here.
    ///   - highWaterMark: Bytes a streamed body may buffer before its producer is held back.
    ///   - resumeSending: Asks the loop to unpause sending.
    /// - Throws: ``TransportError`` with category `.invalidBody` when a file cannot be opened.
    init(
        body: RequestBody,
        gzip: Bool = false,
        highWaterMark: Int,
        resumeSending: @escaping @Sendable () -> Void
    ) throws {
        isGzipped = gzip
        if gzip {
            let buffer = UploadStreamBuffer(highWaterMark: highWaterMark, resumeSending: resumeSending)
            storage = .stream(buffer, Self.startPumping(try Self.gzipProducer(for: body), into: buffer))
            length = nil
            return
        }
        switch body.content {
        case .bytes(let data):
            storage = .bytes(data, offset: 0)
            length = Int64(data.count)
        case .file(let path, let offset, let requestedLength):
            let file = try Self.openFile(path, offset: offset, length: requestedLength)
            storage = .file(
                descriptor: file.descriptor, remaining: file.size, path: path, start: offset, size: file.size)
            length = file.size
        case .stream(let stream):
            let buffer = UploadStreamBuffer(highWaterMark: highWaterMark, resumeSending: resumeSending)
            storage = .stream(buffer, Self.startPumping({ sink in try await stream.pump(into: sink) }, into: buffer))
            length = body.length
        }
    }

    /// Opens a file body and positions it at `offset`.
    ///
    /// - Returns: The open descriptor (the caller closes it) and the number of bytes to send.
    /// - Throws: ``TransportError`` with category `.invalidBody` naming the path.
    static func openFile(
        _ path: String,
        offset: Int64,
        length requestedLength: Int64?
    ) throws -> (descriptor: Int32, size: Int64) {
        let descriptor = open(path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else {
            throw fileError(path, "cannot be opened (\(String(cString: strerror(errno))))")
        }
        var info = stat()
        guard fstat(descriptor, &info) == 0, (info.st_mode & S_IFMT) == S_IFREG else {
            Glibc.close(descriptor)
            throw fileError(path, "is not a regular file")
        }
        let available = Int64(info.st_size) - offset
        guard offset >= 0, available >= 0, lseek(descriptor, off_t(offset), SEEK_SET) >= 0 else {
            Glibc.close(descriptor)
            throw fileError(path, "is shorter than the offset \(offset)")
        }
        let size = requestedLength ?? available
        guard size <= available else {
            Glibc.close(descriptor)
            throw fileError(
                path, "holds \(available) bytes after offset \(offset), fewer than the \(size) requested")
        }
        return (descriptor, size)
    }

    /// Runs `producer` on a task of its own, pushing into `buffer` and recording how it ended.
    private static func startPumping(
        _ producer: @escaping Producer,
        into buffer: UploadStreamBuffer
    ) -> Task<Void, Never> {
        Task {
            do {
                try await producer { chunk in try await buffer.push(chunk) }
                buffer.finish(failure: nil)
            } catch let error as TransportError {
                buffer.finish(failure: error)
            } catch is CancellationError {
                buffer.finish(failure: TransportError(.cancelled, message: "The request body stream was cancelled."))
            } catch {
                buffer.finish(
                    failure: TransportError(.invalidBody, message: "The request body stream failed: \(error)."))
            }
        }
    }

    /// Moves back (or forward) to `offset` bytes from the body's start, so that the next read
    /// starts there: for libcurl sending the request again by itself.
    ///
    /// - Returns: `false` for a stream, which cannot be read again, or an offset outside the body.
    func seek(to offset: Int64) -> Bool {
        switch storage {
        case .bytes(let data, _):
            guard offset >= 0, offset <= Int64(data.count) else { return false }
            storage = .bytes(data, offset: Int(offset))
            return true
        case .file(let descriptor, _, let path, let start, let size):
            guard offset >= 0, offset <= size, lseek(descriptor, off_t(start + offset), SEEK_SET) >= 0 else {
                return false
            }
            storage = .file(descriptor: descriptor, remaining: size - offset, path: path, start: start, size: size)
            return true
        case .stream:
            return false
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
        case .file(let descriptor, let remaining, let path, let start, let size):
            guard remaining > 0 else { return .end }
            let wanted = Int(min(Int64(destination.count), remaining))
            let count = Glibc.read(descriptor, destination.baseAddress, wanted)
            if count < 0 {
                return .failed(Self.fileError(path, "could not be read (\(String(cString: strerror(errno))))"))
            }
            if count == 0 {
                return .failed(Self.fileError(path, "ended \(remaining) bytes early; was it truncated while sending?"))
            }
            storage = .file(
                descriptor: descriptor, remaining: remaining - Int64(count), path: path, start: start, size: size)
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
        case .file(let descriptor, _, let path, let start, let size):
            Glibc.close(descriptor)
            storage = .file(descriptor: -1, remaining: 0, path: path, start: start, size: size)
        case .stream(let buffer, let task):
            buffer.close()
            task.cancel()
        }
    }

    deinit { close() }

    static func fileError(_ path: String, _ problem: String) -> TransportError {
        TransportError(.invalidBody, message: "The request body file \(path) \(problem).", mayHaveReachedServer: false)
    }
}
