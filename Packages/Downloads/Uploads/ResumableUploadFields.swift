package import HTTPTypes

/// The header fields of resumable uploads as draft-ietf-httpbis-resumable-upload-05 defines
/// them (interop version 6), with their values written and read as structured fields
/// (RFC 9651): pure functions, tested as tables.
package enum ResumableUploadFields {
    /// The interop version this code speaks: draft-05's, `6`.
    package static let interopVersion = "6"
    // swift-format-ignore: NeverForceUnwrap
    /// `Upload-Draft-Interop-Version`: which version of the draft the client speaks.
    package static let interopVersionName = HTTPField.Name("Upload-Draft-Interop-Version")!
    // swift-format-ignore: NeverForceUnwrap
    /// `Upload-Complete`: a structured boolean, whether a request (or the upload) ends the data.
    package static let completeName = HTTPField.Name("Upload-Complete")!
    // swift-format-ignore: NeverForceUnwrap
    /// `Upload-Offset`: a structured integer, the bytes the server has.
    package static let offsetName = HTTPField.Name("Upload-Offset")!
    // swift-format-ignore: NeverForceUnwrap
    /// `Upload-Length`: a structured integer, the length of the whole upload.
    package static let lengthName = HTTPField.Name("Upload-Length")!
    // swift-format-ignore: NeverForceUnwrap
    /// `Upload-Limit`: a structured dictionary of the server's limits.
    package static let limitName = HTTPField.Name("Upload-Limit")!
    /// The media type of an append's content.
    package static let partialUploadType = "application/partial-upload"
    /// The status of the interim response that offers resumption.
    package static let resumptionSupportedStatus = 104

    /// The limits a server announces in `Upload-Limit`; each `nil` when not announced.
    package struct Limit: Equatable, Sendable {
        /// `max-size`: the longest upload the server takes.
        package var maximumSize: Int64?
        /// `max-append-size`: the most bytes one append (or the creation) may carry.
        package var maximumAppendSize: Int64?

        /// No limits.
        package init(maximumSize: Int64? = nil, maximumAppendSize: Int64? = nil) {
            self.maximumSize = maximumSize
            self.maximumAppendSize = maximumAppendSize
        }
    }

    /// `?1` or `?0`.
    package static func boolean(_ value: Bool) -> String { value ? "?1" : "?0" }

    /// A structured boolean (`?1`, `?0`), parameters ignored; `nil` for anything else.
    package static func parseBoolean(_ value: String?) -> Bool? {
        guard let value else { return nil }
        switch bareItem(value) {
        case "?1": return true
        case "?0": return false
        default: return nil
        }
    }

    /// A structured integer that is not negative (at most 15 digits), parameters ignored;
    /// `nil` for anything else, a sign included.
    package static func parseOffset(_ value: String?) -> Int64? {
        guard let value else { return nil }
        let item = bareItem(value)
        guard !item.isEmpty, item.utf8.count <= 15, item.utf8.allSatisfy({ (0x30...0x39).contains($0) }) else {
            return nil
        }
        return Int64(item)
    }

    /// The limits of an `Upload-Limit` dictionary (`max-size=…, max-append-size=…`); members
    /// that are not non-negative integers, and unknown members, are ignored.
    package static func parseLimit(_ value: String?) -> Limit {
        var limit = Limit()
        guard let value else { return limit }
        for member in value.split(separator: ",") {
            let parts = member.split(separator: "=", maxSplits: 1)
            guard parts.count == 2 else { continue }
            let key = parts[0].trimmingSpaces()
            let number = parseOffset(String(parts[1]))
            switch key {
            case "max-size": limit.maximumSize = number
            case "max-append-size": limit.maximumAppendSize = number.flatMap { $0 > 0 ? $0 : nil }
            default: break
            }
        }
        return limit
    }

    /// The fields every request of an upload carries: the interop version.
    package static func interopFields() -> HTTPFields {
        [interopVersionName: interopVersion]
    }

    /// The item without spaces around it and without its parameters (`;a=b`).
    private static func bareItem(_ value: String) -> String {
        let item = value.split(separator: ";", maxSplits: 1, omittingEmptySubsequences: false).first ?? ""
        return item.trimmingSpaces()
    }
}

extension Substring {
    /// The text without leading and trailing spaces and tabs.
    fileprivate func trimmingSpaces() -> String {
        var text = self
        while let first = text.first, first == " " || first == "\t" { text.removeFirst() }
        while let last = text.last, last == " " || last == "\t" { text.removeLast() }
        return String(text)
    }
}
