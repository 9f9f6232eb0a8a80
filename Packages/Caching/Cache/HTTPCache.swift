public import Foundation
import HTTPTypes
public import Logging
import Synchronization
public import Transport

/// A private HTTP cache (RFC 9111) as a ``/Transport/TransportMiddleware``: put it in a
/// client's middleware or a ``/Transport/MiddlewareTransport``, and `GET` and `HEAD` requests
/// are answered from its ``CacheStorage`` while the stored response is fresh, revalidated with
/// `If-None-Match` or `If-Modified-Since` once it is stale, and stored when the server allows.
///
/// ```swift
/// let cache = HTTPCache(storage: try DiskCacheStorage(directory: folder))
/// let transport = MiddlewareTransport(try CurlTransport(), middleware: [RetryMiddleware(), cache])
/// let response = try await transport.data(for: try TransportRequest(method: .get, url: url))
/// CacheStatus(response.head)   // .hit, .revalidated or .miss
/// ```
///
/// Put it inside a retry middleware and an authentication middleware (later in the list), as
/// the one interception chain orders them: a hit, which never fails, ends the retries at their
/// first attempt, each attempt can be answered by a revalidation, and the cache sees the
/// credential a request carries.
///
/// - Fresh: `max-age` (`s-maxage` is a shared cache's and is ignored), else `Expires` minus
///   `Date` (a malformed `Expires` is stale), else, for the statuses RFC 9110 calls
///   heuristically cacheable, 10 % of the time since `Last-Modified`, at most
///   ``Options/heuristicLifetimeCap``. Age follows RFC 9111 §4.2.3, with `Age` and `Date`.
/// - Never stored: `no-store` in the request or the response, `Vary: *`, a response after a
///   redirect, a `206`, a body over ``Options/maximumEntrySize``, and a response to a request
///   with `Authorization` unless it says `public`, `s-maxage` or `must-revalidate` (or
///   ``Options/cachesAuthorizedResponses`` is set).
/// - Always revalidated: `no-cache` in the response or the request (or `Pragma: no-cache`), a
///   request `max-age` the age exceeds; `must-revalidate` forbids a request's `max-stale`.
/// - Invalidated: a `2xx` or `3xx` answer to any method other than `GET`, `HEAD`, `OPTIONS`
///   and `TRACE` removes the entries of its URL and of its same-origin `Location` and
///   `Content-Location` (RFC 9111 §4.4).
///
/// Requests with `Range` or the caller's own conditional headers pass through untouched and
/// unmarked. Storage errors never fail a request: they are logged, and the network answers.
///
/// A miss costs little beyond the request itself, and nothing on its way suspends but the
/// request: the storage is asked with ``CacheStorage/entryWithoutWaiting(forKey:)`` and handed
/// the entry with ``CacheStorage/storeWithoutWaiting(_:)`` (the `async` calls only when a storage
/// cannot answer so, or a ``DiskCacheStorage`` has 8 MiB waiting for its writer). Nothing is
/// built or copied: of a head the engine has not built yet, a miss reads the few fields it needs
/// from the received lines, the mark is appended to that head (in place when the response alone
/// holds it, as it does from the engine; else to a new head sharing the lines), and the entry
/// shares the head, still unbuilt, and the body with the response; the hop-by-hop fields and the mark are
/// left out when an entry's head is read. A ``DiskCacheStorage`` answers from memory
/// while its writer appends the record, and a response never waits for the disk (a write that fails there is counted in
/// ``CacheStatistics/failedWrites`` rather than logged).
public final class HTTPCache: TransportMiddleware {
    /// What the cache does, adjustable while it runs through ``HTTPCache/options``.
    public struct Options: Sendable {
        /// Whether the cache answers and stores anything; when `false`, every request passes
        /// through unmarked. `true` by default.
        public var isEnabled = true
        /// A lifetime to treat every stored `200` as fresh for, whatever its headers say
        /// (`no-store` still wins): for APIs that send no cache headers. Such a response is
        /// stored even without validators. A request's own
        /// ``/Caching/Transport/RequestUserInfo/cacheLifetime`` replaces it. `nil` (the default)
        /// follows the protocol alone.
        public var forcedLifetime: Duration? {
            didSet { forcedSeconds = forcedLifetime?.timeInterval }
        }
        /// The longest heuristic lifetime given to a response with `Last-Modified` and no
        /// explicit one; 24 hours by default.
        public var heuristicLifetimeCap: Duration = .seconds(24 * 3600) {
            didSet { heuristicCapSeconds = heuristicLifetimeCap.timeInterval }
        }
        /// The largest body stored; 8 MiB by default. A larger response is answered but not
        /// stored (a streamed one is not collected beyond this).
        public var maximumEntrySize = 8 << 20
        /// Whether responses to requests carrying `Authorization` are stored like others;
        /// `false` by default, which stores them only when they say `public`, `s-maxage` or
        /// `must-revalidate` (RFC 9111 §3.5).
        ///
        /// Entries are keyed by URL alone, so a response stored for one credential answers
        /// any other. Turn this on only when the process serves one user, and call
        /// ``HTTPCache/removeAll()`` when that user signs out.
        public var cachesAuthorizedResponses = false
        /// The wall clock the cache reads for request, response and current times; the
        /// system's by default. Tests inject one they move by hand.
        public var clock: @Sendable () -> Date = { Date() }
        /// What sends the revalidations `stale-while-revalidate` allows in the background: the
        /// layers inside the cache, usually the engine itself (a link's `next` cannot outlive
        /// the request it belongs to). `nil` by default, which revalidates such a stale
        /// response before answering, as RFC 5861 allows.
        ///
        /// ```swift
        /// let engine = try CurlTransport()
        /// let cache = HTTPCache()
        /// cache.options.backgroundTransport = engine
        /// let transport = MiddlewareTransport(engine, middleware: [RetryMiddleware(), cache])
        /// ```
        public var backgroundTransport: (any HTTPTransport)?

        /// ``forcedLifetime`` and ``heuristicLifetimeCap`` in seconds, converted when they are
        /// set rather than on every request.
        private(set) var forcedSeconds: TimeInterval?
        private(set) var heuristicCapSeconds: TimeInterval = 24 * 3600

        /// The defaults: enabled, no forced lifetime, a 24-hour heuristic cap, 8 MiB entries.
        public init() {}
    }

    /// Where the entries are kept.
    public let storage: any CacheStorage
    private let logger: Logger?
    private let currentOptions: PThreadMutex<Options>
    private let hits = Atomic(0)
    private let misses = Atomic(0)
    private let revalidations = Atomic(0)
    private let stores = Atomic(0)
    /// The `stale-while-revalidate` revalidations under way, by the key of the entry each
    /// refreshes: one at a time per entry.
    private let backgroundRevalidations = PThreadMutex<[String: Task<Void, Never>]>([:])

    /// Creates a cache.
    ///
    /// - Parameters:
    ///   - storage: Where entries are kept; a 10 MiB ``MemoryCacheStorage`` by default.
    ///   - options: What the cache does; ``Options/init()`` by default.
    ///   - logger: Where decisions (debug) and storage failures (warning) are logged; nowhere
    ///     by default.
    public init(storage: any CacheStorage = MemoryCacheStorage(), options: Options = Options(), logger: Logger? = nil) {
        self.storage = storage
        self.logger = logger
        self.currentOptions = PThreadMutex(options)
    }

    /// What the cache does; a change applies to the requests that start after it.
    public var options: Options {
        get { currentOptions.withLock { $0 } }
        set { currentOptions.withLock { $0 = newValue } }
    }

    /// The counters of this cache and its storage's.
    ///
    /// Each counter is read on its own, so while requests run the figures may be a request
    /// apart from one another.
    public var statistics: CacheStatistics {
        get async {
            let storageStatistics = await storage.statistics()
            return CacheStatistics(
                hits: hits.load(ordering: .relaxed), misses: misses.load(ordering: .relaxed),
                revalidations: revalidations.load(ordering: .relaxed), stores: stores.load(ordering: .relaxed),
                evictions: storageStatistics.evictions, corruptEntriesRemoved: storageStatistics.corruptEntriesRemoved,
                entryCount: storageStatistics.entryCount, totalBytes: storageStatistics.totalBytes,
                failedWrites: storageStatistics.failedWrites)
        }
    }

    /// Removes every stored response.
    public func removeAll() async {
        await storage.removeAll()
    }

    /// Removes the stored response for `url`, if any.
    ///
    /// - Parameter url: The URL, as a request's ``/Transport/TransportRequest/url`` spells it.
    public func removeResponse(for url: String) async {
        await storage.removeEntry(forKey: url)
    }

    // MARK: - Reading without sending

    /// What the cache holds for `request`, fresh or stale, without sending anything: for a
    /// screen that shows stored data at once and then asks the network.
    ///
    /// The response carries `X-Parley-Cache: hit` when the cache would answer the request
    /// itself, `stale` when it would revalidate first, and `Age`. Statistics are not counted.
    ///
    /// - Parameter request: A `GET` or `HEAD` request.
    /// - Returns: The stored response (without a body for `HEAD`), or `nil` when there is none
    ///   whose `Vary` matches, or the cache is disabled.
    public func cachedResponse(for request: TransportRequest) async -> TransportResponse? {
        let requestedLifetime = request.cacheLifetime
        let options = options
        guard options.isEnabled, request.head.method == .get || request.head.method == .head else { return nil }
        let key = Self.key(for: request)
        guard let entry = await lookUp(key, for: request).match else { return nil }
        let forced = Self.forcedLifetime(requested: requestedLifetime, options: options)
        let freshness = freshness(of: entry, forced: forced, options: options)
        let control = RequestFacts(request.head.headerFields).control
        let usable = Self.isUsableWithoutValidation(entry, freshness, request: control)
        return Self.served(
            entry, url: key, freshness: freshness, as: usable ? .hit : .stale, method: request.head.method)
    }

    // MARK: - The middleware

    /// Answers `GET` and `HEAD` from the cache when it may, revalidates or sends otherwise,
    /// stores what it may, and invalidates after unsafe methods.
    public func intercept(_ request: TransportRequest, next: Next) async throws -> TransportResponse {
        let options = options
        guard options.isEnabled else { return try await next(request) }
        let method = request.head.method
        guard method == .get || method == .head else {
            let response = try await next(request)
            if !Self.safeMethods.contains(method), (200..<400).contains(response.status.code) {
                await invalidate(after: request, response: response)
            }
            return response
        }
        // The request's fields are read once, for everything the cache asks of them.
        let facts = RequestFacts(request.head.headerFields)
        guard !facts.bypasses else { return try await next(request) }

        let key = Self.key(for: request)
        let control = facts.control
        let requestedLifetime = request.userInfo.isEmpty ? nil : request.cacheLifetime
        let forced = Self.forcedLifetime(requested: requestedLifetime, options: options)
        // Asked without suspending first: the built-in storages always answer, so a miss makes
        // no `async` call into the storage.
        var stored: Stored
        if let found = lookUpWithoutWaiting(key, for: request) {
            stored = found
        } else {
            stored = await lookUp(key, for: request)
        }

        var staleFreshness: Freshness?
        if let entry = stored.match {
            let freshness = freshness(of: entry, forced: forced, options: options)
            if Self.isUsableWithoutValidation(entry, freshness, request: control) {
                hits.add(1, ordering: .relaxed)
                logger?.debug("cache hit \(LogRedaction.redactedURL(key)) (age \(Int(freshness.currentAge)) s)")
                return Self.served(entry, url: key, freshness: freshness, as: .hit, method: method)
            }
            if let background = options.backgroundTransport,
                Self.mayServeWhileRevalidating(entry, freshness, request: control)
            {
                hits.add(1, ordering: .relaxed)
                logger?.debug("cache stale \(LogRedaction.redactedURL(key)), revalidating in the background")
                revalidateInBackground(entry, request: request, facts: facts, key: key, through: background)
                return Self.served(entry, url: key, freshness: freshness, as: .stale, method: method)
            }
            staleFreshness = freshness
        }
        if control.onlyIfCached {
            misses.add(1, ordering: .relaxed)
            return Self.gatewayTimeout(key)
        }
        if let entry = stored.match, method == .get, let conditional = Self.conditionalRequest(request, for: entry) {
            let sentAt = options.clock()
            let response: TransportResponse
            do {
                response = try await next(conditional)
            } catch {
                if let stale = staleIfError(entry, staleFreshness, request: control, key: key, method: method, error) {
                    return stale
                }
                throw error
            }
            let receivedAt = options.clock()
            if response.status == .notModified {
                if Self.validatorsAgree(entry.receivedHead, response.head) {
                    return await revalidated(
                        entry, by: response, request: request, key: key, sentAt: sentAt, receivedAt: receivedAt,
                        forced: forced, options: options)
                }
                // A 304 for another version than the stored one: forget it and ask plainly.
                response.body.cancel()
                await storage.removeEntry(forKey: entry.key)
                if entry.key == key { stored = Stored(primary: nil, match: nil) } else { stored.match = nil }
            } else {
                if let stale = staleOnServerError(
                    entry, staleFreshness, response, request: control, key: key, method: method)
                {
                    return stale
                }
                let (answer, work) = fromNetwork(
                    consume response, request: request, facts: facts, key: key, sentAt: sentAt, receivedAt: receivedAt,
                    forced: forced, stored: stored, options: options)
                await perform(work)
                return answer
            }
        }
        let sentAt = options.clock()
        let response: TransportResponse
        do {
            response = try await next(request)
        } catch {
            if let entry = stored.match,
                let stale = staleIfError(entry, staleFreshness, request: control, key: key, method: method, error)
            {
                return stale
            }
            throw error
        }
        let receivedAt = options.clock()
        if let entry = stored.match {
            if let stale = staleOnServerError(
                entry, staleFreshness, response, request: control, key: key, method: method)
            {
                return stale
            }
            if method == .head, response.status.code == 200 {
                await update(entry, byHead: response, facts: facts, sentAt: sentAt, receivedAt: receivedAt)
            }
        }
        // Handed over, not copied, so that the mark goes into the response's own fields.
        let (answer, work) = fromNetwork(
            consume response, request: request, facts: facts, key: key, sentAt: sentAt, receivedAt: receivedAt,
            forced: forced, stored: stored, options: options)
        // Nothing to do for the storage's sake, unless it had to be waited for.
        if case .none = work { return answer }
        await perform(work)
        return answer
    }

    // MARK: - Looking up

    /// What the storage holds for one request.
    struct Stored {
        /// The entry under the URL's own key: the newest variant, which names the group of the
        /// others (``CacheEntry/variantGroup``).
        var primary: CacheEntry?
        /// The stored response that fits the request's varying fields: ``primary``, the variant
        /// stored for the request's values, or `nil`.
        var match: CacheEntry?
    }

    /// ``lookUp(_:for:)`` when the storage answers without suspending; `nil` when it cannot.
    private func lookUpWithoutWaiting(_ key: String, for request: TransportRequest) -> Stored? {
        let primary: CacheEntry
        switch storage.entryWithoutWaiting(forKey: key) {
        case .found(let entry): primary = entry
        case .absent: return Stored(primary: nil, match: nil)
        case .unknown: return nil
        }
        if Self.varyMatches(primary, request) { return Stored(primary: primary, match: primary) }
        guard let variantKey = Self.variantKey(of: primary, for: request) else {
            return Stored(primary: primary, match: nil)
        }
        switch storage.entryWithoutWaiting(forKey: variantKey) {
        case .found(let variant):
            return Stored(primary: primary, match: Self.varyMatches(variant, request) ? variant : nil)
        case .absent: return Stored(primary: primary, match: nil)
        case .unknown: return nil
        }
    }

    /// The entry under `key` and the stored response that fits `request`: the entry itself
    /// when the request's varying fields are its own, else the variant stored for the
    /// request's values beside it.
    private func lookUp(_ key: String, for request: TransportRequest) async -> Stored {
        if let found = lookUpWithoutWaiting(key, for: request) { return found }
        guard let primary = await storage.entry(forKey: key) else { return Stored(primary: nil, match: nil) }
        if Self.varyMatches(primary, request) { return Stored(primary: primary, match: primary) }
        guard let variantKey = Self.variantKey(of: primary, for: request),
            let variant = await storage.entry(forKey: variantKey), Self.varyMatches(variant, request)
        else { return Stored(primary: primary, match: nil) }
        return Stored(primary: primary, match: variant)
    }

    // MARK: - Stale answers (RFC 5861)

    /// Whether a stale entry may answer at once while it is revalidated in the background: its
    /// `stale-while-revalidate` window is open, and neither the response nor the request asks
    /// for validation first.
    static func mayServeWhileRevalidating(_ entry: CacheEntry, _ freshness: Freshness, request: CacheControl) -> Bool {
        guard !freshness.isFresh, freshness.source != .forced, !request.noCache, request.maxAge == nil,
            request.minFresh == nil
        else { return false }
        let response = CacheControl(entry.receivedHead.headerFields)
        guard !response.noCache, !response.mustRevalidate, let window = response.staleWhileRevalidate else {
            return false
        }
        return freshness.staleness <= TimeInterval(window)
    }

    /// Whether a stale entry may answer instead of a failure: its response's or the request's
    /// `stale-if-error` window is open, and the response allows stale answers at all.
    static func mayServeOnError(_ entry: CacheEntry, _ freshness: Freshness, request: CacheControl) -> Bool {
        let response = CacheControl(entry.receivedHead.headerFields)
        guard !response.noCache, !response.mustRevalidate else { return false }
        let window = max(response.staleIfError ?? -1, request.staleIfError ?? -1)
        return window >= 0 && freshness.staleness <= TimeInterval(window)
    }

    /// Whether a thrown error is a failure of the server or the network (what a gateway would
    /// turn into a `502` or `504`), which `stale-if-error` covers; a cancellation, a refused
    /// request or a closed client is not.
    static func isServerFailure(_ error: any Error) -> Bool {
        guard let error = error as? TransportError else { return false }
        let failures: [TransportError.Category] = [
            .dnsFailure, .connectionRefused, .connectTimeout, .tlsFailure, .stalledTransfer, .deadlineExceeded,
            .connectionReset, .incompleteBody, .emptyReply, .invalidResponse, .proxyFailure,
        ]
        return failures.contains(error.category)
    }

    /// The stale entry as the answer to a request that failed with `error`, when
    /// `stale-if-error` allows it.
    private func staleIfError(
        _ entry: CacheEntry, _ freshness: Freshness?, request: CacheControl, key: String, method: HTTPRequest.Method,
        _ error: any Error
    ) -> TransportResponse? {
        guard let freshness, Self.isServerFailure(error), Self.mayServeOnError(entry, freshness, request: request)
        else { return nil }
        return staleAnswer(entry, freshness, key: key, method: method, reason: "\(error)")
    }

    /// The stale entry instead of a `500`, `502`, `503` or `504`, when `stale-if-error` allows
    /// it; the server's answer is then discarded.
    private func staleOnServerError(
        _ entry: CacheEntry, _ freshness: Freshness?, _ response: TransportResponse, request: CacheControl,
        key: String, method: HTTPRequest.Method
    ) -> TransportResponse? {
        guard let freshness, [500, 502, 503, 504].contains(response.status.code),
            Self.mayServeOnError(entry, freshness, request: request)
        else { return nil }
        response.body.cancel()
        return staleAnswer(entry, freshness, key: key, method: method, reason: "status \(response.status.code)")
    }

    private func staleAnswer(
        _ entry: CacheEntry, _ freshness: Freshness, key: String, method: HTTPRequest.Method, reason: String
    ) -> TransportResponse {
        hits.add(1, ordering: .relaxed)
        logger?.debug("cache stale \(LogRedaction.redactedURL(key)) served instead of a failure (\(reason))")
        return Self.served(entry, url: key, freshness: freshness, as: .stale, method: method)
    }

    /// Sends a revalidation of `entry` in a task of its own and stores what it brings, unless
    /// one for the same entry is under way.
    private func revalidateInBackground(
        _ entry: CacheEntry, request: TransportRequest, facts: RequestFacts, key: String,
        through transport: any HTTPTransport
    ) {
        let options = options
        let entryKey = entry.key
        backgroundRevalidations.withLock { running in
            guard running[entryKey] == nil else { return }
            running[entryKey] = Task { [self] in
                await revalidate(
                    entry, request: request, facts: facts, key: key, through: transport, options: options)
                _ = backgroundRevalidations.withLock { $0.removeValue(forKey: entryKey) }
            }
        }
    }

    /// One background revalidation: a `304` refreshes the entry, another answer replaces it (its
    /// body read to the end so that it is stored), a failure leaves it as it is.
    private func revalidate(
        _ entry: CacheEntry, request: TransportRequest, facts: RequestFacts, key: String,
        through transport: any HTTPTransport, options: Options
    ) async {
        let forced = Self.forcedLifetime(
            requested: request.userInfo.isEmpty ? nil : request.cacheLifetime, options: options)
        do {
            let sentAt = options.clock()
            let response = try await transport.send(Self.conditionalRequest(request, for: entry) ?? request)
            let receivedAt = options.clock()
            if response.status == .notModified {
                if Self.validatorsAgree(entry.receivedHead, response.head) {
                    _ = await revalidated(
                        entry, by: response, request: request, key: key, sentAt: sentAt, receivedAt: receivedAt,
                        forced: forced, options: options)
                } else {
                    response.body.cancel()
                    await storage.removeEntry(forKey: entry.key)
                }
                return
            }
            let stored = await lookUp(key, for: request)
            let (answer, work) = fromNetwork(
                consume response, request: request, facts: facts, key: key, sentAt: sentAt, receivedAt: receivedAt,
                forced: forced, stored: stored, options: options)
            await perform(work)
            for try await _ in answer.body {}
        } catch {
            logger?.debug("cache background revalidation of \(LogRedaction.redactedURL(key)) failed: \(error)")
        }
    }

    /// Returns when every background revalidation started so far (`stale-while-revalidate`) has
    /// finished: for tests, and for a program that wants its cache settled before it exits.
    public func backgroundRevalidationsFinished() async {
        while let running = backgroundRevalidations.withLock({ $0.values.first }) {
            await running.value
        }
    }

    // MARK: - HEAD (RFC 9111 §4.3.5)

    /// A `200` to a `HEAD` updates the stored `GET` it could have been answered by, as a `304`
    /// would, when its validators and length agree with the stored ones; otherwise the stored
    /// response is another version, and is removed.
    private func update(
        _ entry: CacheEntry, byHead response: TransportResponse, facts: RequestFacts, sentAt: Date,
        receivedAt: Date
    ) async {
        let stored = entry.receivedHead.headerFields
        let fresh = response.head.headerFields
        let agrees = [HTTPField.Name.eTag, .lastModified, .contentLength].allSatisfy { name in
            guard let new = fresh[name], let old = stored[name] else { return true }
            return new.trimmingSpaces() == old.trimmingSpaces()
        }
        guard agrees else {
            logger?.debug("cache removed \(LogRedaction.redactedURL(entry.key)): a HEAD names another version")
            await storage.removeEntry(forKey: entry.key)
            return
        }
        var head = entry.receivedHead
        head.headerFields = Self.updatedFields(head.headerFields, with: fresh)
        let updated = entry.revalidated(
            head: head, varyingFields: entry.varyingFields, requestTime: sentAt, responseTime: receivedAt)
        if !facts.control.noStore {
            await perform(store(updated))
        }
    }

    // MARK: - Answers

    /// The stored entry refreshed by a `304` (RFC 9111 §4.3.4), stored again and returned.
    private func revalidated(
        _ entry: CacheEntry, by response: TransportResponse, request: TransportRequest, key: String, sentAt: Date,
        receivedAt: Date, forced: TimeInterval?, options: Options
    ) async -> TransportResponse {
        response.body.cancel()
        var head = entry.receivedHead
        head.headerFields = Self.updatedFields(head.headerFields, with: response.head.headerFields)
        let updated = entry.revalidated(
            head: head, varyingFields: Self.varyingFields(of: head.headerFields, for: request) ?? entry.varyingFields,
            requestTime: sentAt, responseTime: receivedAt)
        revalidations.add(1, ordering: .relaxed)
        logger?.debug("cache revalidated \(LogRedaction.redactedURL(key))")
        if !RequestFacts(request.head.headerFields).control.noStore {
            await perform(store(updated))
        }
        let freshness = freshness(of: updated, forced: forced, options: options)
        var served = Self.served(
            updated, url: key, freshness: freshness, as: .revalidated, method: request.head.method)
        // The revalidation's own transfer answered: its metrics go on with the stored body.
        served.metrics = response.metrics
        return served
    }

    /// What the storage still needs after an answer, when it could not be done without
    /// suspending.
    enum StorageWork {
        /// Nothing.
        case none
        /// Store the entry, waiting for the storage (a disk storage's writes waiting are full,
        /// or a storage that only stores through `async` calls).
        case store(CacheEntry)
        /// Remove the entry under the key: a new answer makes it outdated.
        case remove(String)
        /// Each of these, in order.
        case several([StorageWork])
    }

    /// A response from the network: marked as a miss, and stored when allowed (a streamed
    /// body is stored when it has been read to its end).
    ///
    /// Synchronous, and it builds and copies nothing on the way: of an engine's head that has
    /// not been built, only the fields it asks about are made from the received lines (and
    /// nothing at all when the head's signature rules them all out), and the mark is appended
    /// to that head, after its lines, when the head is built (in place when the response alone
    /// holds the head, else to a new head sharing the lines); a built head gets the mark in its own
    /// fields (which the engine or transport made for this response alone). The entry shares
    /// the marked head, still unbuilt, and the body with the response (the fields a stored head
    /// leaves out, `Connection` and the mark among them, are left out when the entry is read),
    /// and the storage is handed the entry without suspending when it can take it so.
    ///
    /// - Returns: The response, and what the storage still needs, done by the caller before it
    ///   returns the response.
    private func fromNetwork(
        _ response: consuming TransportResponse, request: TransportRequest, facts: RequestFacts, key: String,
        sentAt: Date, receivedAt: Date, forced: TimeInterval?, stored: Stored, options: Options
    ) -> (TransportResponse, StorageWork) {
        let old = stored.match
        misses.add(1, ordering: .relaxed)
        // The fields the cache reads, alone when the engine's head has not been built: building
        // every field to read a few would cost more than the rest of a miss.
        let isWhole = response.lazyHead.received.map(\.isBuilt) ?? true
        let read = response.lazyHead.fields(keeping: Self.fieldsReadOnMiss)
        let answer = read.map(ResponseFacts.init) ?? ResponseFacts()
        // The mark goes after the received lines of a head nobody has read (in place, when the
        // response holds the only reference to it), else into the built fields; the entry
        // shares the marked head, whose mark is left out whenever an entry's head is read.
        if answer.isMarked || !response.lazyHead.appendUnbuilt(Self.missMark) {
            Self.markMiss(&response.head.headerFields, alreadyMarked: answer.isMarked)
        }
        let entryHead = response.lazyHead
        guard request.head.method == .get else { return (response, .none) }
        // Decided before anything else: most answers that may not be stored cost nothing more.
        guard
            let varying = storableVaryingFields(
                response, read, answer, isWhole: isWhole, request: request, facts: facts, key: key, forced: forced,
                options: options)
        else {
            logger?.debug("cache miss \(LogRedaction.redactedURL(key)), not stored")
            // A new answer that may not be stored makes the old one outdated; an error keeps it.
            guard let old, response.status.code < 500 else { return (response, .none) }
            return (response, .remove(old.key))
        }
        logger?.debug("cache miss \(LogRedaction.redactedURL(key)), storing")
        let (group, moved) = Self.placement(of: varying, key: key, stored: stored)
        let making = moved.map(store) ?? .none
        if let body = response.body.collectedData {
            guard body.count <= options.maximumEntrySize else {
                return (response, old.map { .remove($0.key) } ?? .none)
            }
            var entry = CacheEntry(
                key: key, lazyHead: entryHead, body: body, varyingFields: varying, requestTime: sentAt,
                responseTime: receivedAt)
            // Set only when there is one: a setter makes the entry's parts anew.
            if let group { entry.variantGroup = group }
            return (response, Self.both(making, store(entry)))
        }
        let recorder = RecordingBodyStream(body: response.body, limit: options.maximumEntrySize) {
            [self] body in
            var entry = CacheEntry(
                key: key, lazyHead: entryHead, body: body, varyingFields: varying, requestTime: sentAt,
                responseTime: receivedAt)
            // Set only when there is one: a setter makes the entry's parts anew.
            if let group { entry.variantGroup = group }
            await perform(store(entry))
        }
        response.body = ResponseBody(stream: recorder)
        return (response, Self.both(making, old.map { .remove($0.key) } ?? .none))
    }

    /// Two pieces of storage work as one.
    private static func both(_ first: StorageWork, _ second: StorageWork) -> StorageWork {
        if case .none = first { return second }
        if case .none = second { return first }
        return .several([first, second])
    }

    /// Where a new answer with `varying` fields goes: always under the URL's key, where the
    /// newest variant lives. It keeps the group of the entry there (or starts one), and that
    /// entry, when it is another variant, moves under its own variant key beside it, so that
    /// each variant stays reachable.
    ///
    /// - Returns: The new entry's variant group (`nil` for an answer that does not vary), and
    ///   the entry to store under its variant key, if any.
    static func placement(of varying: [CacheEntry.VaryingField], key: String, stored: Stored)
        -> (group: String?, moved: CacheEntry?)
    {
        guard !varying.isEmpty else { return (nil, nil) }
        guard let primary = stored.primary else { return (newVariantGroup(), nil) }
        let group = primary.variantGroup ?? newVariantGroup()
        guard primary.varyingFields != varying, !primary.varyingFields.isEmpty else { return (group, nil) }
        var moved = primary
        moved.key = variantKey(key: key, group: group, fields: primary.varyingFields)
        moved.variantGroup = nil
        return (group, moved)
    }

    /// A new variant group: 16 random hexadecimal digits.
    static func newVariantGroup() -> String {
        EntryName(value: UInt64.random(in: 0...UInt64.max)).description
    }

    /// The key of the variant of `primary`'s URL that `request` would select, by the fields the
    /// primary entry's `Vary` names; `nil` when the primary names no variant group.
    static func variantKey(of primary: CacheEntry, for request: TransportRequest) -> String? {
        guard let group = primary.variantGroup,
            let fields = varyingFields(of: primary.receivedHead.headerFields, for: request), !fields.isEmpty
        else { return nil }
        return variantKey(key: primary.key, group: group, fields: fields)
    }

    /// `key`, a space, and a name of the group and the request's values of the varying fields
    /// (hashed: values may be long). Two variants whose names collide share a key, and the
    /// stored fields, compared on every lookup, tell them apart: a collision is a miss.
    static func variantKey(key: String, group: String, fields: [CacheEntry.VaryingField]) -> String {
        var values = ""
        for field in fields {
            values += field.name
            values += field.value.map { "=" + $0 } ?? ""
            values += "\n"
        }
        return key + " variant=" + group + "-" + EntryName(key: values).description
    }

    /// Hands `entry` to the storage without suspending when it takes it so (a disk storage
    /// keeps it in memory until its writer has written it).
    ///
    /// - Returns: ``StorageWork/store(_:)`` when the storage must be waited for.
    private func store(_ entry: CacheEntry) -> StorageWork {
        do {
            guard try storage.storeWithoutWaiting(entry) else { return .store(entry) }
            stores.add(1, ordering: .relaxed)
        } catch {
            logger?.warning("cache could not store \(LogRedaction.redactedURL(entry.key)): \(error)")
        }
        return .none
    }

    /// Does what the storage still needs, waiting for it.
    private func perform(_ work: StorageWork) async {
        switch work {
        case .none:
            return
        case .remove(let key):
            await storage.removeEntry(forKey: key)
        case .several(let works):
            for work in works { await perform(work) }
        case .store(let entry):
            do {
                try await storage.storeInBackground(entry)
                stores.add(1, ordering: .relaxed)
            } catch {
                logger?.warning("cache could not store \(LogRedaction.redactedURL(entry.key)): \(error)")
            }
        }
    }

    /// Removes the entries an unsafe request changed: its URL, and its response's
    /// same-origin `Location` and `Content-Location`.
    private func invalidate(after request: TransportRequest, response: TransportResponse) async {
        let key = Self.key(for: request)
        var keys = [key]
        if let base = URL(string: key) {
            for name in [HTTPField.Name.location, .contentLocation] {
                guard let value = response.head.headerFields[name],
                    let target = URL(string: value.trimmingSpaces(), relativeTo: base)?.absoluteURL,
                    target.scheme?.lowercased() == base.scheme?.lowercased(),
                    target.host?.lowercased() == base.host?.lowercased(), target.port == base.port
                else { continue }
                keys.append(target.absoluteString)
            }
        }
        for key in keys { await storage.removeEntry(forKey: key) }
        logger?.debug(
            "cache invalidated \(keys.map(LogRedaction.redactedURL).joined(separator: ", ")) after \(request.head.method)"
        )
    }

    private func freshness(of entry: CacheEntry, forced: TimeInterval?, options: Options) -> Freshness {
        Freshness(
            head: entry.receivedHead, requestTime: entry.requestTime, responseTime: entry.responseTime,
            now: options.clock(), forcedLifetime: forced, heuristicCap: options.heuristicCapSeconds)
    }

    /// The varying fields to store with `response`, or `nil` when it may not be stored.
    ///
    /// `fields` are the response's ``fieldsReadOnMiss`` (every field when `isWhole`; `nil` when
    /// the head's signature rules all of them out), and `answer` says which fields it has, so
    /// that a field it lacks is not looked for again (each lookup is a pass over the fields).
    /// The fields of the lifetime are read only when it decides.
    private func storableVaryingFields(
        _ response: TransportResponse, _ fields: HTTPFields?, _ answer: ResponseFacts, isWhole: Bool,
        request: TransportRequest, facts: RequestFacts, key: String, forced: TimeInterval?, options: Options
    ) -> [CacheEntry.VaryingField]? {
        let code = response.status.code
        guard code >= 200, code != 206, code != 304, !facts.control.noStore, response.url == key else { return nil }
        let control = (answer.hasCacheControl ? fields : nil).map(CacheControl.init) ?? CacheControl()
        guard !control.noStore else { return nil }
        if facts.hasAuthorization, !options.cachesAuthorizedResponses {
            guard control.isPublic || control.sharedMaxAge != nil || control.mustRevalidate else { return nil }
        }
        var varying: [CacheEntry.VaryingField] = []
        if answer.hasVary {
            guard let fields, let named = Self.varyingFields(of: fields, for: request) else { return nil }
            varying = named
        }
        if forced != nil, code == 200 { return varying }
        // Useful only when it can be fresh for a while or can be revalidated.
        let timed = response.lazyHead.head(keeping: Self.fieldsOfLifetime)
        let timedFacts = isWhole ? answer : ResponseFacts(timed.headerFields)
        let (lifetime, _) = Freshness.lifetime(
            of: timed, responseTime: options.clock(), heuristicCap: options.heuristicCapSeconds)
        let explicit = control.maxAge != nil || timedFacts.hasExpires || control.isPublic || control.isPrivate
        guard explicit || Freshness.heuristicallyCacheableStatuses.contains(code) else { return nil }
        guard lifetime > 0 || timedFacts.hasValidator else { return nil }
        return varying
    }
}

// MARK: - Rules without state

extension HTTPCache {
    /// The methods RFC 9110 §9.2.1 calls safe; the others invalidate.
    static let safeMethods: Set<HTTPRequest.Method> = [.get, .head, .options, .trace]

    // swift-format-ignore: NeverForceUnwrap
    static let pragma = HTTPField.Name("Pragma")!

    /// Fields a `304` never changes in the stored head (RFC 9111 §3.1, §3.2): framing,
    /// hop-by-hop fields, the stored body's coding, and the cache's own mark.
    static let fieldsNotUpdated: Set<String> = [
        "content-length", "transfer-encoding", "content-encoding", "content-range", "connection", "keep-alive",
        "proxy-connection", "te", "trailer", "upgrade", "x-parley-cache",
    ]

    /// The entry's key: the request's URL as the engine sends it, `scheme://authority/path`
    /// with the scheme in lowercase.
    ///
    /// A request made from a URL carries that text already checked and in this form
    /// (`TransportRequest.validatedURL`): the key is that string, shared, not a copy. Otherwise
    /// it is built from the head's parts alone: the engine validates the request (control bytes
    /// in the URL or a field) before it sends anything, so an invalid request is never stored,
    /// and checking it here too would cost every request a second pass over its fields.
    static func key(for request: TransportRequest) -> String {
        if let validated = request.validatedURL { return validated }
        let head = request.head
        var scheme = head.scheme ?? "http"
        if scheme != "https", scheme != "http", scheme.utf8.contains(where: { (0x41...0x5A).contains($0) }) {
            scheme = scheme.lowercased()
        }
        let authority = head.authority ?? ""
        let path = head.path ?? "/"
        // The bytes copied once into one allocation, where concatenating makes a string per step.
        let count = scheme.utf8.count + 3 + authority.utf8.count + path.utf8.count
        return String(unsafeUninitializedCapacity: count) { buffer in
            guard let base = buffer.baseAddress else { return 0 }
            var offset = copyUTF8(of: scheme, to: base)
            for byte in "://".utf8 {
                base[offset] = byte
                offset += 1
            }
            offset += copyUTF8(of: authority, to: base + offset)
            offset += copyUTF8(of: path, to: base + offset)
            return offset
        }
    }

    /// Copies the UTF-8 bytes of `text` to `target`, which has room for them.
    ///
    /// - Returns: How many bytes were copied.
    private static func copyUTF8(of text: String, to target: UnsafeMutablePointer<UInt8>) -> Int {
        let copied = text.utf8.withContiguousStorageIfAvailable { bytes in
            if let source = bytes.baseAddress { target.update(from: source, count: bytes.count) }
            return bytes.count
        }
        if let copied { return copied }
        var offset = 0
        for byte in text.utf8 {
            target[offset] = byte
            offset += 1
        }
        return offset
    }

    /// The forced lifetime for one request, in seconds: the request's (zero turns it off),
    /// else the cache's.
    static func forcedLifetime(requested: Duration?, options: Options) -> TimeInterval? {
        if let requested { return requested > .zero ? requested.timeInterval : nil }
        return options.forcedSeconds
    }

    /// Whether a stored response may answer the request without the server (RFC 9111 §4.2,
    /// §5.2.1, §5.2.2).
    static func isUsableWithoutValidation(
        _ entry: CacheEntry, _ freshness: Freshness, request: CacheControl
    ) -> Bool {
        let response = CacheControl(entry.receivedHead.headerFields)
        guard !request.noCache else { return false }
        // A forced lifetime overrides the response's own `no-cache` and `must-revalidate`.
        let isForced = freshness.source == .forced
        if !isForced, response.noCache { return false }
        if case .seconds(let maxAge) = request.maxAge, freshness.currentAge > TimeInterval(maxAge) { return false }
        if freshness.isFresh {
            if let minFresh = request.minFresh, freshness.lifetime - freshness.currentAge < TimeInterval(minFresh) {
                return false
            }
            return true
        }
        guard isForced || !response.mustRevalidate, let maxStale = request.maxStale else {
            return false
        }
        guard let limit = maxStale else { return true }
        return freshness.staleness <= TimeInterval(limit)
    }

    /// The request's values of the fields the `Vary` among a head's `fields` names; `nil` for
    /// `Vary: *` or a name that is not a field name, which no request matches.
    static func varyingFields(of fields: HTTPFields, for request: TransportRequest) -> [CacheEntry.VaryingField]? {
        var names: [String] = []
        for value in fields[values: .vary] {
            for member in value.split(separator: ",") {
                let name = String(member).trimmingSpaces().lowercased()
                guard !name.isEmpty else { continue }
                if !names.contains(name) { names.append(name) }
            }
        }
        var fields: [CacheEntry.VaryingField] = []
        for name in names {
            guard name != "*", let fieldName = HTTPField.Name(name) else { return nil }
            let values = request.head.headerFields[values: fieldName]
            let normalised = values.flatMap { $0.split(separator: ",") }.map { String($0).trimmingSpaces() }
            fields.append(
                CacheEntry.VaryingField(name: name, value: values.isEmpty ? nil : normalised.joined(separator: ",")))
        }
        return fields
    }

    /// Whether the request's varying fields are those stored with the entry.
    static func varyMatches(_ entry: CacheEntry, _ request: TransportRequest) -> Bool {
        guard let current = varyingFields(of: entry.receivedHead.headerFields, for: request) else { return false }
        return current == entry.varyingFields
    }

    /// The request with `If-None-Match` (from `ETag`) and `If-Modified-Since` (from
    /// `Last-Modified`); `nil` when the entry has neither.
    static func conditionalRequest(_ request: TransportRequest, for entry: CacheEntry) -> TransportRequest? {
        let etag = entry.receivedHead.headerFields[.eTag]
        let lastModified = entry.receivedHead.headerFields[.lastModified]
        guard etag != nil || lastModified != nil else { return nil }
        var conditional = request
        if let etag { conditional.head.headerFields[.ifNoneMatch] = etag }
        if let lastModified { conditional.head.headerFields[.ifModifiedSince] = lastModified }
        return conditional
    }

    /// Whether a `304` speaks of the stored version: its `ETag`, when both have one, matches
    /// (weak comparison, RFC 9110 §8.8.3.2).
    static func validatorsAgree(_ stored: HTTPResponse, _ notModified: HTTPResponse) -> Bool {
        guard let old = stored.headerFields[.eTag], let new = notModified.headerFields[.eTag] else { return true }
        func opaque(_ tag: String) -> String {
            let trimmed = tag.trimmingSpaces()
            return trimmed.hasPrefix("W/") ? String(trimmed.dropFirst(2)) : trimmed
        }
        return opaque(old) == opaque(new)
    }

    /// The stored fields updated with a `304`'s (or a `HEAD`'s): each field it carries replaces
    /// the stored fields of that name, except ``fieldsNotUpdated`` and those its `Connection`
    /// names.
    static func updatedFields(_ stored: HTTPFields, with notModified: HTTPFields) -> HTTPFields {
        var result = stored
        var replaced: Set<HTTPField.Name> = []
        let connectionNamed = CacheEntry.connectionNamed(notModified)
        for field in notModified
        where !fieldsNotUpdated.contains(field.name.canonicalName)
            && !connectionNamed.contains(field.name.canonicalName)
        {
            if replaced.insert(field.name).inserted {
                result[values: field.name] = notModified[values: field.name]
            }
        }
        return result
    }

    /// The response fields every miss reads: whether it may be stored and what it varies on,
    /// and another cache's mark. Of an engine's head that has not been built, a miss makes these
    /// fields alone (most answers have none of them), and ``fieldsOfLifetime`` only when the
    /// lifetime decides whether the answer is worth storing.
    static let fieldsReadOnMiss: FieldNameSet = [.cacheControl, .vary, CacheStatus.headerName]

    /// The response fields its lifetime and validators are read from (`Age` plays no part in a
    /// new answer's lifetime).
    static let fieldsOfLifetime: FieldNameSet = [.cacheControl, .expires, .date, .lastModified, .eTag]

    /// `X-Parley-Cache: miss`, made once: a field built from a name and a value checks the
    /// value every time.
    static let missMark = HTTPField(name: CacheStatus.headerName, value: CacheStatus.miss.rawValue)

    /// Marks `fields` as a miss in place: appended, unless the response carries a mark of its
    /// own (another cache's on the way), which is replaced.
    static func markMiss(_ fields: inout HTTPFields, alreadyMarked: Bool) {
        if alreadyMarked {
            fields[CacheStatus.headerName] = CacheStatus.miss.rawValue
        } else {
            fields.append(missMark)
        }
    }

    /// A stored entry as a response: `Age` set, the mark set (in place of the `miss` mark the
    /// stored head carries, or added), no body for `HEAD`.
    static func served(
        _ entry: CacheEntry, url: String, freshness: Freshness, as status: CacheStatus, method: HTTPRequest.Method
    ) -> TransportResponse {
        var head = entry.headKeepingMark
        head.headerFields[.age] = String(Int64(min(freshness.currentAge, TimeInterval(Int64.max / 2))))
        head.headerFields[CacheStatus.headerName] = status.rawValue
        let body = method == .head ? ResponseBody() : ResponseBody(entry.body)
        return TransportResponse(head: head, body: body, url: url)
    }

    /// The answer to `only-if-cached` with nothing usable stored (RFC 9111 §5.2.1.7).
    static func gatewayTimeout(_ key: String) -> TransportResponse {
        var head = HTTPResponse(status: .gatewayTimeout)
        head.headerFields[CacheStatus.headerName] = CacheStatus.miss.rawValue
        return TransportResponse(head: head, body: ResponseBody(), url: key)
    }
}
