public import Foundation
public import HTTPTypes

/// An in-memory cookie store with RFC 6265's storage model, shared by every request of the
/// transports that hold it.
///
/// Opt-in: a transport without a jar sends no cookie but those a request sets itself and
/// stores none. With one (`CurlTransport.Configuration.cookieJar` for the
/// engine), every `Set-Cookie` of every response, redirect hops included, is stored, and
/// every request carries the cookies whose domain, path and `Secure` flag match its URL.
///
/// ```swift
/// let jar = CookieJar()
/// var configuration = CurlTransport.Configuration()
/// configuration.cookieJar = jar
/// let transport = try CurlTransport(configuration: configuration)
/// _ = try await transport.data(for: TransportRequest(method: .post, url: "https://example.com/login"))
/// print(jar.cookies)  // what the login set; values never printed
/// try jar.write(to: URL(filePath: "cookies.txt"))
/// ```
///
/// - **Matching** (RFC 6265 §5.4): a host-only cookie goes to its host alone; a cookie with a
///   `Domain` to that domain and every host under it; a cookie goes to its path and the paths
///   below it; a `Secure` one over https only. A `Cookie` field lists longer paths first, then
///   the earlier created.
/// - **Refused cookies** (never an error for the response): a `Domain` that the host does not
///   match (`Domain=other.com` from `example.com`), a single-label `Domain` (`Domain=com`), a
///   name and value over 4,096 bytes, a control character, a field without `name=value`.
/// - **No Public Suffix List** is shipped: only single-label domains are recognised as
///   public. So `example.co.uk` may set a cookie for `Domain=co.uk`, which would then be sent
///   to every `*.co.uk` host the same jar talks to. Use one jar for the hosts of one party,
///   or seed and read it yourself when it talks to hosts under a multi-label public suffix.
/// - **Expiry**: `Max-Age` wins over `Expires`; a cookie with neither is a session cookie,
///   kept until the jar goes away and written to a file only when asked. `Max-Age` is capped
///   at 400 days. A cookie set already expired deletes the one it names.
/// - **Limits** (RFC 6265 §6.1): 50 cookies per domain and 3,000 in all; past them, the
///   expired go first, then the least recently used.
/// - `HttpOnly` and `SameSite` are kept as data: a client has no scripts and no sites.
///
/// Thread-safe: every method takes one lock, so requests on every event loop share the jar.
public final class CookieJar: Sendable {
    /// The most cookies the jar keeps for one domain (RFC 6265 §6.1: at least 50).
    public static let maximumCookiesPerDomain = 50
    /// The most cookies the jar keeps in all (RFC 6265 §6.1: at least 3,000).
    public static let maximumCookies = 3000

    /// A stored cookie and the jar's bookkeeping.
    struct Entry: Sendable {
        var cookie: Cookie
        /// The order of first storage, for ties of ``Cookie/createdAt``.
        var sequence: UInt64
        /// The order of last use, for eviction.
        var lastUse: UInt64
    }

    /// What the lock guards.
    struct State: Sendable {
        /// The entries, by ``Cookie/domain``.
        var domains: [String: [Entry]] = [:]
        var count = 0
        var clock: UInt64 = 0

        mutating func tick() -> UInt64 {
            clock += 1
            return clock
        }
    }

    private let state = PThreadMutex(State())

    /// Creates an empty jar.
    public init() {}

    // MARK: - Reading

    /// Every cookie that has not expired, ordered by domain, then as a `Cookie` field would list
    /// them.
    public var cookies: [Cookie] {
        let now = Date()
        return state.withLock { state in
            state.domains.keys.sorted().flatMap { domain in
                Self.ordered(state.domains[domain, default: []].filter { !$0.cookie.isExpired(at: now) })
            }
        }
    }

    /// The cookies a request for `url` carries, in the order of its `Cookie` field: longer
    /// paths first, then the earlier created.
    public func cookies(for url: URL) -> [Cookie] {
        guard let parts = CookieURL(url) else { return [] }
        return cookies(for: parts, now: Date(), markingUse: false)
    }

    /// The `Cookie` field's value a request for `url` carries (`a=1; b=2`), or `nil` when no
    /// cookie matches.
    public func cookieFieldValue(for url: URL) -> String? {
        guard let parts = CookieURL(url) else { return nil }
        return fieldValue(for: parts)
    }

    /// The `Cookie` field's value for a request, or `nil` when no cookie matches, marking the
    /// cookies used.
    ///
    /// - Parameter excluding: The caller's own `Cookie` field: cookies of the jar with a name
    ///   it already sets are left out, so that the caller's value wins.
    package func fieldValue(for url: CookieURL, excluding callerField: String? = nil, now: Date = Date()) -> String? {
        let matching = cookies(for: url, now: now, markingUse: true)
        guard !matching.isEmpty else { return nil }
        let taken = callerField.map(Self.names(in:)) ?? []
        var value = ""
        for cookie in matching where !taken.contains(cookie.name) {
            if !value.isEmpty { value += "; " }
            value += cookie.name
            value += "="
            value += cookie.value
        }
        return value.isEmpty ? nil : value
    }

    /// The names a `Cookie` field's value sets.
    static func names(in field: String) -> Set<String> {
        Set(
            field.split(separator: ";").map { pair in
                let name = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)[0]
                return name.trimmingCharacters(in: .whitespaces)
            })
    }

    private func cookies(for url: CookieURL, now: Date, markingUse: Bool) -> [Cookie] {
        state.withLock { state in
            var found: [Entry] = []
            var candidate = Substring(url.host)
            while true {
                let domain = String(candidate)
                if var entries = state.domains[domain] {
                    var changed = false
                    for index in entries.indices {
                        let cookie = entries[index].cookie
                        guard !cookie.isExpired(at: now), cookie.matches(url) else { continue }
                        if markingUse {
                            entries[index].lastUse = state.tick()
                            changed = true
                        }
                        found.append(entries[index])
                    }
                    if changed { state.domains[domain] = entries }
                }
                guard !url.isIPAddress, let dot = candidate.firstIndex(of: ".") else { break }
                candidate = candidate[candidate.index(after: dot)...]
            }
            return Self.ordered(found)
        }
    }

    /// RFC 6265 §5.4's order: longer paths first, then earlier creation, then earlier storage.
    private static func ordered(_ entries: [Entry]) -> [Cookie] {
        entries.sorted { first, second in
            let firstLength = first.cookie.path.utf8.count
            let secondLength = second.cookie.path.utf8.count
            if firstLength != secondLength { return firstLength > secondLength }
            if first.cookie.createdAt != second.cookie.createdAt {
                return first.cookie.createdAt < second.cookie.createdAt
            }
            return first.sequence < second.sequence
        }
        .map(\.cookie)
    }

    // MARK: - Storing

    /// Stores the cookies of a response's `Set-Cookie` fields, for a request sent to `url`.
    ///
    /// For a transport other than the engine (which stores them itself): call it with each
    /// response's fields, and send ``cookieFieldValue(for:)`` with each request.
    ///
    /// - Returns: The fields ignored, and why; never the values.
    @discardableResult
    public func store(_ responseFields: HTTPFields, from url: URL) -> [CookieRejection] {
        guard let parts = CookieURL(url) else { return [] }
        return store(setCookie: responseFields[values: .setCookie], from: parts)
    }

    /// Stores the cookies of `Set-Cookie` values answering a request for `url`.
    ///
    /// - Returns: The values ignored, and why.
    package func store(setCookie lines: [String], from url: CookieURL, now: Date = Date()) -> [CookieRejection] {
        guard !lines.isEmpty else { return [] }
        var rejections: [CookieRejection] = []
        var cookies: [Cookie] = []
        for line in lines {
            switch Cookie.parse(setCookie: line, from: url, now: now) {
            case .success(let cookie): cookies.append(cookie)
            case .failure(let rejection): rejections.append(rejection)
            }
        }
        state.withLock { state in
            for cookie in cookies { Self.insert(cookie, into: &state, now: now, keepsCreation: true) }
        }
        return rejections
    }

    /// Adds a cookie, or replaces the one with the same name, domain and path; an expired
    /// cookie removes that one instead.
    ///
    /// A cookie the caller adds is trusted: no domain rule applies, so a jar can be seeded
    /// with any host's cookies. Its ``Cookie/createdAt`` is kept as given.
    public func add(_ cookie: Cookie) {
        let now = Date()
        state.withLock { Self.insert(cookie, into: &$0, now: now, keepsCreation: false) }
    }

    /// Removes the cookie with the cookie's name, domain and path, if any.
    public func remove(_ cookie: Cookie) {
        state.withLock { state in
            guard var entries = state.domains[cookie.domain],
                let index = entries.firstIndex(where: { Self.isSameSlot($0.cookie, cookie) })
            else { return }
            entries.remove(at: index)
            state.count -= 1
            state.domains[cookie.domain] = entries.isEmpty ? nil : entries
        }
    }

    /// Removes every cookie that `predicate` accepts, or every cookie.
    public func removeAll(where predicate: (Cookie) -> Bool = { _ in true }) {
        state.withLock { state in
            for (domain, entries) in state.domains {
                let kept = entries.filter { !predicate($0.cookie) }
                state.count -= entries.count - kept.count
                state.domains[domain] = kept.isEmpty ? nil : kept
            }
        }
    }

    /// Removes the session cookies, as a browser does when it quits.
    public func removeSessionCookies() {
        removeAll { !$0.isPersistent }
    }

    /// Whether two cookies take the same place in a jar: RFC 6265 §5.3 step 11.
    private static func isSameSlot(_ first: Cookie, _ second: Cookie) -> Bool {
        first.name == second.name && first.domain == second.domain && first.path == second.path
    }

    /// Stores `cookie`, replacing its slot's, then applies the limits.
    private static func insert(_ cookie: Cookie, into state: inout State, now: Date, keepsCreation: Bool) {
        var cookie = cookie
        var entries = state.domains[cookie.domain, default: []]
        let countBefore = entries.count
        var sequence = state.tick()
        if let index = entries.firstIndex(where: { isSameSlot($0.cookie, cookie) }) {
            if keepsCreation { cookie.createdAt = entries[index].cookie.createdAt }
            sequence = entries[index].sequence
            entries.remove(at: index)
        }
        if !cookie.isExpired(at: now) {
            if entries.count >= maximumCookiesPerDomain {
                entries.removeAll { $0.cookie.isExpired(at: now) }
            }
            if entries.count >= maximumCookiesPerDomain, let oldest = leastRecentlyUsed(entries) {
                entries.remove(at: oldest)
            }
            entries.append(Entry(cookie: cookie, sequence: sequence, lastUse: state.tick()))
        }
        state.count += entries.count - countBefore
        state.domains[cookie.domain] = entries.isEmpty ? nil : entries
        if state.count > maximumCookies { evictOverall(&state, now: now) }
    }

    /// The index of the entry used longest ago.
    private static func leastRecentlyUsed(_ entries: [Entry]) -> Int? {
        entries.indices.min { entries[$0].lastUse < entries[$1].lastUse }
    }

    /// Brings the jar back to ``maximumCookies``: the expired first, then the least recently used.
    private static func evictOverall(_ state: inout State, now: Date) {
        for (domain, entries) in state.domains {
            let kept = entries.filter { !$0.cookie.isExpired(at: now) }
            state.count -= entries.count - kept.count
            state.domains[domain] = kept.isEmpty ? nil : kept
        }
        while state.count > maximumCookies {
            var oldest: (domain: String, index: Int, lastUse: UInt64)?
            for (domain, entries) in state.domains {
                guard let index = leastRecentlyUsed(entries) else { continue }
                if entries[index].lastUse < oldest?.lastUse ?? .max {
                    oldest = (domain, index, entries[index].lastUse)
                }
            }
            guard let oldest, var entries = state.domains[oldest.domain] else { return }
            entries.remove(at: oldest.index)
            state.domains[oldest.domain] = entries.isEmpty ? nil : entries
            state.count -= 1
        }
    }
}
