import Foundation

/// What must never reach a log or an error message: the values of names that look like
/// credentials, in query strings, form bodies and JSON alike. One rule for every layer.
public enum LogRedaction {
    /// Fragments of parameter and key names whose values are credentials.
    ///
    /// A name matches when, lowercased and with everything but letters and digits removed,
    /// it contains one of these: `access_token`, `X-Api-Key` and `userPassword` all match.
    public static let sensitiveNameFragments: [String] = [
        "password", "passwd", "passphrase", "secret", "token", "apikey", "authorization", "cookie",
        "credential", "privatekey", "sessionid",
    ]

    /// Whether the value under `name` must not be shown.
    ///
    /// - Parameter name: A query parameter, form field or JSON key.
    public static func isSensitive(_ name: String) -> Bool {
        let normalized = String(
            String.UnicodeScalarView(
                name.lowercased().unicodeScalars.filter { ("a"..."z").contains($0) || ("0"..."9").contains($0) }
            )
        )
        return sensitiveNameFragments.contains { normalized.contains($0) }
    }

    /// `url` for a log: the values of sensitive query parameters and the password of the
    /// user information replaced by `<redacted>`; everything else as it was.
    ///
    /// `https://u:pw@api.example.com/v1?city=Oslo&access_token=abc` becomes
    /// `https://u:<redacted>@api.example.com/v1?city=Oslo&access_token=<redacted>`.
    ///
    /// - Parameter url: An absolute URL, as a request carries it.
    public static func redactedURL(_ url: String) -> String {
        var text = Substring(url)
        var fragment: Substring = ""
        if let hash = text.firstIndex(of: "#") {
            fragment = text[hash...]
            text = text[..<hash]
        }
        var query: Substring?
        if let mark = text.firstIndex(of: "?") {
            query = text[text.index(after: mark)...]
            text = text[..<mark]
        }
        var result = redactingPassword(in: text)
        if let query {
            let pairs = query.split(separator: "&", omittingEmptySubsequences: false).map { pair -> String in
                guard let equals = pair.firstIndex(of: "="),
                    isSensitive(String(pair[..<equals]).removingPercentEncodingOrSelf)
                else { return String(pair) }
                return String(pair[..<equals]) + "=<redacted>"
            }
            result += "?" + pairs.joined(separator: "&")
        }
        return result + fragment
    }

    /// `scheme://user:<redacted>@host…` for a URL with a password in its user information.
    private static func redactingPassword(in text: Substring) -> String {
        guard let schemeEnd = text.range(of: "://") else { return String(text) }
        let authorityStart = schemeEnd.upperBound
        let authorityEnd = text[authorityStart...].firstIndex(of: "/") ?? text.endIndex
        let authority = text[authorityStart..<authorityEnd]
        guard let at = authority.lastIndex(of: "@"), let colon = authority[..<at].firstIndex(of: ":") else {
            return String(text)
        }
        return String(text[..<authority.index(after: colon)]) + "<redacted>" + String(text[at...])
    }
}

extension StringProtocol {
    /// The text with percent-escapes decoded, or as it is when they are malformed.
    fileprivate var removingPercentEncodingOrSelf: String {
        String(self).removingPercentEncoding ?? String(self)
    }
}
