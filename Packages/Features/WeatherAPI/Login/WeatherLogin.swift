public import Forms
import Mapping
public import Retry
public import Transport

/// Keeps a weather client logged in: puts the token on requests as `Authorization: Bearer …`,
/// recognises the backend's "token expired" (envelope code 401), and gets a new token, by
/// refreshing the old one or, when there is none or the server no longer knows it, by logging in.
///
/// It is the weather service's ``/Retry/Authenticator``: install it with ``install(on:token:)``,
/// which adds a ``/Retry/AuthenticationMiddleware`` to the client, so every request of that
/// client is authenticated, many requests that meet an expired token share one refresh, and
/// each is sent again once with the new token.
///
/// ```swift
/// var client = ClientConfiguration(transport: transport, baseURL: "http://127.0.0.1:8080")
/// let login = WeatherLogin.install(on: &client)      // no token yet: the first 401 logs in
/// let receipt = try await ReportScreen(client: client)
///     .report(city: "Toronto", note: "Clear skies", photo: photoURL).value
/// print(login.credential ?? "")                      // the token now in use
/// ```
///
/// Its own requests (the login and the refresh) go through the client as it was before the
/// middleware was added, so a refresh never waits for itself.
public struct WeatherLogin: Authenticator {
    /// The bearer token.
    public typealias Credential = String

    /// The client the login and refresh requests use: without this authenticator's middleware.
    public let client: ClientConfiguration

    /// Creates the authenticator.
    ///
    /// - Parameter client: The client its own requests use; it must not hold the middleware
    ///   this authenticator serves.
    public init(client: ClientConfiguration) {
        self.client = client
    }

    /// Envelope code 401 is an expired token: the backend says "Token expired" with it over HTTP 200.
    public var classifier: (any ResponseClassifier)? { EnvelopeClassifier(expiredCodes: [401]) }

    /// Sets `Authorization: Bearer <token>`.
    ///
    /// - Throws: `TransportError` (`invalidHeader`) when the token holds a control character.
    public func apply(_ token: String, to request: inout TransportRequest) throws {
        try request.setHeader("Authorization", "Bearer \(token)")
    }

    /// A new token: `POST /auth/refresh` with `token` when there is one, and `POST /auth/login`
    /// when there is none or the server answers that it does not know it (code 401).
    ///
    /// - Throws: The login's error: a `TransportError` when the server cannot be reached, a
    ///   `BusinessError` when it refuses.
    public func refresh(_ token: String?) async throws -> String {
        let sender = LoginSender(clientConfiguration: client)
        if let token {
            do {
                return try await sender.refresh(token: token).value.token
            } catch let error as BusinessError where error.code == 401 {
                // The server no longer knows the token: log in afresh below.
            }
        }
        return try await sender.login().value.token
    }

    /// Adds the login to a client: a ``/Retry/AuthenticationMiddleware`` around this
    /// authenticator, appended to the client's middleware.
    ///
    /// - Parameters:
    ///   - configuration: The client to authenticate.
    ///   - token: A token to start with, such as one saved by an earlier run; `nil` (the
    ///     default) for none, in which case the first request the server refuses logs in.
    /// - Returns: The middleware, whose `credential` is the token in use.
    @discardableResult
    public static func install(
        on configuration: inout ClientConfiguration, token: String? = nil
    ) -> AuthenticationMiddleware<WeatherLogin> {
        let middleware = AuthenticationMiddleware(
            WeatherLogin(client: configuration), credential: token, logger: configuration.logger)
        configuration.middleware.append(middleware)
        return middleware
    }
}

/// Sends the login endpoints through a client of its own.
struct LoginSender: WeatherRequestable {
    let clientConfiguration: ClientConfiguration?
}
