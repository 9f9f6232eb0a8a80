import Foundation

/// What must never reach a log, an error message or a screen: credentials, wherever they
/// appear. One rule for every layer.
///
/// The rule (``redactedText(_:)`` applies all of it, ``redactedURL(_:)`` its URL part):
///
/// - the user information of a URL: its password (`https://u:<redacted>@host`), or the whole
///   of it when it has no password, since a lone user name in a URL is often a token
///   (`https://<redacted>@host`);
/// - the value of every query parameter, form field, JSON member and `name: value` line whose
///   name ``isSensitive(_:)``: `access_token=<redacted>`, `"password": "<redacted>"`,
///   `Authorization: <redacted>`, `Cookie: <redacted>`;
/// - `Bearer` and `Basic` credentials wherever they appear.
///
/// Every message the library produces passes through it: `TransportError`'s ``TransportError/message``
/// and ``TransportError/description``, ``RequestFailure/message``, ``RetryEvent/reason``, the
/// errors and messages of the layers above, and the URLs and headers of log lines (header
/// fields through `HTTPFields.redactedForLogging`). Fields that keep the raw value
/// for programs, such as ``TransportError/url``, say so.
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
        // Every error message and log line asks, so ASCII names (nearly all) take a path on
        // bytes; others are lowercased by Unicode's rules (the Kelvin sign becomes `k`).
        guard name.utf8.allSatisfy({ $0 < 0x80 }) else { return isSensitiveByUnicodeRules(name) }
        var normalized: [UInt8] = []
        normalized.reserveCapacity(name.utf8.count)
        for byte in name.utf8 {
            switch byte {
            case UInt8(ascii: "A")...UInt8(ascii: "Z"): normalized.append(byte | 0x20)
            case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "0")...UInt8(ascii: "9"): normalized.append(byte)
            default: break
            }
        }
        return sensitiveFragmentBytes.contains { fragment in
            guard fragment.count <= normalized.count else { return false }
            return (0...(normalized.count - fragment.count)).contains { start in
                normalized[start..<(start + fragment.count)].elementsEqual(fragment)
            }
        }
    }

    /// ``sensitiveNameFragments`` as bytes.
    private static let sensitiveFragmentBytes = sensitiveNameFragments.map { Array($0.utf8) }

    /// ``isSensitive(_:)`` for a name with characters beyond ASCII.
    private static func isSensitiveByUnicodeRules(_ name: String) -> Bool {
        let normalized = String(
            String.UnicodeScalarView(
                name.lowercased().unicodeScalars.filter { ("a"..."z").contains($0) || ("0"..."9").contains($0) }
            )
        )
        return sensitiveNameFragments.contains { normalized.contains($0) }
    }

    /// `url` for a log or a message: the values of sensitive query parameters and the user
    /// information's password (or its lone user name) replaced by `<redacted>`; everything
    /// else as it was.
    ///
    /// `https://u:pw@api.example.com/v1?city=Oslo&access_token=abc` becomes
    /// `https://u:<redacted>@api.example.com/v1?city=Oslo&access_token=<redacted>`. Applying it
    /// twice changes nothing more.
    ///
    /// - Parameter url: An absolute URL, as a request carries it, or a path with its query.
    public static func redactedURL(_ url: String) -> String {
        guard let redacted = redactingURL(Array(url.utf8)[...]) else { return url }
        return String(decoding: redacted, as: UTF8.self)
    }

    /// Whether a query parameter's name, percent-escapes decoded, ``isSensitive(_:)``.
    static func isSensitiveQueryName(_ name: ArraySlice<UInt8>) -> Bool {
        let text = String(decoding: name, as: UTF8.self)
        guard name.contains(UInt8(ascii: "%")) else { return isSensitive(text) }
        return isSensitive(text.removingPercentEncoding ?? text)
    }

    /// What stands in for a value that is not shown: `<redacted>`.
    public static let redactedMark = "<redacted>"
}
