import Foundation
import Transport

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// The files of one download on disk: `DEST.partial` (open, locked) and its sidecar
/// `DEST.partial.json`, with the few system calls the download makes on them.
///
/// Every method is one step of the crash-consistency argument in ``FileDownload``: each
/// leaves the pair in a state a later run can trust, whichever system call a `kill -9` stops
/// it before. Errors are ``TransportError``s of category `.downloadFailed` naming the file
/// and the system's reason.
struct PartialFile: Sendable {
    /// The final path.
    let destination: String
    /// The URL being downloaded, for error messages.
    let url: String
    /// The open descriptor of `DEST.partial`: read-write, append-only, locked.
    let descriptor: Int32

    /// `DEST.partial`.
    static func partialPath(of destination: String) -> String { destination + ".partial" }
    /// `DEST.partial.json`.
    static func sidecarPath(of destination: String) -> String { destination + ".partial.json" }
    /// `DEST.partial.json.tmp`, where a new sidecar is written before it replaces the old one.
    static func sidecarTemporaryPath(of destination: String) -> String { destination + ".partial.json.tmp" }

    var partialPath: String { Self.partialPath(of: destination) }
    var sidecarPath: String { Self.sidecarPath(of: destination) }

    /// Opens (creating if needed) `DEST.partial` and takes an exclusive lock on it.
    ///
    /// The lock (`flock`) keeps two downloads, in this process or another, from writing the
    /// same partial; the kernel releases it when the descriptor closes, also on `kill -9`.
    static func open(destination: String, url: String) throws -> PartialFile {
        let path = partialPath(of: destination)
        let descriptor = systemOpen(path, O_RDWR | O_CREAT | O_APPEND | O_CLOEXEC, 0o644)
        guard descriptor >= 0 else {
            throw failure("open", path, errno: errno, url: url)
        }
        var locked: Int32
        repeat { locked = flock(descriptor, LOCK_EX | LOCK_NB) } while locked != 0 && errno == EINTR
        guard locked == 0 else {
            let code = errno
            _ = systemClose(descriptor)
            if code == EWOULDBLOCK {
                throw TransportError(
                    .downloadFailed,
                    message: "Another download is already writing \(path), in this process or another. Wait for it "
                        + "to finish or stop it, then try again.",
                    url: url, mayHaveReachedServer: false)
            }
            throw failure("lock", path, errno: code, url: url)
        }
        return PartialFile(destination: destination, url: url, descriptor: descriptor)
    }

    /// Closes the descriptor, releasing the lock.
    func close() {
        _ = systemClose(descriptor)
    }

    // MARK: - The partial

    /// The partial's size: the bytes actually on disk.
    func size() throws -> Int64 {
        var status = stat()
        guard fstat(descriptor, &status) == 0 else { throw Self.failure("read the size of", partialPath, url: url) }
        return Int64(status.st_size)
    }

    /// Cuts the partial to `length` bytes, then (when `durable`) flushes that to the disk.
    func truncate(to length: Int64, durable: Bool) throws {
        var result: Int32
        repeat { result = ftruncate(descriptor, off_t(length)) } while result != 0 && errno == EINTR
        guard result == 0 else { throw Self.failure("truncate", partialPath, url: url) }
        if durable { try synchronize() }
    }

    /// Appends `bytes` at the end of the partial (`O_APPEND`), retrying short writes.
    func append(_ bytes: UnsafeRawBufferPointer) throws {
        try Self.writeAll(bytes, to: descriptor, path: partialPath, url: url)
    }

    /// Writes all of `bytes` to `descriptor`, retrying short and interrupted writes.
    private static func writeAll(_ bytes: UnsafeRawBufferPointer, to descriptor: Int32, path: String, url: String)
        throws
    {
        guard var base = bytes.baseAddress else { return }
        var remaining = bytes.count
        while remaining > 0 {
            let written = systemWrite(descriptor, base, remaining)
            if written < 0 {
                if errno == EINTR { continue }
                throw failure("write to", path, url: url)
            }
            remaining -= written
            base += written
        }
    }

    /// Flushes the partial's data and size to the disk (`fsync`).
    func synchronize() throws {
        guard fsync(descriptor) == 0 else { throw Self.failure("flush", partialPath, url: url) }
    }

    /// Reads the partial's first `length` bytes with `pread`, in 1 MiB blocks, handing each to
    /// `body` in order. Fails when the partial is shorter than `length`.
    func read(upTo length: Int64, _ body: (UnsafeRawBufferPointer) -> Void) throws {
        let blockSize = 1 << 20
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: blockSize, alignment: 16)
        defer { buffer.deallocate() }
        guard let base = buffer.baseAddress else { return }
        var offset: Int64 = 0
        while offset < length {
            let count = pread(descriptor, base, Int(min(Int64(blockSize), length - offset)), off_t(offset))
            if count < 0 {
                if errno == EINTR { continue }
                throw Self.failure("read", partialPath, url: url)
            }
            if count == 0 {
                throw TransportError(
                    .downloadFailed,
                    message: "\(partialPath) holds \(offset) bytes, fewer than the \(length) this download wrote; "
                        + "something else changed it. Run the download again to start over.",
                    url: url, mayHaveReachedServer: false)
            }
            body(UnsafeRawBufferPointer(start: base, count: count))
            offset += Int64(count)
        }
    }

    // MARK: - The sidecar

    /// The sidecar on disk, or `nil` when it is missing or unreadable.
    func readSidecar() -> DownloadSidecar? {
        guard let data = FileManager.default.contents(atPath: sidecarPath), data.count <= 64 << 10 else { return nil }
        return DownloadSidecar.decode(data)
    }

    /// Replaces the sidecar atomically: writes `DEST.partial.json.tmp`, then `rename(2)`s it
    /// over the old one, so a crash leaves the old record or the new one, never a mixture.
    /// When `durable`, the new file is flushed before the rename and the folder after it.
    func writeSidecar(_ record: DownloadSidecar, durable: Bool) throws {
        let temporary = Self.sidecarTemporaryPath(of: destination)
        let data = try record.encoded()
        let file = systemOpen(temporary, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
        guard file >= 0 else { throw Self.failure("create", temporary, url: url) }
        do {
            try data.withUnsafeBytes { try Self.writeAll($0, to: file, path: temporary, url: url) }
            if durable, fsync(file) != 0 { throw Self.failure("flush", temporary, url: url) }
        } catch {
            _ = systemClose(file)
            throw error
        }
        _ = systemClose(file)
        guard rename(temporary, sidecarPath) == 0 else { throw Self.failure("rename", temporary, url: url) }
        if durable { try synchronizeFolder() }
    }

    // MARK: - Finishing

    /// Renames the partial to the destination (`rename(2)`, atomic: the destination is the old
    /// file or the whole new one), flushes the folder when `durable`, then removes the sidecar.
    ///
    /// The caller flushes the partial itself first, so the renamed file's bytes are on disk
    /// before its new name is.
    func commit(durable: Bool) throws {
        guard rename(partialPath, destination) == 0 else { throw Self.failure("rename", partialPath, url: url) }
        if durable { try synchronizeFolder() }
        _ = unlink(sidecarPath)
        _ = unlink(Self.sidecarTemporaryPath(of: destination))
    }

    /// The size of `DEST.partial`; 0 when there is none.
    static func size(of destination: String) -> Int64 {
        var status = stat()
        guard stat(partialPath(of: destination), &status) == 0 else { return 0 }
        return Int64(status.st_size)
    }

    /// Removes the partial, its sidecar and a leftover temporary sidecar, whichever exist.
    static func removeArtifacts(of destination: String) {
        _ = unlink(partialPath(of: destination))
        _ = unlink(sidecarPath(of: destination))
        _ = unlink(sidecarTemporaryPath(of: destination))
    }

    /// Flushes the folder holding the destination, so renames in it survive a power cut.
    private func synchronizeFolder() throws {
        let folder = URL(fileURLWithPath: destination).deletingLastPathComponent().path
        let file = systemOpen(folder, O_RDONLY | O_DIRECTORY | O_CLOEXEC, 0)
        guard file >= 0 else { throw Self.failure("open", folder, url: url) }
        defer { _ = systemClose(file) }
        // Some file systems refuse fsync on a folder (EINVAL); nothing more can be done there.
        guard fsync(file) == 0 || errno == EINVAL else { throw Self.failure("flush", folder, url: url) }
    }

    // MARK: - Errors

    /// A `.downloadFailed` error for a failed system call, with the system's reason.
    static func failure(_ action: String, _ path: String, errno code: Int32 = errno, url: String) -> TransportError {
        let reason = String(cString: strerror(code))
        var advice = "Check that the folder exists and is writable, then run the download again to resume it."
        switch code {
        case ENOSPC, EDQUOT:
            advice = "Free some space there (or choose another destination), then run the download again to resume it."
        case EACCES, EPERM, EROFS:
            advice = "Choose a destination you may write to, or change the folder's permissions."
        case ENOENT, ENOTDIR:
            advice = "Create the destination's folder first, or choose another destination."
        default:
            break
        }
        return TransportError(
            .downloadFailed, message: "Could not \(action) \(path): \(reason) (errno \(code)). \(advice)", url: url,
            mayHaveReachedServer: true)
    }
}

// The C functions under names that do not collide with this file's methods.

private func systemOpen(_ path: String, _ flags: Int32, _ mode: mode_t) -> Int32 {
    var descriptor: Int32
    repeat { descriptor = open(path, flags, mode) } while descriptor < 0 && errno == EINTR
    return descriptor
}

private func systemClose(_ descriptor: Int32) -> Int32 {
    close(descriptor)
}

private func systemWrite(_ descriptor: Int32, _ base: UnsafeRawPointer, _ count: Int) -> Int {
    write(descriptor, base, count)
}
