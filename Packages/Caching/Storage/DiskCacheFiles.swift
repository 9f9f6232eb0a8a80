import Foundation
import Transport

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// The entry files of a ``DiskCacheStorage``'s directory: their paths, reading one, writing one
/// to its temporary file and renaming it into place, removing one, and listing what a crash
/// left. Holds no state beyond the directory; the storage decides when each happens.
struct DiskCacheFiles: Sendable {
    static let entrySuffix = ".entry"
    static let temporarySuffix = ".tmp"

    /// The directory.
    let directory: String
    /// Whether each file, and the directory after a rename, is flushed with `fsync`.
    let synchronizesToDisk: Bool

    /// The path of `name`'s entry file.
    func path(of name: EntryName) -> String { directory + "/" + name.fileName }

    /// The path of `name`'s temporary file: one writer, so one temporary file per name at a time.
    func temporaryPath(of name: EntryName) -> String { path(of: name) + Self.temporarySuffix }

    /// `name`'s file, or `nil` when there is none.
    func read(_ name: EntryName) throws -> Data? {
        try FileCalls.readFile(path(of: name))
    }

    /// Encodes `entry` and writes it to `name`'s temporary file (flushed with
    /// ``synchronizesToDisk``); on failure no temporary file is left.
    ///
    /// - Parameter maximumBytes: The cap of the whole storage; a larger file is refused.
    /// - Returns: The temporary file's path and size.
    /// - Throws: ``CacheError``: `.entryTooLarge` or
    ///   `.writeFailed`.
    func writeTemporary(_ entry: CacheEntry, as name: EntryName, maximumBytes: Int) throws(CacheError) -> (
        path: String, size: Int
    ) {
        let bytes: [UInt8]
        do {
            bytes = try EntryFile.encode(entry)
        } catch let error as CacheError {
            throw error
        } catch {
            throw CacheError(.writeFailed, message: "\(error)")
        }
        guard bytes.count <= maximumBytes else {
            throw CacheError(
                .entryTooLarge,
                message: "The response for \(LogRedaction.redactedURL(entry.key)) takes \(bytes.count) bytes "
                    + "compressed, more than the disk cache's cap of \(maximumBytes) bytes; it is not stored. "
                    + "Raise maximumBytes to keep it.")
        }
        let temporaryPath = temporaryPath(of: name)
        do {
            let descriptor = try FileCalls.openFile(temporaryPath, O_WRONLY | O_CREAT | O_TRUNC)
            defer { FileCalls.closeFile(descriptor) }
            try FileCalls.writeAll(bytes, to: descriptor, path: temporaryPath)
            if synchronizesToDisk { try FileCalls.flush(descriptor, path: temporaryPath) }
        } catch {
            FileCalls.removeFile(temporaryPath)
            throw CacheError(
                .writeFailed,
                message: "The response for \(LogRedaction.redactedURL(entry.key)) could not be stored: \(error). "
                    + "It is answered from the network until the disk accepts it.")
        }
        return (temporaryPath, bytes.count)
    }

    /// Renames a temporary file over `name`'s entry file: the old file or the new one, never a
    /// mixture. On failure the temporary file is removed.
    func install(_ temporaryPath: String, as name: EntryName) throws {
        do {
            try FileCalls.renameFile(temporaryPath, path(of: name))
        } catch {
            FileCalls.removeFile(temporaryPath)
            throw error
        }
    }

    /// Deletes `name`'s entry file; one already gone is no error.
    func remove(_ name: EntryName) {
        FileCalls.removeFile(path(of: name))
    }

    /// Deletes the file at `path`.
    func removeFile(atPath path: String) {
        FileCalls.removeFile(path)
    }

    /// Flushes the directory's entries (the renames in it) with ``synchronizesToDisk``.
    func flushDirectoryIfSynchronizing() {
        if synchronizesToDisk { try? FileCalls.flushDirectory(directory) }
    }

    /// The entry files of the directory, after deleting the temporary files a crash left.
    ///
    /// - Throws: ``FileCalls/Failure`` when the directory cannot be listed.
    func recoverFiles() throws -> [DiskCacheIndex.Found] {
        var found: [DiskCacheIndex.Found] = []
        for file in try FileCalls.listFiles(directory) {
            if file.name.hasSuffix(Self.temporarySuffix) {
                FileCalls.removeFile(directory + "/" + file.name)
            } else if file.name.hasSuffix(Self.entrySuffix),
                let name = EntryName(file.name.dropLast(Self.entrySuffix.count))
            {
                found.append(DiskCacheIndex.Found(name: name, size: file.size, modified: file.modified))
            }
        }
        return found
    }
}
