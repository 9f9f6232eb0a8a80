public import HTTPTypes

/// Where a download stands before its next request: the bytes already on disk and the version
/// of the file they belong to. It says what to ask the server for, and what to make of the
/// answer.
///
/// This is the decision logic of ``FileDownload`` without any I/O, so it can be read and
/// tested on its own. The request:
///
/// | On disk | Request |
/// |---|---|
/// | nothing, or bytes without a strong validator | the whole file: no `Range` |
/// | `N > 0` bytes of a version with a strong validator | `Range: bytes=N-` and `If-Range: <validator>` |
///
/// The answer, for a ranged request (``decision(for:)``):
///
/// | Response | Decision |
/// |---|---|
/// | `206`, `Content-Range: bytes N-…/T`, `T` the expected length (when both are known), no contradicting validator | ``ResumeDecision/append(total:)`` |
/// | `206` starting elsewhere, of another length, multipart, or naming another version | ``ResumeDecision/discardAndRefetch(reason:)`` |
/// | `200` | ``ResumeDecision/replace(validator:total:)``: the version changed (or the server ignores ranges) |
/// | `416` when the `N` bytes are the whole expected length | ``ResumeDecision/alreadyComplete`` |
/// | `416` otherwise | ``ResumeDecision/discardAndRefetch(reason:)`` |
/// | anything else | ``ResumeDecision/unexpectedStatus(_:)`` |
///
/// For a request without `Range`, `200` is ``ResumeDecision/replace(validator:total:)`` and
/// every other status is ``ResumeDecision/unexpectedStatus(_:)``.
public struct ResumePoint: Sendable, Hashable {
    /// The bytes already on disk: the length of the partial file.
    public var offset: Int64
    /// The version those bytes belong to, when it has a strong validator.
    public var validator: DownloadValidator?
    /// The length of the whole file, when a response has told it.
    public var expectedLength: Int64?

    /// Creates a resume point.
    ///
    /// - Parameters:
    ///   - offset: The bytes on disk, `>= 0`.
    ///   - validator: The validator of their version, `nil` when there is none (or no bytes).
    ///   - expectedLength: The whole length, when known.
    public init(offset: Int64, validator: DownloadValidator?, expectedLength: Int64?) {
        self.offset = max(0, offset)
        self.validator = validator
        self.expectedLength = expectedLength
    }

    /// Whether the next request asks only for the rest of the file: there are bytes on disk
    /// and a strong validator to protect them.
    public var isResuming: Bool { offset > 0 && validator != nil }

    /// The `Range` value of the next request, `bytes=N-`; `nil` for a request of the whole file.
    public var rangeHeaderValue: String? { isResuming ? "bytes=\(offset)-" : nil }

    /// The `If-Range` value of the next request; `nil` for a request of the whole file.
    public var ifRangeHeaderValue: String? { isResuming ? validator?.ifRangeValue : nil }

    /// What to do with the response to the request this point describes.
    ///
    /// - Parameter head: The response head (after redirects).
    /// - Returns: The decision; see the table on ``ResumePoint``.
    public func decision(for head: HTTPResponse) -> ResumeDecision {
        let status = head.status.code
        guard isResuming, let validator else {
            if status == 200 {
                return .replace(validator: DownloadValidator(response: head), total: head.contentLength)
            }
            return .unexpectedStatus(status)
        }
        switch status {
        case 200:
            return .replace(validator: DownloadValidator(response: head), total: head.contentLength)
        case 206:
            guard validator.isConsistent(with: head) else {
                return .discardAndRefetch(
                    reason: "the server answered If-Range \(validator.ifRangeValue) with part of another version")
            }
            guard let value = head.headerFields[.contentRange], let contentRange = ContentRange(value),
                let range = contentRange.range
            else {
                return .discardAndRefetch(reason: "the server answered a single range without a usable Content-Range")
            }
            guard range.lowerBound == offset else {
                return .discardAndRefetch(
                    reason: "the server sent bytes from \(range.lowerBound) when asked for bytes from \(offset)")
            }
            if let expectedLength, let complete = contentRange.completeLength, complete != expectedLength {
                return .discardAndRefetch(
                    reason:
                        "the file is now \(complete) bytes long instead of \(expectedLength) under the same validator")
            }
            return .append(total: contentRange.completeLength ?? expectedLength)
        case 416:
            guard validator.isConsistent(with: head), let expectedLength, offset == expectedLength else {
                return .discardAndRefetch(reason: "the server refused the range of the \(offset) bytes already on disk")
            }
            if let value = head.headerFields[.contentRange], let contentRange = ContentRange(value),
                let complete = contentRange.completeLength, complete != expectedLength
            {
                return .discardAndRefetch(
                    reason:
                        "the file is now \(complete) bytes long instead of \(expectedLength) under the same validator")
            }
            return .alreadyComplete
        default:
            return .unexpectedStatus(status)
        }
    }
}

/// What a download does with a response; see ``ResumePoint/decision(for:)``.
public enum ResumeDecision: Sendable, Hashable {
    /// The response is the rest of the version on disk: append its body.
    ///
    /// `total` is the whole length (from `Content-Range`, else the one expected), when known.
    case append(total: Int64?)
    /// The response is a whole file: discard the bytes on disk and write its body from byte
    /// zero. `validator` and `total` describe the new version.
    case replace(validator: DownloadValidator?, total: Int64?)
    /// The bytes on disk are already the whole file (a `416` for a range that starts at its end).
    case alreadyComplete
    /// The response cannot continue the bytes on disk: discard them and ask again for the
    /// whole file. `reason` says why, for logs and errors.
    case discardAndRefetch(reason: String)
    /// A status a download cannot use (`404`, `500`, …): the attempt failed.
    case unexpectedStatus(Int)
}

extension HTTPResponse {
    /// The `Content-Length`, when present and a valid number.
    var contentLength: Int64? {
        guard let value = headerFields[.contentLength]?.trimmingASCIISpaces, !value.isEmpty, value.count <= 18,
            value.utf8.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 })
        else { return nil }
        return Int64(value)
    }
}
