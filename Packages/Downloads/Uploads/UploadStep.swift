package import HTTPTypes

/// What a resumable upload does after a response: the client's side of the draft's state
/// decisions as pure functions of a status and fields, tested as a table.
package enum UploadStep: Equatable, Sendable {
    /// The server has the whole upload; the response stands as the upload's answer.
    case complete
    /// Send the bytes from this offset (an append).
    case append(from: Int64)
    /// Ask the server for its offset (`HEAD`) before sending more.
    case askOffset
    /// The upload resource is gone (`404`, `410`): nothing to resume.
    case gone
    /// The server does not speak the protocol: why, in a few words.
    case notResumable(String)
    /// The server claims an offset the file cannot have (beyond its length, or complete short of it).
    case offsetInvalid(Int64)
    /// A status the retry policy judges (`5xx`, `408`, `429`).
    case retry
    /// Any other status: the upload cannot go on.
    case rejected

    /// After the response to the creation request (`POST` with the whole file).
    ///
    /// - Parameters:
    ///   - status: The final status.
    ///   - fields: The final head's fields.
    ///   - knowsUploadURL: Whether a `104` or the final head gave the upload resource's URL.
    ///   - retryableStatuses: The statuses the retry policy retries.
    package static func afterCreation(
        status: Int, fields: HTTPFields, knowsUploadURL: Bool, retryableStatuses: Set<Int>
    ) -> UploadStep {
        switch status {
        case 200..<300:
            // Without the field the server took the request as a plain upload, whole.
            guard ResumableUploadFields.parseBoolean(fields[ResumableUploadFields.completeName]) == false else {
                return .complete
            }
            return knowsUploadURL ? .askOffset : .notResumable("it kept part of the upload without giving its URL")
        case _ where retryableStatuses.contains(status):
            return .retry
        default:
            return .rejected
        }
    }

    /// After the response to an offset retrieval (`HEAD` on the upload resource).
    ///
    /// - Parameters:
    ///   - status: The status.
    ///   - fields: The head's fields.
    ///   - length: The file's length.
    ///   - retryableStatuses: The statuses the retry policy retries.
    package static func afterOffset(
        status: Int, fields: HTTPFields, length: Int64, retryableStatuses: Set<Int>
    ) -> UploadStep {
        switch status {
        case 200..<300:
            guard let offset = ResumableUploadFields.parseOffset(fields[ResumableUploadFields.offsetName]) else {
                return .notResumable("its answer to HEAD has no Upload-Offset")
            }
            let complete = ResumableUploadFields.parseBoolean(fields[ResumableUploadFields.completeName]) == true
            if offset > length || (complete && offset < length) { return .offsetInvalid(offset) }
            // A complete upload stands; an offset at the end still needs an append that completes it.
            return complete ? .complete : .append(from: offset)
        case 404, 410:
            return .gone
        case _ where retryableStatuses.contains(status):
            return .retry
        default:
            return .rejected
        }
    }

    /// After the response to an append (`PATCH` of the bytes `[offset, end)`).
    ///
    /// - Parameters:
    ///   - status: The status.
    ///   - fields: The head's fields.
    ///   - end: The offset after the append's last byte.
    ///   - length: The file's length.
    ///   - retryableStatuses: The statuses the retry policy retries.
    package static func afterAppend(
        status: Int, fields: HTTPFields, end: Int64, length: Int64, retryableStatuses: Set<Int>
    ) -> UploadStep {
        switch status {
        case 200..<300:
            return end >= length ? .complete : .append(from: end)
        case 409:
            // The offsets disagree: the answer carries the server's, or it is asked again.
            guard let offset = ResumableUploadFields.parseOffset(fields[ResumableUploadFields.offsetName]) else {
                return .askOffset
            }
            return offset > length ? .offsetInvalid(offset) : .append(from: offset)
        case 404, 410:
            return .gone
        case _ where retryableStatuses.contains(status):
            return .retry
        default:
            return .rejected
        }
    }
}
