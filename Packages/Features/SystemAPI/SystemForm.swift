import Forms
import HTTPTypes
import Retry

/// The system endpoints of the backend: `GET /sysTime` and `POST /sysVersion`.
///
/// Internal: a feature's forms are how it talks to its server, not part of what it offers.
/// ``SystemRequestable`` is the public face.
enum SystemForm: RequestFormable {
    /// `GET /sysTime`: the server's clock.
    case time
    /// `POST /sysVersion` with `{"appVersion": …}` and a `platform` header: the releases
    /// newer than `appVersion` for `platform`.
    case version(appVersion: String, platform: String)

    var path: String {
        switch self {
        case .time: "/sysTime"
        case .version: "/sysVersion"
        }
    }

    var method: HTTPRequest.Method {
        switch self {
        case .time: .get
        case .version: .post
        }
    }

    var headers: [String: String] {
        switch self {
        case .time: [:]
        case .version(_, let platform): ["platform": platform]
        }
    }

    /// `/sysVersion` is a POST only to carry its body: it reads and changes nothing, so a
    /// failed attempt may be sent again like a GET, which the retry rules would otherwise refuse.
    func configure(_ client: inout ClientConfiguration) {
        if case .version = self { client.retry.retriesNonIdempotentRequests = true }
    }

    var jsonBody: (any Encodable & Sendable)? {
        switch self {
        case .time: nil
        case .version(let appVersion, _): VersionQuery(appVersion: appVersion)
        }
    }
}

/// The body of `POST /sysVersion`.
struct VersionQuery: Encodable, Sendable {
    /// The version the caller runs, such as `1.2.0`.
    var appVersion: String
}
