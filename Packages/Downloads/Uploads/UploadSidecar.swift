package import Foundation

/// The small JSON record beside the file being uploaded, `FILE.upload.json`: where the
/// upload goes, the upload resource the server created for it, and which version of the file
/// it is (its length and modification time), so that a later run resumes only the same bytes.
///
/// ```json
/// {"length":1073741824,"modified":1796040000.5,"offset":524288,"uploadURL":"https://example.com/uploads/7","url":"https://example.com/uploads","version":1}
/// ```
///
/// `offset` is the last offset the server confirmed; a later run asks the server again
/// (`HEAD`) and trusts only its answer, so a crash that leaves it stale costs nothing.
package struct UploadSidecar: Codable, Equatable, Sendable, SidecarRecord {
    /// The format version this code writes and reads.
    package static let currentVersion = 1

    /// The format version.
    package var version: Int
    /// The URL the upload was created at.
    package var url: String
    /// The upload resource's URL, from the `104` or the final response.
    package var uploadURL: String
    /// The file's length when the upload was created.
    package var length: Int64
    /// The file's modification time then, in seconds since 1970.
    package var modified: Double
    /// The last offset the server confirmed.
    package var offset: Int64

    /// Creates a record for the current format.
    package init(url: String, uploadURL: String, length: Int64, modified: Double, offset: Int64) {
        self.version = Self.currentVersion
        self.url = url
        self.uploadURL = uploadURL
        self.length = length
        self.modified = modified
        self.offset = offset
    }

    /// The sidecar's path for a file.
    package static func path(of file: String) -> String { file + ".upload.json" }

    /// Reads a record; `nil` for anything that is not a record of the current format.
    package static func decode(_ data: Data) -> UploadSidecar? {
        guard let record = try? JSONDecoder().decode(UploadSidecar.self, from: data),
            record.version == currentVersion, record.length >= 0, record.offset >= 0
        else { return nil }
        return record
    }

    /// Reads the record beside `file`; `nil` when there is none or it cannot be read.
    package static func read(besides file: String) -> UploadSidecar? {
        guard let data = FileManager.default.contents(atPath: path(of: file)) else { return nil }
        return decode(data)
    }

    /// Writes the record beside `file` atomically (a temporary file renamed over it), so that
    /// a crash leaves the old record or the new one, never half of one.
    package func write(besides file: String) throws {
        try encoded().write(to: URL(fileURLWithPath: Self.path(of: file)), options: .atomic)
    }

    /// Removes the record beside `file`, if any.
    package static func remove(besides file: String) {
        try? FileManager.default.removeItem(atPath: path(of: file))
    }
}
