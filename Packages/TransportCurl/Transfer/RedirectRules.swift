import HTTPTypes
import Transport

/// What a redirect hop does to the request, per RFC 9110 §15.4 and the engine's safety rules:
/// a pure value, with no libcurl and no I/O, so that every rule can be tested as a table.
///
/// ``CurlTransfer`` asks libcurl only for the resolved target (`CURLINFO_REDIRECT_URL`) and
/// leaves every decision to ``decide(status:method:body:from:resolvedTarget:location:followed:currentURL:)``:
///
/// - at most ``limit`` hops, then `.tooManyRedirects`;
/// - http and https targets only, otherwise `.redirectToRefusedScheme`;
/// - 303 turns any method but HEAD into GET; 301 and 302 turn POST into GET (as every browser
///   does); 307 and 308 keep the method and the body, which must then be replayable, otherwise
///   `.invalidBody`;
/// - on a change of origin (scheme, host or port, default ports filled in) the credentials
///   `Authorization`, `Cookie` and `Proxy-Authorization` are removed (and a caller's `Host`).
struct RedirectRules: Sendable {
    /// What the rules need to know of a request body.
    enum BodyKind: Sendable, Equatable, CustomStringConvertible {
        /// No body.
        case none
        /// A body that can be sent again: bytes, a file, or a stream made by a factory.
        case replayable
        /// A stream that can be read once.
        case oneShot

        /// The kind of `body`.
        init(_ body: RequestBody?) {
            guard let body else {
                self = .none
                return
            }
            self = body.isReplayable ? .replayable : .oneShot
        }

        /// The case's name, for test names.
        var description: String {
            switch self {
            case .none: "no body"
            case .replayable: "a replayable body"
            case .oneShot: "a one-shot body"
            }
        }
    }

    /// Where a request is sent, as an origin compares it.
    struct Origin: Sendable, Equatable, CustomStringConvertible {
        /// The scheme, lowercased; `http` when the request had none.
        let scheme: String
        /// `host:port`, lowercased, with the scheme's default port filled in.
        let authority: String

        /// The origin of a scheme and an authority (`host`, `host:port`, `[v6]:port`).
        init(scheme: String?, authority: String?) {
            let scheme = (scheme ?? "http").lowercased()
            var authority = (authority ?? "").lowercased()
            let hasPort: Bool
            if let bracket = authority.lastIndex(of: "]") {
                hasPort = authority[bracket...].contains(":")
            } else {
                hasPort = authority.contains(":")
            }
            if !hasPort { authority += scheme == "https" ? ":443" : ":80" }
            self.scheme = scheme
            self.authority = authority
        }

        /// `scheme://host:port`.
        var description: String { "\(scheme)://\(authority)" }
    }

    /// How to rewrite the request for the next hop.
    struct Hop: Sendable, Equatable {
        /// The next hop's URL parts.
        let target: RequestValidation.URLParts
        /// The next hop's method.
        let method: HTTPRequest.Method
        /// Whether the request keeps its body (`false` also when it had none).
        let keepsBody: Bool
        /// Whether the hop turned the method into GET, which drops the body and the fields
        /// that describe it.
        let becomesGET: Bool
        /// Whether the hop leaves the origin, which removes ``credentialFields``.
        let changesOrigin: Bool

        /// The next hop's URL.
        var url: String { "\(target.scheme)://\(target.authority)\(target.path)" }

        /// Rewrites `head` and `body` for this hop.
        ///
        /// - Returns: The credential fields that were present and are now removed, in the order
        ///   of ``credentialFields``.
        func apply(to head: inout HTTPRequest, body: inout RequestBody?) -> [HTTPField.Name] {
            head.method = method
            if becomesGET {
                body = nil
                for name in RedirectRules.bodyFields { head.headerFields[name] = nil }
            }
            var stripped: [HTTPField.Name] = []
            if changesOrigin {
                for name in RedirectRules.credentialFields where head.headerFields[name] != nil {
                    head.headerFields[name] = nil
                    stripped.append(name)
                }
                for name in RedirectRules.hostField { head.headerFields[name] = nil }
            }
            head.scheme = target.scheme
            head.authority = target.authority
            head.path = target.path
            return stripped
        }
    }

    /// The fields removed on a change of origin, so that they cannot come back later in the chain.
    static let credentialFields: [HTTPField.Name] = [.authorization, .cookie, .proxyAuthorization]

    /// The fields that describe a body, removed when a hop turns the method into GET.
    static let bodyFields: [HTTPField.Name] = [.contentType, .contentLength, .contentEncoding, .transferEncoding]

    /// `Host`, which swift-http-types spells as the `:authority` pseudo field but a caller may
    /// still set; removed on a change of origin like a credential, but not reported as one.
    static let hostField = [HTTPField.Name("Host")].compactMap { $0 }

    /// The statuses that redirect.
    static let statuses: Set<Int> = [301, 302, 303, 307, 308]

    /// The most hops a chain may follow.
    let limit: Int

    /// Whether a final head with this status and a `Location` starts a hop to follow.
    func follows(status: Int, hasLocation: Bool) -> Bool {
        Self.statuses.contains(status) && limit > 0 && hasLocation
    }

    /// Decides the next hop of a redirect, or why there is none.
    ///
    /// - Parameters:
    ///   - status: The redirect's status (301, 302, 303, 307 or 308).
    ///   - method: The method of the request that was redirected.
    ///   - body: What kind of body that request has.
    ///   - from: The origin of that request (its head's scheme and authority).
    ///   - resolvedTarget: libcurl's absolute target (`CURLINFO_REDIRECT_URL`), or `nil` when
    ///     it would not resolve one (a scheme it does not speak).
    ///   - location: The `Location` field as the server sent it, for messages.
    ///   - followed: How many hops the chain has followed so far.
    ///   - currentURL: The redirected URL, for messages.
    /// - Returns: The hop, or the error that ends the chain.
    func decide(
        status: Int, method: HTTPRequest.Method, body: BodyKind, from: Origin, resolvedTarget: String?,
        location: String?, followed: Int, currentURL: String
    ) -> Result<Hop, TransportError> {
        guard followed < limit else {
            return .failure(
                TransportError(
                    .tooManyRedirects,
                    message: "\(currentURL) redirected more than \(limit) times; the server may be in a redirect "
                        + "loop. Raise RedirectPolicy.follow(limit:) only if the chain is expected.",
                    url: currentURL))
        }
        guard let resolvedTarget else {
            let location = location ?? ""
            let scheme = location.split(separator: ":", maxSplits: 1).first.map(String.init) ?? location
            return .failure(
                TransportError(
                    .redirectToRefusedScheme,
                    message:
                        "\(currentURL) redirected to \"\(location.prefix(200))\", whose scheme \"\(scheme.prefix(20))\" "
                        + "is not http or https; the engine follows only http and https redirects.",
                    url: currentURL))
        }
        let target: RequestValidation.URLParts
        do {
            target = try RequestValidation.parseURL(resolvedTarget)
        } catch {
            let scheme = resolvedTarget.split(separator: ":", maxSplits: 1).first.map { $0.lowercased() } ?? ""
            if scheme != "http" && scheme != "https" {
                return .failure(
                    TransportError(
                        .redirectToRefusedScheme,
                        message: "\(currentURL) redirected to a \"\(scheme.prefix(20))\" URL; the engine follows only "
                            + "http and https redirects.",
                        url: currentURL))
            }
            let reason = (error as? TransportError)?.message ?? "\(error)"
            return .failure(
                TransportError(
                    .invalidResponse, message: "\(currentURL) redirected to an invalid URL: \(reason)",
                    url: currentURL))
        }
        let becomesGET = (status == 303 && method != .head) || ((status == 301 || status == 302) && method == .post)
        if !becomesGET && body == .oneShot {
            return .failure(
                TransportError(
                    .invalidBody,
                    message:
                        "\(currentURL) answered \(status) to \(target.scheme)://\(target.authority)\(target.path), "
                        + "which requires sending the body again, but the body is a one-shot stream. Use a "
                        + "replayable body (bytes, a file, or RequestBody.stream(length:_:) with a factory).",
                    url: currentURL))
        }
        return .success(
            Hop(
                target: target,
                method: becomesGET ? .get : method,
                keepsBody: !becomesGET && body != .none,
                becomesGET: becomesGET,
                changesOrigin: from != Origin(scheme: target.scheme, authority: target.authority)))
    }
}
