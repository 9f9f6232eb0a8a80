public import Downloads
public import Foundation
import Transport

/// A form that downloads its response to a file.
///
/// The body streams to `destination.partial` and is renamed to ``destination`` only when it
/// is complete (and verified, when ``expectedSHA256`` is set); see `FileDownload`. A plain
/// download starts from zero: a partial an earlier download left at the destination is
/// discarded first. To continue from it, use a ``DownloadResumeFormable``.
///
/// ```swift
/// struct ReportDownload: DownloadFormable {
///     let year: Int
///     var path: String { "/reports/\(year).pdf" }
///     var destination: URL { URL(fileURLWithPath: "reports/\(year).pdf") }
/// }
/// let summary = try await client.download(ReportDownload(year: 2026)).value
/// ```
///
/// Downloads are `GET` requests without a body; parameters go in the query.
public protocol DownloadFormable: Formable {
    /// The file to create, or replace, once the download is complete.
    var destination: URL { get }
    /// The SHA-256 the file must have, as 64 hexadecimal characters; `nil` (the default) for
    /// no check. It wins over ``downloadOptions``' own.
    var expectedSHA256: String? { get }
    /// Retries, syncing to disk and progress; `FileDownload.Options()` by default. Its `retry`,
    /// left unset, is the client's ``ClientConfiguration/retry`` (which the form may change in
    /// ``Formable/configure(_:)``), so one policy governs every request of a client.
    ///
    /// Two of its fields are decided by the form instead: `resumesEarlierPartial` by the form's
    /// kind (`false` for a plain download, `true` for a ``DownloadResumeFormable``), and
    /// `expectedSHA256` by ``expectedSHA256`` when that is set. The progress and retry handlers
    /// are called as well as the handle's events.
    var downloadOptions: FileDownload.Options { get }
}

/// A form that downloads its response to a file and continues from the partial an earlier
/// download to the same destination left behind.
///
/// The earlier download may have been cancelled, may have failed, or its process may have been
/// killed: its bytes are kept in `destination.partial` with a sidecar naming the URL and the
/// version. A resuming download asks for the rest with `Range` and `If-Range`; when the server
/// has a new version, or ignores ranges, it starts from zero instead (never appending bytes of
/// another version), and with no partial at all it simply downloads the whole file.
/// `FileDownload.Summary.resumedFrom` tells how many bytes were already there.
public protocol DownloadResumeFormable: DownloadFormable {}

extension DownloadFormable {
    /// No checksum.
    public var expectedSHA256: String? { nil }
    /// `FileDownload.Options()`.
    public var downloadOptions: FileDownload.Options { FileDownload.Options() }
}
