import Foundation
import Transport

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// The segment files of a ``DiskCacheStorage``'s directory: their paths, reading one record,
/// starting a segment and appending records to it, removing one, and listing and scanning what
/// a crash left. Holds no state beyond the directory; the storage decides when each happens.
struct DiskCacheFiles: Sendable {
    static let segmentSuffix = ".segment"
    static let temporarySuffix = ".tmp"
    /// The files of the format before segments, one entry each: deleted when a storage opens.
    static let formerEntrySuffix = ".entry"

    /// A segment being appended to: its number, its open descriptor, and how far its records go.
    struct Appending: Sendable {
        var number: UInt64
        var descriptor: Int32
        var end: Int
    }

    /// The directory.
    let directory: String
    /// Whether each append, and the directory after a segment is started, is flushed with `fsync`.
    let synchronizesToDisk: Bool

    /// The path of segment `number`.
    func path(ofSegment number: UInt64) -> String {
        directory + "/" + EntryName(value: number).description + Self.segmentSuffix
    }

    /// The record at `location`, or `nil` when its segment does not exist; fewer bytes than its
    /// length when the segment is shorter, which the format's checks find damaged.
    func read(_ location: RecordLocation) throws -> Data? {
        try FileCalls.readRange(path(ofSegment: location.segment), offset: location.offset, length: location.length)
    }

    /// The record for `entry`, as it is written first: not deflated, which compaction does later.
    ///
    /// - Parameter maximumBytes: The cap of the whole storage; a larger record is refused.
    /// - Throws: ``CacheError``: `.entryTooLarge` or `.writeFailed`.
    func record(for entry: CacheEntry, maximumBytes: Int, compressionLevel: Int32 = 0) throws(CacheError) -> [UInt8] {
        let bytes: [UInt8]
        do {
            bytes = try EntryFile.encode(entry, compressionLevel: compressionLevel)
        } catch let error as CacheError {
            throw error
        } catch {
            throw CacheError(.writeFailed, message: "\(error)")
        }
        guard bytes.count <= maximumBytes else {
            throw CacheError(
                .entryTooLarge,
                message: "The response for \(LogRedaction.redactedURL(entry.key)) takes \(bytes.count) bytes "
                    + "on disk, more than the disk cache's cap of \(maximumBytes) bytes; it is not stored. "
                    + "Raise maximumBytes to keep it.")
        }
        return bytes
    }

    /// Creates segment `number`, empty, for appending.
    func startSegment(_ number: UInt64) throws -> Appending {
        let descriptor = try FileCalls.openFile(path(ofSegment: number), O_WRONLY | O_CREAT | O_TRUNC)
        if synchronizesToDisk { try? FileCalls.flushDirectory(directory) }
        return Appending(number: number, descriptor: descriptor, end: 0)
    }

    /// Writes `records` one after another from `segment`'s end, in as few calls as their
    /// sizes allow, and moves the end past those written.
    ///
    /// - Returns: Each record's location, or why it could not be written. A failed write may
    ///   leave bytes past the end, which are never named; the storage then starts a new segment.
    func append(_ records: [[UInt8]], to segment: inout Appending) -> [Result<RecordLocation, FileCalls.Failure>] {
        var results: [Result<RecordLocation, FileCalls.Failure>] = []
        results.reserveCapacity(records.count)
        let path = path(ofSegment: segment.number)
        var start = 0
        while start < records.count {
            // Small records go out together, up to a quarter of a mebibyte a call.
            var stop = start + 1
            var length = records[start].count
            while stop < records.count, length + records[stop].count <= 256 << 10 {
                length += records[stop].count
                stop += 1
            }
            do {
                if stop == start + 1 {
                    try FileCalls.writeAll(records[start], to: segment.descriptor, at: segment.end, path: path)
                } else {
                    var joined: [UInt8] = []
                    joined.reserveCapacity(length)
                    for record in records[start..<stop] { joined.append(contentsOf: record) }
                    try FileCalls.writeAll(joined, to: segment.descriptor, at: segment.end, path: path)
                }
                for record in records[start..<stop] {
                    results.append(
                        .success(RecordLocation(segment: segment.number, offset: segment.end, length: record.count)))
                    segment.end += record.count
                }
            } catch {
                let failure =
                    error as? FileCalls.Failure ?? FileCalls.Failure(action: "write to", path: path, code: EIO)
                results += Array(repeating: .failure(failure), count: stop - start)
            }
            start = stop
        }
        return results
    }

    /// Flushes `segment`'s appends to the disk with ``synchronizesToDisk``.
    func flushIfSynchronizing(_ segment: Appending) throws {
        if synchronizesToDisk { try FileCalls.flush(segment.descriptor, path: path(ofSegment: segment.number)) }
    }

    /// Deletes segment `number`; one already gone is no error.
    func removeSegment(_ number: UInt64) {
        FileCalls.removeFile(path(ofSegment: number))
    }

    /// The segments of the directory with their sizes, after deleting the temporary files a
    /// crash left and the entry files of the format before segments.
    ///
    /// - Throws: ``FileCalls/Failure`` when the directory cannot be listed.
    func recoverSegments() throws -> [DiskCacheIndex.FoundSegment] {
        var found: [DiskCacheIndex.FoundSegment] = []
        for file in try FileCalls.listFiles(directory) {
            if file.name.hasSuffix(Self.temporarySuffix) || file.name.hasSuffix(Self.formerEntrySuffix) {
                FileCalls.removeFile(directory + "/" + file.name)
            } else if file.name.hasSuffix(Self.segmentSuffix),
                let number = EntryName(file.name.dropLast(Self.segmentSuffix.count))
            {
                found.append(DiskCacheIndex.FoundSegment(number: number.value, size: file.size))
            }
        }
        return found.sorted { $0.number < $1.number }
    }

    /// The whole records of segment `number`, of `size` bytes, one after another from its
    /// start until one is not whole: what a segment holds when the journal is lost. The segment
    /// is read once, whole.
    func scan(_ number: UInt64, to size: Int) -> [DiskCacheIndex.Entry] {
        guard let segment = (try? FileCalls.readRange(path(ofSegment: number), offset: 0, length: size)) ?? nil
        else { return [] }
        var found: [DiskCacheIndex.Entry] = []
        var offset = segment.startIndex
        while segment.endIndex - offset >= EntryFile.headerSize + EntryFile.trailerSize,
            let length = EntryFile.recordLength(header: segment[offset...]), offset + length <= segment.endIndex,
            case .success(let entry) = EntryFile.decode(Data(segment[offset..<(offset + length)]))
        {
            found.append(
                .init(
                    name: EntryName(key: entry.key),
                    location: .init(segment: number, offset: offset - segment.startIndex, length: length)))
            offset += length
        }
        return found
    }
}
