/// Where one entry's record lies in a ``DiskCacheStorage``'s directory: the segment file that
/// holds it, the offset of its first byte there, and its length.
///
/// Segments are numbered in the order they are started and a segment is only ever appended
/// to, so a later location was written later; the journal and recovery rely on that.
///
/// `package` so that the fuzz target in `Tests/Fuzz` can replay journals that name locations,
/// and the storage's tests can damage a record where it lies.
package struct RecordLocation: Hashable, Sendable, Comparable, CustomStringConvertible {
    /// The segment's number: its file is `<16 hex digits>.segment`.
    package var segment: UInt64
    /// The offset of the record's first byte in the segment.
    package var offset: Int
    /// The record's length in bytes.
    package var length: Int

    /// The record of `length` bytes at `offset` in segment `segment`.
    package init(segment: UInt64, offset: Int, length: Int) {
        self.segment = segment
        self.offset = offset
        self.length = length
    }

    /// The offset just past the record.
    package var end: Int { offset + length }

    /// Whether `lhs` was written before `rhs`.
    package static func < (lhs: RecordLocation, rhs: RecordLocation) -> Bool {
        (lhs.segment, lhs.offset) < (rhs.segment, rhs.offset)
    }

    /// As the journal writes it: the segment's 16 hexadecimal digits, then the offset and the
    /// length in decimal.
    package var description: String {
        "\(EntryName(value: segment)) \(offset) \(length)"
    }

    /// The location the journal's three words spell, or `nil` unless they are a segment's 16
    /// hexadecimal digits, an offset and a length a record can have.
    init?(segment: some StringProtocol, offset: some StringProtocol, length: some StringProtocol) {
        guard let number = EntryName(segment), let offset = Int(offset), let length = Int(length),
            offset >= 0, offset <= Self.largestOffset,
            length >= EntryFile.headerSize + EntryFile.trailerSize,
            length <= EntryFile.headerSize + EntryFile.maximumPayloadSize + EntryFile.trailerSize
        else { return nil }
        self.init(segment: number.value, offset: offset, length: length)
    }

    /// The largest offset read from a journal: 1 TiB, far beyond any segment, and far from
    /// overflowing when a length is added.
    static let largestOffset = 1 << 40
}
