public import Logging
public import Transport

/// Keeps requests authenticated: applies the current credential, and when a response says it
/// expired, renews it once for every request that met the expiry and sends them again.
///
/// - **One refresh for many:** requests that fail with the same expired credential share one
///   call to ``Authenticator/refresh(_:)``; a request sent after it started waits for it.
///   A request that carried a credential already replaced is sent again with the new one,
///   without another refresh.
/// - **Replay once:** each request is sent again once, with the new credential. Its second
///   answer stands, expired or not.
/// - **Failure:** when the refresh throws, every request waiting for it fails with that error.
/// - **No loops:** more than ``refreshLimit`` refreshes within ``refreshWindow`` (5 in 30 s by
///   default) fails the request with an `authenticationFailed` error instead of refreshing.
///
/// ```swift
/// let auth = AuthenticationMiddleware(BearerAuthenticator(session: session), credential: savedToken)
/// client.middleware = [auth]
/// ```
///
/// Bodies are sent again as a retry sends them: a one-shot stream cannot be, and its request
/// fails with the expiry's response instead. Put a ``RetryMiddleware`` (or a client's retry
/// policy) outside this middleware, so that each retry is authenticated afresh.
public final class AuthenticationMiddleware<Scheme: Authenticator>: TransportMiddleware {
    /// The scheme.
    public let authenticator: Scheme
    /// The most refreshes allowed within ``refreshWindow``.
    public let refreshLimit: Int
    /// The window ``refreshLimit`` counts over.
    public let refreshWindow: Duration
    /// Where refreshes are logged; `nil` for nowhere.
    public let logger: Logger?
    private let clock: any RetryClock

    private struct State {
        var credential: Scheme.Credential?
        /// Incremented by every refresh, so that a request knows whether its credential is current.
        var generation = 0
        var refresh: Task<Scheme.Credential, any Error>?
        /// Clock readings of recent refreshes.
        var refreshes: [Duration] = []
    }

    private let state: PThreadMutex<State>

    private enum RefreshStep {
        case ready(Scheme.Credential)
        case wait(Task<Scheme.Credential, any Error>)
        case loop(Int)
    }

    /// Creates the middleware.
    ///
    /// - Parameters:
    ///   - authenticator: The scheme.
    ///   - credential: The credential to start with; `nil` when there is none yet (the first
    ///     expiry then asks the authenticator to refresh from `nil`).
    ///   - refreshLimit: The most refreshes within `refreshWindow`: 5 by default.
    ///   - refreshWindow: 30 s by default.
    ///   - clock: The clock the window is measured on.
    ///   - logger: Where refreshes are logged.
    public init(
        _ authenticator: Scheme,
        credential: Scheme.Credential?,
        refreshLimit: Int = 5,
        refreshWindow: Duration = .seconds(30),
        clock: any RetryClock = SystemRetryClock(),
        logger: Logger? = nil
    ) {
        self.authenticator = authenticator
        self.refreshLimit = max(1, refreshLimit)
        self.refreshWindow = refreshWindow
        self.clock = clock
        self.logger = logger
        state = PThreadMutex(State(credential: credential))
    }

    /// The credential requests carry now.
    public var credential: Scheme.Credential? {
        state.withLock { $0.credential }
    }

    /// Replaces the credential (after a login, or a logout with `nil`).
    ///
    /// - Parameter credential: The new credential.
    public func setCredential(_ credential: Scheme.Credential?) {
        state.withLock { state in
            state.credential = credential
            state.generation += 1
        }
    }

    /// Sends the request with the current credential, and once more after a refresh if it expired.
    public func intercept(_ request: TransportRequest, next: Next) async throws -> TransportResponse {
        let (credential, generation) = try await current()
        let response = try await next(try authenticated(request, with: credential))
        guard authenticator.isExpired(head: response.head, body: response.body.collectedData) else {
            return response
        }
        guard request.body?.isReplayable ?? true else { return response }
        response.body.cancel()
        let renewed = try await renewed(after: generation, url: request.url)
        return try await next(try authenticated(request, with: renewed))
    }

    private func authenticated(_ request: TransportRequest, with credential: Scheme.Credential?) throws
        -> TransportRequest
    {
        guard let credential else { return request }
        var request = request
        try authenticator.apply(credential, to: &request)
        return request
    }

    /// The current credential, after the refresh in flight when there is one.
    private func current() async throws -> (Scheme.Credential?, Int) {
        let (pending, credential, generation) = state.withLock { ($0.refresh, $0.credential, $0.generation) }
        guard let pending else { return (credential, generation) }
        let renewed = try await pending.value
        return (renewed, state.withLock { $0.generation })
    }

    /// A credential newer than `generation`: the current one when a refresh already replaced
    /// it, otherwise the result of the refresh this call starts or joins.
    private func renewed(after generation: Int, url: String) async throws -> Scheme.Credential {
        let now = clock.now
        let step: RefreshStep = state.withLock { state in
            if state.generation != generation, let credential = state.credential { return .ready(credential) }
            if let refresh = state.refresh { return .wait(refresh) }
            state.refreshes.removeAll { now - $0 > refreshWindow }
            guard state.refreshes.count < refreshLimit else { return .loop(state.refreshes.count) }
            state.refreshes.append(now)
            let expired = state.credential
            // The task settles the state itself before it returns, so that every waiter that
            // resumes finds the new credential installed. It cannot finish before this lock
            // is released, so `state.refresh` is set before it is cleared.
            // Shared by every request that waits for it: no handle's cancel is for it.
            let refresh = Task { [self] in
                try await RequestCancellation.withoutCurrent { try await performRefresh(from: expired) }
            }
            state.refresh = refresh
            return .wait(refresh)
        }
        switch step {
        case .ready(let credential):
            return credential
        case .wait(let refresh):
            return try await refresh.value
        case .loop(let count):
            throw TransportError(
                .authenticationFailed,
                message: "The credential for \(url) expired again after \(count) refreshes within "
                    + "\(RetrySession.format(refreshWindow)); refreshing again would loop. Check that the refreshed "
                    + "credential is the one the server expects, or sign in again.",
                url: url)
        }
    }

    /// Runs the authenticator's refresh, then installs its credential (or clears the failed refresh).
    private func performRefresh(from expired: Scheme.Credential?) async throws -> Scheme.Credential {
        do {
            let credential = try await authenticator.refresh(expired)
            state.withLock { state in
                state.refresh = nil
                state.credential = credential
                state.generation += 1
            }
            logger?.notice("Refreshed the credential")
            return credential
        } catch {
            state.withLock { $0.refresh = nil }
            logger?.warning("The credential could not be refreshed: \(RequestFailure(error).message)")
            throw error
        }
    }
}
