public import HTTPTypes
import Transport

/// What identifies one version of a remote file well enough to resume a download of it: a
/// strong entity tag, or a `Last-Modified` date that is strong.
///
/// A resumed request carries the validator in `If-Range`, so the server sends the rest of the
/// file only if it is still the same version, and the whole new version otherwise. Only a
/// strong validator may be used that way (RFC 9110 §13.1.5): a weak entity tag (`W/"…"`)
/// promises equivalent content, not identical bytes. A response that offers no strong
/// validator can still be downloaded, but a download interrupted part-way restarts from zero.
///
/// ```swift
/// let validator = DownloadValidator(response: head)   // .entityTag("\"5f1c-40000000\"")
/// request.head.headerFields[.ifRange] = validator?.ifRangeValue
/// ```
public enum DownloadValidator: Sendable, Hashable {
    /// A strong `ETag`, quotes included: `"5f1c-40000000"`.
    case entityTag(String)
    /// A `Last-Modified` date, exactly as the server sent it.
    case lastModified(String)

    /// The validator a response offers for resuming, or `nil` when it offers none that is strong.
    ///
    /// - a strong `ETag` is used as it is;
    /// - a weak `ETag` means no validator, even when `Last-Modified` is present: the server has
    ///   said its versions are not byte-identical, so a resume restarts from zero;
    /// - without an `ETag`, `Last-Modified` is used when it is strong: the response's `Date` is
    ///   at least one second later (RFC 9110 §8.8.2.2), so two versions cannot share the date.
    ///   A date that is missing or cannot be read does not count as strong.
    ///
    /// - Parameter head: A `200` or `206` response head.
    public init?(response head: HTTPResponse) {
        if let tag = head.headerFields[.eTag]?.trimmingASCIISpaces {
            guard Self.isStrongEntityTag(tag) else { return nil }
            self = .entityTag(tag)
            return
        }
        guard let modified = head.headerFields[.lastModified]?.trimmingASCIISpaces,
            let modifiedSeconds = HTTPDate.secondsSince1970(modified, obsoleteForms: false),
            let date = head.headerFields[.date],
            let dateSeconds = HTTPDate.secondsSince1970(date, obsoleteForms: false),
            dateSeconds >= modifiedSeconds + 1
        else { return nil }
        self = .lastModified(modified)
    }

    /// The value to send in `If-Range`: the entity tag with its quotes, or the date.
    public var ifRangeValue: String {
        switch self {
        case .entityTag(let tag): tag
        case .lastModified(let date): date
        }
    }

    /// Whether `head` may belong to the version this validator names: `false` only when the
    /// response carries a validator of the same kind with a different value.
    ///
    /// A `206` that contradicts the `If-Range` the client sent comes from a server that does
    /// not honour `If-Range`; its bytes belong to another version and must not be appended.
    ///
    /// - Parameter head: A response head.
    /// - Returns: `false` when the response names another version.
    public func isConsistent(with head: HTTPResponse) -> Bool {
        switch self {
        case .entityTag(let tag):
            guard let other = head.headerFields[.eTag]?.trimmingASCIISpaces else { return true }
            return other == tag
        case .lastModified(let date):
            guard let other = head.headerFields[.lastModified]?.trimmingASCIISpaces else { return true }
            return other == date
        }
    }

    /// Whether `tag` is a well-formed strong entity tag: `"…"` without the `W/` prefix.
    static func isStrongEntityTag(_ tag: String) -> Bool {
        let bytes = Array(tag.utf8)
        guard bytes.count >= 2, bytes.first == UInt8(ascii: "\""), bytes.last == UInt8(ascii: "\"") else {
            return false
        }
        // etagc = %x21 / %x23-7E / obs-text: no quote, space or control inside.
        return bytes.dropFirst().dropLast().allSatisfy { $0 == 0x21 || ($0 >= 0x23 && $0 != 0x7F) }
    }
}

extension String {
    /// The text without leading and trailing spaces and tabs.
    var trimmingASCIISpaces: String {
        let bytes = utf8
        guard let first = bytes.firstIndex(where: { $0 != 0x20 && $0 != 0x09 }),
            let last = bytes.lastIndex(where: { $0 != 0x20 && $0 != 0x09 })
        else { return "" }
        return String(self[first...last])
    }
}
