/// A login token, as `POST /auth/login` and `POST /auth/refresh` send it:
/// `{"token": "…", "expiresIn": 3600}`.
public struct LoginToken: Codable, Sendable, Hashable {
    /// The bearer token.
    public var token: String
    /// How many seconds it lives from the moment it was issued.
    public var expiresIn: Int

    /// Creates a token.
    ///
    /// - Parameters:
    ///   - token: The bearer token.
    ///   - expiresIn: Its lifetime in seconds.
    public init(token: String, expiresIn: Int) {
        self.token = token
        self.expiresIn = expiresIn
    }
}
