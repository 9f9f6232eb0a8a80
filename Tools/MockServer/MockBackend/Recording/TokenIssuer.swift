import NIOConcurrencyHelpers

/// The tokens the `/auth` routes issue, and their counters, thread-safely.
///
/// Tokens are opaque strings `t-{generation}-{16 hex digits}`, the generation counting the
/// tokens issued by this server from 1. A token expires when its lifetime is over or when
/// ``expireAll()`` is called; it is never forgotten, so an expired token can still be refreshed.
final class TokenIssuer: Sendable {
    private let state = NIOLockedValueBox(State())

    private struct State {
        var tokens: [String: Token] = [:]
        var issued = 0
        var logins = 0
        var refreshes = 0
        var failedRefreshes = 0
        var accepted = 0
        var rejected = 0

        /// Issues a token that lives `lifetime` seconds.
        mutating func issue(lifetime: Int) -> String {
            issued += 1
            let random = String(UInt64.random(in: .min ... .max), radix: 16)
            let token = "t-\(issued)-" + String(repeating: "0", count: 16 - random.count) + random
            tokens[token] = Token(expiresAt: ContinuousClock.now.advanced(by: .seconds(lifetime)))
            return token
        }
    }

    private struct Token {
        var expiresAt: ContinuousClock.Instant
        var revoked = false

        var isValid: Bool { !revoked && ContinuousClock.now < expiresAt }
    }

    /// Issues a token for a login that lives `lifetime` seconds, and counts the login.
    func login(lifetime: Int) -> String {
        state.withLockedValue { state in
            state.logins += 1
            return state.issue(lifetime: lifetime)
        }
    }

    /// Issues a new token living `lifetime` seconds in exchange for `presented`, a token this
    /// server issued, expired or not, and counts the refresh.
    ///
    /// - Returns: The new token, or `nil` (counted as a failed refresh) when `presented` is
    ///   missing or was not issued here.
    func refresh(_ presented: String?, lifetime: Int) -> String? {
        state.withLockedValue { state in
            guard let presented, state.tokens[presented] != nil else {
                state.failedRefreshes += 1
                return nil
            }
            state.refreshes += 1
            return state.issue(lifetime: lifetime)
        }
    }

    /// Counts a refresh that was made to fail.
    func countFailedRefresh() {
        state.withLockedValue { $0.failedRefreshes += 1 }
    }

    /// Expires every token issued so far.
    ///
    /// - Returns: How many tokens that is.
    func expireAll() -> Int {
        state.withLockedValue { state in
            for token in state.tokens.keys {
                state.tokens[token]?.revoked = true
            }
            return state.tokens.count
        }
    }

    /// Checks `presented` for a protected request, and counts the request as accepted or rejected.
    ///
    /// - Returns: How many protected requests have been accepted, this one included, or `nil`
    ///   when `presented` is missing, unknown or expired.
    func authorize(_ presented: String?) -> Int? {
        state.withLockedValue { state in
            guard let presented, state.tokens[presented]?.isValid == true else {
                state.rejected += 1
                return nil
            }
            state.accepted += 1
            return state.accepted
        }
    }

    /// How many protected requests have been rejected so far.
    var rejectedCount: Int {
        state.withLockedValue { $0.rejected }
    }

    /// Whether `presented` was issued here and has not expired, without counting the check
    /// among the protected requests.
    func isValid(_ presented: String) -> Bool {
        state.withLockedValue { $0.tokens[presented]?.isValid == true }
    }

    /// `{"logins", "refreshes", "failedRefreshes", "protected": {"accepted", "rejected"}}`.
    func statistics() -> JSONValue {
        state.withLockedValue { state in
            .object([
                "logins": .int(state.logins),
                "refreshes": .int(state.refreshes),
                "failedRefreshes": .int(state.failedRefreshes),
                "protected": .object(["accepted": .int(state.accepted), "rejected": .int(state.rejected)]),
            ])
        }
    }
}
