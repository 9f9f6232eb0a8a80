import Foundation
import HTTPTypes
import Retry
public import Transport

/// An upload of a file that survives dropped connections and a `kill -9` of the client: the
/// client side of resumable uploads, draft-ietf-httpbis-resumable-upload-05 (interop version
/// 6, sent as `Upload-Draft-Interop-Version: 6`).
///
/// The first request creates the upload: a `POST` of the whole file with `Upload-Complete: ?1`
/// and `Upload-Length`. A server that supports resumption answers at once with the interim
/// response `104 Upload Resumption Supported`, whose `Location` names the upload resource (or
/// gives it in the final response). The run records that URL in a sidecar beside the file,
/// `FILE.upload.json`, with the file's length and modification time. When the connection
/// drops, the run asks the resource how many bytes it has (`HEAD`, `Upload-Offset`) and sends
/// the rest with `PATCH` (`Content-Type: application/partial-upload`, `Upload-Offset`,
/// `Upload-Complete`), under ``Options/retry``'s policy; a `409` (the offsets disagree) takes
/// the server's offset. A later run, after a crash, resumes in the same way from the sidecar,
/// and never sends from zero what the server has.
///
/// ```swift
/// import Downloads
///
/// var options = ResumableUpload.Options()
/// options.progressHandler = { print($0.completed, "of", $0.total ?? 0) }
/// let upload = ResumableUpload(file: "video.mp4", to: "https://example.com/uploads", transport: transport,
///                              options: options)
/// let summary = try await upload.run()
/// print(summary.response.status, summary.resumedFrom)
/// ```
///
/// A run fails with a ``/Transport/TransportError`` of category
/// `.resumptionUnsupported`,
/// `.uploadGone`,
/// `.uploadOffsetInvalid`,
/// `.uploadSourceChanged` (the file changed since the
/// sidecar was written: the run refuses to resume),
/// `.uploadFailed`, `.cancelled` when its task is
/// cancelled (the sidecar stays: run again to resume), or the last failure once the retry
/// policy stops.
public struct ResumableUpload: Sendable {
    /// The file to upload, as given.
    public let file: String
    /// The URL the upload is created at.
    public let url: String
    /// How the upload runs.
    public let options: Options
    private let transport: any HTTPTransport

    /// Describes an upload; nothing is sent until ``run()``.
    ///
    /// - Parameters:
    ///   - file: The path of the file to upload; its sidecar is written beside it.
    ///   - url: The URL that creates the upload (a `POST`).
    ///   - transport: The transport the requests go through.
    ///   - options: Retries, progress and headers; the defaults by default.
    public init(file: String, to url: String, transport: any HTTPTransport, options: Options = Options()) {
        self.file = file
        self.url = url
        self.transport = transport
        self.options = options
    }

    /// The path of the sidecar the upload of `file` keeps: `FILE.upload.json`.
    public static func sidecarPath(of file: String) -> String { UploadSidecar.path(of: file) }

    /// Uploads the file, or the part the server does not have yet, and returns the server's
    /// final answer.
    ///
    /// - Returns: What happened.
    /// - Throws: ``/Transport/TransportError``; see ``ResumableUpload`` for the categories.
    public func run() async throws -> Summary {
        try await UploadRun(source: file, target: url, transport: transport, options: options).execute()
    }

    /// Cancels the upload the sidecar records: asks the server to drop its upload resource
    /// (`DELETE`) and removes the sidecar. Without a sidecar there is nothing to cancel.
    ///
    /// - Returns: Whether there was an upload to cancel.
    /// - Throws: ``/Transport/TransportError`` when the `DELETE` fails (the sidecar then stays).
    @discardableResult
    public func cancel() async throws -> Bool {
        guard let sidecar = UploadSidecar.read(besides: file) else { return false }
        var request = try TransportRequest(method: .delete, url: sidecar.uploadURL)
        request.head.headerFields.append(contentsOf: options.headerFields)
        request.head.headerFields[ResumableUploadFields.interopVersionName] = ResumableUploadFields.interopVersion
        let response = try await transport.data(for: request)
        let code = response.head.status.code
        guard (200..<300).contains(code) || code == 404 || code == 410 else {
            throw TransportError(
                .uploadFailed,
                message: "The server at \(sidecar.uploadURL) answered \(code) to the cancellation of the upload; the "
                    + "sidecar \(Self.sidecarPath(of: file)) is kept. Try again later.",
                url: sidecar.uploadURL)
        }
        UploadSidecar.remove(besides: file)
        return true
    }
}
