import Foundation
import Glibc

/// Where a record lies, as `DiskCacheStorage.recordLocation(forKey:)` says.
typealias RecordPlace = (path: String, offset: Int, length: Int)

/// The bytes of the record at `place`.
func recordBytes(_ place: RecordPlace) throws -> Data {
    let handle = try FileHandle(forReadingFrom: URL(fileURLWithPath: place.path))
    defer { try? handle.close() }
    try handle.seek(toOffset: UInt64(place.offset))
    return try handle.read(upToCount: place.length) ?? Data()
}

/// Rewrites the record at `place` in its segment, in place, as `change` makes it.
func rewriteRecord(_ place: RecordPlace, _ change: (inout Data) -> Void) throws {
    var bytes = try recordBytes(place)
    change(&bytes)
    let handle = try FileHandle(forUpdating: URL(fileURLWithPath: place.path))
    defer { try? handle.close() }
    try handle.seek(toOffset: UInt64(place.offset))
    try handle.write(contentsOf: bytes)
}

/// Cuts the file at `path` to `length` bytes.
func truncateFile(_ path: String, to length: Int) {
    _ = truncate(path, off_t(length))
}

/// Appends `bytes` to the file at `path`.
func appendToFile(_ path: String, _ bytes: Data) throws {
    let handle = try FileHandle(forWritingTo: URL(fileURLWithPath: path))
    defer { try? handle.close() }
    try handle.seekToEnd()
    try handle.write(contentsOf: bytes)
}
