public import Transport

extension TransportError.Category {
    // MARK: Downloads

    /// A download finished, but its bytes do not have the SHA-256 digest the caller expected.
    ///
    /// The partial file is deleted: the next attempt starts from zero.
    public static let checksumMismatch = TransportError.Category("checksumMismatch")

    /// A download could not go on: the server answered with a status a download cannot use
    /// (`404`, `403`, a `5xx` after the last retry), kept sending ranges that do not fit the
    /// bytes on disk, or the partial file could not be written. The message says which, and
    /// whether running the download again resumes it.
    public static let downloadFailed = TransportError.Category("downloadFailed")

    /// A download was asked of ``DownloadSystem`` (or of a client's download form's task)
    /// before a ``DownloadManager`` was installed with ``DownloadSystem/bootstrap(_:)``.
    public static let noDownloadManager = TransportError.Category("noDownloadManager")
}
