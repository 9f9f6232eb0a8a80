import Forms
import HTTPTypes

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
