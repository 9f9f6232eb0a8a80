package import Foundation

// Reading a `Set-Cookie` field: RFC 6265 §5.2 (parsing) and §5.3 (what is stored).
extension Cookie {
    /// The most bytes of a `Set-Cookie` field's name and value together, RFC 6265 §6.1's
    /// minimum; a longer cookie is ignored.
    package static let maximumSize = 4096

    /// The latest expiry a `Max-Age` may set, so that a huge one stays a valid date: about
    /// 400 days, the cap RFC 6265bis sets and browsers apply.
    package static let maximumLifetime: TimeInterval = 400 * 86_400

    /// The cookie a `Set-Cookie` field sets when it answers a request for `url`, or why it is
    /// ignored.
    ///
    /// - Parameters:
    ///   - line: The field's value.
    ///   - url: The request the field answers.
    ///   - now: The current time, for `Max-Age` and for ``createdAt``.
    package static func parse(setCookie line: String, from url: CookieURL, now: Date) -> Result<Cookie, CookieRejection>
    {
        func reject(_ name: String?, _ reason: String) -> Result<Cookie, CookieRejection> {
            .failure(CookieRejection(name: name, host: url.host, reason: reason))
        }
        var pieces = line.split(separator: ";", omittingEmptySubsequences: false)[...]
        let pair = pieces.popFirst() ?? ""
        guard let equals = pair.firstIndex(of: "=") else {
            return reject(nil, "it has no \"=\" in its name=value pair")
        }
        let name = trimmed(pair[..<equals])
        let value = trimmed(pair[pair.index(after: equals)...])
        guard !name.isEmpty else { return reject(nil, "its name is empty") }
        guard name.utf8.count + value.utf8.count <= maximumSize else {
            return reject(String(name), "its name and value exceed \(maximumSize) bytes")
        }
        guard !hasControlCharacters(name), !hasControlCharacters(value) else {
            return reject(String(name), "its name or value holds a control character")
        }

        var expires: Date?
        var maxAge: Date?
        var domainAttribute: String?
        var path: String?
        var isSecure = false
        var isHTTPOnly = false
        var sameSite: SameSite?
        for piece in pieces {
            let attribute: Substring
            let attributeValue: Substring
            if let equals = piece.firstIndex(of: "=") {
                attribute = trimmed(piece[..<equals])
                attributeValue = trimmed(piece[piece.index(after: equals)...])
            } else {
                attribute = trimmed(piece)
                attributeValue = ""
            }
            guard attributeValue.utf8.count <= 1024 else { continue }  // RFC 6265bis §5.6: ignored.
            switch attribute.lowercased() {
            case "expires":
                if let date = CookieDate.date(attributeValue) { expires = date }
            case "max-age":
                guard let seconds = maxAgeSeconds(attributeValue) else { continue }
                maxAge = seconds <= 0 ? Date(timeIntervalSince1970: 0) : now + min(Double(seconds), maximumLifetime)
            case "domain":
                if !attributeValue.isEmpty { domainAttribute = canonicalDomain(String(attributeValue)) }
            case "path":
                path = attributeValue.first == "/" ? String(attributeValue) : nil
            case "secure":
                isSecure = true
            case "httponly":
                isHTTPOnly = true
            case "samesite":
                sameSite = SameSite.allCases.first { $0.rawValue.lowercased() == attributeValue.lowercased() }
            default:
                continue
            }
        }

        var domain = url.host
        var isHostOnly = true
        if let domainAttribute, !domainAttribute.isEmpty {
            guard domainMatches(host: url.host, isIPAddress: url.isIPAddress, domain: domainAttribute) else {
                return reject(String(name), "its Domain=\(domainAttribute.prefix(253)) does not match the host")
            }
            if !domainAttribute.contains(".") && domainAttribute != url.host {
                // No Public Suffix List: a single label (`com`, `local`) is the only public
                // suffix the jar recognises. Equal to the host, it is a host-only cookie.
                return reject(String(name), "its Domain=\(domainAttribute) is a top-level domain")
            }
            if domainAttribute != url.host {
                domain = domainAttribute
                isHostOnly = false
            }
        }
        return .success(
            Cookie(
                name: String(name), value: String(value), domain: domain, isHostOnly: isHostOnly,
                path: path ?? defaultPath(of: url.path), isSecure: isSecure, isHTTPOnly: isHTTPOnly,
                sameSite: sameSite, expiresAt: maxAge ?? expires, createdAt: now))
    }

    /// `Max-Age`'s delta-seconds (RFC 6265 §5.2.2): an optional `-` and digits, else `nil`;
    /// clamped to what an `Int` holds.
    private static func maxAgeSeconds(_ text: Substring) -> Int? {
        let digits = text.first == "-" ? text.dropFirst() : text
        guard !digits.isEmpty, digits.utf8.allSatisfy({ (0x30...0x39).contains($0) }) else { return nil }
        let magnitude = Int(digits) ?? Int.max
        return text.first == "-" ? -magnitude : magnitude
    }

    /// `text` without the spaces and tabs around it.
    private static func trimmed(_ text: Substring) -> Substring {
        var text = text
        while let first = text.first, first == " " || first == "\t" { text = text.dropFirst() }
        while let last = text.last, last == " " || last == "\t" { text = text.dropLast() }
        return text
    }

    /// Whether `text` holds a byte below 0x20 (a tab aside) or 0x7F: never sent back in a
    /// request's head.
    package static func hasControlCharacters(_ text: some StringProtocol) -> Bool {
        text.utf8.contains { ($0 < 0x20 && $0 != 0x09) || $0 == 0x7F }
    }
}
