public import Transport

extension TransportError.Category {
    // MARK: Resumable uploads

    /// The server does not support resumable uploads (draft-ietf-httpbis-resumable-upload):
    /// it offered no upload resource (`104` with `Location`), or its upload resource does not
    /// answer with `Upload-Offset`. Bytes it received are lost to the client; send the file
    /// again as a plain upload, or to a server that supports resumption.
    public static let resumptionUnsupported = TransportError.Category("resumptionUnsupported")

    /// The upload resource is gone (`404`, `410`): the server expired or removed it. The
    /// sidecar is removed; running the upload again sends the file from the start.
    public static let uploadGone = TransportError.Category("uploadGone")

    /// The server claims an offset the file cannot have: beyond its length, or complete short
    /// of it. Nothing more is sent; cancel the upload and send the file again.
    public static let uploadOffsetInvalid = TransportError.Category("uploadOffsetInvalid")

    /// The file changed (its length or modification time) since its upload began: resuming
    /// would join two versions. Cancel the upload (``/Downloads/ResumableUpload/cancel()``)
    /// and start again.
    public static let uploadSourceChanged = TransportError.Category("uploadSourceChanged")

    /// The server refused the upload with a status it cannot go on from (a `4xx`), or the
    /// file could not be read. The message says which.
    public static let uploadFailed = TransportError.Category("uploadFailed")
}
