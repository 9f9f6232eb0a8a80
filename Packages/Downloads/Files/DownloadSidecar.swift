package import Foundation

/// The small JSON record beside a partial download, `DEST.partial.json`: which URL the bytes
/// in `DEST.partial` came from, which version of the file they belong to, and how long the
/// whole file is.
///
/// ```json
/// {"etag":"\"5f1c-40000000\"","totalLength":1073741824,"url":"https://example.com/big.iso","version":1}
/// ```
///
/// `etag` (a strong entity tag, quotes included) or `lastModified` (an HTTP-date) is the
/// validator; both are absent when the server offered no strong one, and such a partial is
/// never resumed. `totalLength` is absent when the server did not say. The number of bytes
/// already downloaded is deliberately not recorded: it is the partial file's size, the only
/// figure a crash cannot make stale.
///
/// `package` rather than internal so that the fuzz target in `Tests/Fuzz` can read arbitrary
/// bytes with it and check that what it writes reads back the same; nothing outside this
/// package sees it.
package struct DownloadSidecar: Codable, Equatable, Sendable, SidecarRecord {
    /// The format version this code writes and reads.
    package static let currentVersion = 1

    /// The format version.
    package var version: Int
    /// The URL the download asked for (before redirects).
    package var url: String
    /// The strong entity tag of the version on disk.
    package var etag: String?
    /// The `Last-Modified` date of the version on disk, when it had no entity tag.
    package var lastModified: String?
    /// The whole length of that version, when known.
    package var totalLength: Int64?

    /// Creates a record for the current format.
    package init(url: String, validator: DownloadValidator?, totalLength: Int64?) {
        self.version = Self.currentVersion
        self.url = url
        self.totalLength = totalLength
        switch validator {
        case .entityTag(let tag): etag = tag
        case .lastModified(let date): lastModified = date
        case nil: break
        }
    }

    /// The recorded validator; a recorded entity tag that is not strong counts as none.
    package var validator: DownloadValidator? {
        if let etag { return DownloadValidator.isStrongEntityTag(etag) ? .entityTag(etag) : nil }
        return lastModified.map(DownloadValidator.lastModified)
    }

    /// Whether the record identifies its bytes well enough to continue them from another URL:
    /// a strong entity tag and the whole length. A `Last-Modified` date and a size do not tell
    /// two files apart.
    package var identifiesBytesAcrossURLs: Bool {
        guard case .entityTag = validator else { return false }
        return totalLength != nil
    }

    /// Reads a record; `nil` for anything that is not a record of the current format.
    package static func decode(_ data: Data) -> DownloadSidecar? {
        guard let record = try? JSONDecoder().decode(DownloadSidecar.self, from: data),
            record.version == currentVersion, record.totalLength.map({ $0 >= 0 }) ?? true
        else { return nil }
        return record
    }
}
