import Foundation
public import HTTPTypes

/// The checks every request passes before a socket opens.
///
/// Engines call ``validate(_:)`` on every request, including ones built from a raw
/// `HTTPRequest`, because libcurl (like most C clients) would send CR, LF or NUL verbatim and
/// so let a caller's data split one request into two.
public enum RequestValidation {
    /// The parts of an absolute HTTP URL.
    public struct URLParts: Sendable, Equatable {
        /// `http` or `https`, lowercased.
        public var scheme: String
        /// `host[:port]`, with IPv6 hosts in brackets.
        public var authority: String
        /// The path and query, starting with `/`.
        public var path: String

        /// Creates the parts of a URL.
        public init(scheme: String, authority: String, path: String) {
            self.scheme = scheme
            self.authority = authority
            self.path = path
        }
    }

    /// Splits and checks an absolute URL.
    ///
    /// The fragment, if any, is dropped: it is never sent to a server.
    ///
    /// - Parameter url: An absolute `http` or `https` URL.
    /// - Returns: Its scheme, authority and path.
    /// - Throws: ``TransportError`` with category ``ErrorCategory/invalidURL``.
    public static func parseURL(_ url: String) throws -> URLParts {
        try split(url).parts
    }

    /// Splits and checks an absolute URL as ``parseURL(_:)`` does, and tells whether `url` is
    /// already the text its parts make (`scheme://authority/path`: the scheme in lowercase, a
    /// path that starts with `/`, no fragment), so that a caller can keep it rather than build
    /// it again.
    ///
    /// The bytes are read in place, once, with no string made but the parts'.
    package static func split(_ url: String) throws -> (parts: URLParts, isCanonical: Bool) {
        var text = url
        return try text.withUTF8 { bytes in
            if let bad = bytes.first(where: isForbiddenInURL) {
                throw invalidURL(
                    url, "contains the forbidden byte 0x\(hex(bad)); percent-encode spaces and control characters")
            }
            guard let colon = bytes.firstIndex(of: UInt8(ascii: ":")), colon + 3 <= bytes.count,
                bytes[colon + 1] == UInt8(ascii: "/"), bytes[colon + 2] == UInt8(ascii: "/")
            else {
                throw invalidURL(url, "is not absolute; write it as http://host/path or https://host/path")
            }
            let schemeBytes = UnsafeBufferPointer(rebasing: bytes[..<colon])
            guard let scheme = canonicalScheme(bytes: schemeBytes) else {
                throw invalidURL(
                    url,
                    "uses the scheme \"\(String(decoding: schemeBytes, as: UTF8.self))\"; only http and https are "
                        + "supported")
            }
            let authorityStart = colon + 3
            let end = bytes[authorityStart...].firstIndex(of: UInt8(ascii: "#")) ?? bytes.count
            var authorityEnd = authorityStart
            while authorityEnd < end, bytes[authorityEnd] != UInt8(ascii: "/"), bytes[authorityEnd] != UInt8(ascii: "?")
            {
                authorityEnd += 1
            }
            let authority = UnsafeBufferPointer(rebasing: bytes[authorityStart..<authorityEnd])
            guard !authority.isEmpty, authority[0] != UInt8(ascii: ":"), !authority.contains(UInt8(ascii: "@")) else {
                throw invalidURL(url, "has no host, or carries credentials in the URL; send credentials as a header")
            }
            let pathBytes = UnsafeBufferPointer(rebasing: bytes[authorityEnd..<end])
            let startsWithSlash = pathBytes.first == UInt8(ascii: "/")
            var path = String(decoding: pathBytes, as: UTF8.self)
            if !startsWithSlash { path = "/" + path }
            let isCanonical =
                startsWithSlash && end == bytes.count
                && !schemeBytes.contains(where: { $0 >= UInt8(ascii: "A") && $0 <= UInt8(ascii: "Z") })
            return (
                URLParts(scheme: scheme, authority: String(decoding: authority, as: UTF8.self), path: path),
                isCanonical
            )
        }
    }

    /// `http` or `https` when `bytes` spell one of them in any letter case, else `nil`.
    private static func canonicalScheme(bytes: UnsafeBufferPointer<UInt8>) -> String? {
        if bytes.count == 4 || bytes.count == 5 {
            for index in 0..<bytes.count where bytes[index] | 0x20 != Self.httpsBytes[index] { return nil }
            return bytes.count == 4 ? "http" : "https"
        }
        return nil
    }

    static func canonicalScheme(_ scheme: some StringProtocol) -> String? {
        // Compared byte by byte with ASCII case folding: this runs for every request.
        var index = 0
        var matchesHTTP = true
        var matchesHTTPS = true
        for byte in scheme.utf8 {
            let folded = byte | 0x20
            matchesHTTP = matchesHTTP && index < 4 && folded == Self.httpsBytes[index]
            matchesHTTPS = matchesHTTPS && index < 5 && folded == Self.httpsBytes[index]
            index += 1
        }
        if matchesHTTP && index == 4 { return "http" }
        if matchesHTTPS && index == 5 { return "https" }
        return nil
    }

    private static let httpsBytes: [UInt8] = Array("https".utf8)

    /// Whether `scheme` is `https`, in any letter case.
    ///
    /// - Parameter scheme: A request's scheme.
    /// - Returns: `true` for `https`.
    public static func isHTTPS(_ scheme: String?) -> Bool {
        scheme.flatMap { canonicalScheme($0) } == "https"
    }

    /// Builds a header field, rejecting what `HTTPField` would otherwise silently rewrite.
    ///
    /// - Parameters:
    ///   - name: An RFC 9110 token.
    ///   - value: A value without CR, LF or NUL.
    /// - Returns: The field.
    /// - Throws: ``TransportError`` with category ``ErrorCategory/invalidHeader``.
    public static func field(name: String, value: String) throws -> HTTPField {
        guard let fieldName = HTTPField.Name(name) else {
            throw TransportError(
                .invalidHeader,
                message: "The header name \"\(name.debugDescription.dropFirst().dropLast())\" is not a valid "
                    + "HTTP token (letters, digits and !#$%&'*+-.^_`|~ only).",
                mayHaveReachedServer: false
            )
        }
        if let bad = value.utf8.first(where: isForbiddenInFieldValue) {
            throw TransportError(
                .invalidHeader,
                message: "The value of header \"\(name)\" contains the forbidden byte 0x\(hex(bad)) (CR, LF or NUL "
                    + "would let it inject headers); remove it or encode the value.",
                mayHaveReachedServer: false
            )
        }
        return HTTPField(name: fieldName, value: value)
    }

    /// Checks a whole request head; engines call this before opening any connection.
    ///
    /// - Parameter head: The request head.
    /// - Returns: The absolute URL to request.
    /// - Throws: ``TransportError`` for a bad URL part or header field.
    public static func validate(_ head: HTTPRequest) throws -> String {
        guard let scheme = head.scheme.flatMap({ canonicalScheme($0) }) else {
            throw invalidURL(head.scheme ?? "(none)", "is not an http or https scheme")
        }
        guard let authority = head.authority, !authority.isEmpty else {
            throw invalidURL("(no authority)", "has no host")
        }
        let path = head.path ?? "/"
        let url = "\(scheme)://\(authority)\(path)"
        if let bad = url.utf8.first(where: isForbiddenInURL) {
            throw invalidURL(
                url, "contains the forbidden byte 0x\(hex(bad)); percent-encode spaces and control characters")
        }
        guard path.hasPrefix("/") else {
            throw invalidURL(url, "has a path that does not start with \"/\"")
        }
        for field in head.headerFields {
            let bad = field.withUnsafeBytesOfValue { bytes in bytes.first(where: isForbiddenInFieldValue) }
            if let bad {
                throw TransportError(
                    .invalidHeader,
                    message: "The value of header \"\(field.name)\" contains the forbidden byte 0x\(hex(bad)).",
                    url: url,
                    mayHaveReachedServer: false
                )
            }
        }
        return url
    }

    /// Bytes never allowed in a URL sent on the wire: controls, space, DEL, and non-ASCII.
    static func isForbiddenInURL(_ byte: UInt8) -> Bool {
        byte <= 0x20 || byte >= 0x7F
    }

    /// Bytes never allowed in a field value: NUL, CR, LF and the other controls except HTAB.
    static func isForbiddenInFieldValue(_ byte: UInt8) -> Bool {
        (byte < 0x20 && byte != 0x09) || byte == 0x7F
    }

    private static func invalidURL(_ url: String, _ problem: String) -> TransportError {
        let shown = String(
            decoding: url.utf8.prefix(200).map { isForbiddenInURL($0) && $0 < 0x80 ? UInt8(ascii: "?") : $0 },
            as: UTF8.self)
        return TransportError(
            .invalidURL,
            message: "The URL \"\(shown)\" \(problem).",
            url: shown,
            mayHaveReachedServer: false
        )
    }

    private static func hex(_ byte: UInt8) -> String {
        let digits = Array("0123456789ABCDEF")
        return String([digits[Int(byte >> 4)], digits[Int(byte & 0x0F)]])
    }
}
