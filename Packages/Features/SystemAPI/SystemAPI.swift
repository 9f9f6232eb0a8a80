public import Forms
import Foundation
import Mapping
public import Transport

/// The backend's system endpoints, for any type that adopts it: the server's clock and the
/// releases newer than the running app.
///
/// Adopt it on whatever sends requests (a screen, a command, a service); the requests use
/// that type's ``/Forms/Requestable/clientConfiguration`` (the one
/// ``/Forms/ClientSystem/bootstrap(_:)`` installed, by default):
///
/// ```swift
/// struct AboutScreen: SystemRequestable {}
///
/// let time = try await AboutScreen().sysTime().value
/// AboutScreen().sysVersion(appVersion: "1.2.0")
///     .success { releases in print(releases.map(\.version)) }
///     .failure { error in print(error) }
/// ```
///
/// Both answers come in the backend's envelope, `{"code", "message", "data"}`, with code 200
/// for success: any other code fails the handle with Mapping's `BusinessError`, carrying the
/// server's message. The decoder is the client's (`userInfo.responseDecoder`) unless a call's
/// options name another.
public protocol SystemRequestable: Requestable {}

extension SystemRequestable {
    /// The server's clock: `GET /sysTime`.
    ///
    /// - Parameter options: What this call decides over the client: a timeout, user
    ///   information, where handlers run. None by default.
    /// - Returns: A handle for the reading.
    public func sysTime(options: CallOptions = CallOptions()) -> DataRequest<ServerTime> {
        request(SystemForm.time, options: options).decodeEnvelope(ServerTime.self)
    }

    /// The releases newer than `appVersion` for `platform`: `POST /sysVersion` with
    /// `{"appVersion": appVersion}` and the header `platform`.
    ///
    /// - Parameters:
    ///   - appVersion: The version the caller runs, such as `1.2.0`; not empty.
    ///   - platform: The platform to ask for; ``SystemPlatform/current`` by default.
    ///   - options: What this call decides over the client; none by default.
    /// - Returns: A handle for the releases, in the server's order; empty when `appVersion` is the
    ///   newest.
    ///   An empty `appVersion` or `platform` fails it at once with a `FormError` of category
    ///   `invalidParameters`, before anything is sent.
    public func sysVersion(
        appVersion: String,
        platform: String = SystemPlatform.current,
        options: CallOptions = CallOptions()
    ) -> DataRequest<[AppRelease]> {
        let appVersion = appVersion.trimmingCharacters(in: .whitespaces)
        let platform = platform.trimmingCharacters(in: .whitespaces)
        guard !appVersion.isEmpty, !platform.isEmpty else {
            let missing = appVersion.isEmpty ? "app version" : "platform"
            return DataRequest(
                finished: .failure(
                    FormError(
                        .invalidParameters,
                        message: "The \(missing) is empty; pass one, such as \"1.2.0\" or \"linux\".")
                ))
        }
        return request(SystemForm.version(appVersion: appVersion, platform: platform), options: options)
            .decodeEnvelope([AppRelease].self)
    }
}

/// The platform names the backend knows.
public enum SystemPlatform {
    /// The platform this code runs on: `linux` on Linux, `macos` on macOS, `other` elsewhere.
    public static var current: String {
        #if os(Linux)
            "linux"
        #elseif os(macOS)
            "macos"
        #else
            "other"
        #endif
    }
}
