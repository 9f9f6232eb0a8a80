/// A user name and password that the engine sends to a server (``TransferOptions/credentials``)
/// or to a proxy (``Proxy/credentials``), by the scheme it names.
///
/// The engine answers the server's challenge itself: Basic credentials go with the first
/// request; Digest ones answer the server's `401` and its nonce (RFC 7616), on the same
/// transfer. The password never appears in a log, an error message, a ``description`` or,
/// unless asked for, a rendered `curl` command.
///
/// ```swift
/// var request = try TransportRequest(method: .get, url: "https://api.example.com/report")
/// request.options.credentials = .digest(user: "ada", password: secret)
/// ```
///
/// Credentials belong to the origin (scheme, host and port) of the request they are set on: a
/// redirect to another origin drops them, and they are not restored later in the chain.
public struct HTTPCredentials: Sendable, Hashable, CustomStringConvertible {
    /// How the credentials are presented.
    public enum Scheme: String, Sendable, Hashable, CaseIterable {
        /// `Authorization: Basic` (RFC 7617), sent with the first request. Use it over HTTPS only:
        /// the password crosses the network in clear.
        case basic
        /// Digest access authentication (RFC 7616): the password never crosses the network,
        /// and the engine answers the server's challenge, which costs one more round trip.
        case digest
        /// Whichever scheme the server's challenge offers that the engine supports, the safest
        /// first (libcurl's `CURLAUTH_ANY`); costs a round trip for the challenge.
        case any
    }

    /// The user name.
    public var user: String
    /// The password; never shown.
    public var password: String
    /// How they are presented.
    public var scheme: Scheme

    /// Creates credentials.
    ///
    /// - Parameters:
    ///   - user: The user name.
    ///   - password: The password.
    ///   - scheme: How they are presented; ``Scheme/basic`` by default.
    public init(user: String, password: String, scheme: Scheme = .basic) {
        self.user = user
        self.password = password
        self.scheme = scheme
    }

    /// Basic credentials (RFC 7617).
    ///
    /// - Parameters:
    ///   - user: The user name.
    ///   - password: The password.
    public static func basic(user: String, password: String) -> HTTPCredentials {
        HTTPCredentials(user: user, password: password, scheme: .basic)
    }

    /// Digest credentials (RFC 7616).
    ///
    /// - Parameters:
    ///   - user: The user name.
    ///   - password: The password.
    public static func digest(user: String, password: String) -> HTTPCredentials {
        HTTPCredentials(user: user, password: password, scheme: .digest)
    }

    /// `scheme user:<redacted>`: the password is never shown.
    public var description: String { "\(scheme.rawValue) \(user):<redacted>" }
}

extension HTTPCredentials: CustomDebugStringConvertible, CustomReflectable {
    /// The same as ``description``: the password is never shown.
    public var debugDescription: String { description }

    /// The user and the scheme only, so that `dump` and debuggers do not show the password.
    public var customMirror: Mirror {
        Mirror(self, children: ["user": user, "scheme": scheme, "password": "<redacted>"])
    }
}
