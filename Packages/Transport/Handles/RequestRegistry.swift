public import HTTPTypes

/// The requests of one client that are in flight, so that they can be cancelled by kind: all
/// of them, those with a method and URL, or those a predicate picks.
///
/// A Forms client (`ClientConfiguration`) makes one with its configuration, and every copy of
/// the configuration shares it: each request, upload and download the client sends registers
/// here once its request is built, and leaves when its run ends. A request that is not running
/// (finished, not started, or between two runs of a reloaded handle) is not here, and a
/// request sent after a cancel is not touched by it.
///
/// ```swift
/// client.requests.cancelAll()                                   // leaving the screen
/// client.requests.cancel(method: .get, url: "https://api.example.com/v1/forecast?city=Oslo")
/// client.requests.cancel { $0.url.contains("/v1/search") }      // the searches typed so far
/// ```
///
/// A cancelled request ends as ``RequestHandle/cancel()`` ends it: its handle fails once with
/// a ``TransportError`` of category `cancelled`, and a download keeps its
/// partial file as it does on `cancel()`. A request awaited without a handle (Forms'
/// `data(for:)`) has only its calling task to stop: that task is cancelled, as the caller would
/// cancel it, and its `data(for:)` throws the same error; when it runs inside a handle's
/// operation, that handle's run is cancelled instead.
///
/// Registering costs one lock and a slot in an array that is reused; the registry keeps no
/// finished request alive.
public final class RequestRegistry: Sendable {
    /// A request in flight, as a predicate of ``cancel(where:)`` sees it.
    public struct Request: Sendable {
        /// The request's head: method, scheme, authority, path, fields.
        public let head: HTTPRequest
        /// The request's URL, as it was sent (before any redirect).
        public let url: String

        /// The request's method.
        public var method: HTTPRequest.Method { head.method }
    }

    /// What cancels a registered request.
    private enum Target {
        /// The run of a request handle.
        case run(RequestCancellation)
        /// The task awaiting a request that has no handle.
        case task(CallingTask)
    }

    /// A registered request.
    private struct Entry {
        let request: Request
        /// `nil` for a request sent outside any task, which nothing here can stop.
        let target: Target?
    }

    /// The task awaiting a request without a handle, kept to be cancelled.
    private struct CallingTask: @unchecked Sendable {
        // Safety of @unchecked Sendable: `UnsafeCurrentTask` is not Sendable because it must not
        // outlive its task. The registry holds it only between `register` and `unregister`,
        // both made by that task around its request (the task is alive in between), and calls
        // `cancel()` on it only under the registry's lock, which `unregister` takes too: so the
        // task is running when it is cancelled. Cancelling a task is safe from any thread.
        let task: UnsafeCurrentTask
    }

    /// The slots, reused: a free one is `nil`.
    private struct State {
        var slots: [Entry?] = []
        /// The indices of the free slots.
        var free: [Int] = []
        /// How many slots hold a request.
        var count = 0
    }

    /// A `PThreadMutex`, not a `Mutex`, so that ThreadSanitizer sees the locking (see `PThreadMutex`).
    private let state = PThreadMutex(State())

    /// An empty registry.
    public init() {}

    /// How many registered requests are in flight now.
    public var count: Int {
        state.withLock { $0.count }
    }

    /// Cancels every request in flight.
    ///
    /// - Returns: How many requests were cancelled.
    @discardableResult
    public func cancelAll() -> Int {
        cancel { _ in true }
    }

    /// Cancels every request in flight whose method is `method` and whose URL is `url`
    /// (the whole URL, query included, as it was sent).
    ///
    /// - Parameters:
    ///   - method: The method, such as `.get`.
    ///   - url: The URL, such as `https://api.example.com/v1/forecast?city=Oslo`.
    /// - Returns: How many requests were cancelled.
    @discardableResult
    public func cancel(method: HTTPRequest.Method, url: String) -> Int {
        cancel { $0.method == method && $0.url == url }
    }

    /// Cancels every request in flight that `predicate` picks.
    ///
    /// - Parameter predicate: Called once for each request in flight, under the registry's
    ///   lock: keep it quick, and do not send or cancel requests from it.
    /// - Returns: How many requests were cancelled.
    @discardableResult
    public func cancel(where predicate: (Request) -> Bool) -> Int {
        var runs: [RequestCancellation] = []
        let tasks = state.withLock { state -> Int in
            var tasks = 0
            for case let entry? in state.slots where predicate(entry.request) {
                switch entry.target {
                case nil:
                    break
                case .run(let cancellation):
                    runs.append(cancellation)
                case .task(let calling):
                    // Under the lock: the task is alive until it unregisters (see `CallingTask`).
                    calling.task.cancel()
                    tasks += 1
                }
            }
            return tasks
        }
        // After the lock: a handle's cancel runs its hooks, and may finish it at once.
        for run in runs { run.core.cancel(run: run.run) }
        return tasks + runs.count
    }

    // MARK: - Registration

    /// Where a request was registered: the slot to free.
    package struct Registration: Sendable {
        fileprivate let slot: Int
    }

    /// Registers `request`, sent by the calling task: with the request handle whose run
    /// performs it (the current ``RequestCancellation``), else with the calling task.
    ///
    /// - Returns: What ``unregister(_:)`` takes once the request has ended.
    package func register(_ request: TransportRequest) -> Registration {
        let target: Target?
        if let run = RequestCancellation.current, run.cancels {
            target = .run(run)
        } else {
            target = withUnsafeCurrentTask { task in task.map { .task(CallingTask(task: $0)) } }
        }
        let entry = Entry(request: Request(head: request.head, url: request.url), target: target)
        return state.withLock { state in
            state.count += 1
            if let slot = state.free.popLast() {
                state.slots[slot] = entry
                return Registration(slot: slot)
            }
            state.slots.append(entry)
            return Registration(slot: state.slots.count - 1)
        }
    }

    /// Removes a request that has ended.
    package func unregister(_ registration: Registration) {
        let entry = state.withLock { state -> Entry? in
            let entry = state.slots[registration.slot]
            state.slots[registration.slot] = nil
            state.free.append(registration.slot)
            state.count -= 1
            return entry
        }
        // Let go of after the lock: the last reference to a handle's core may go with it.
        withExtendedLifetime(entry) {}
    }
}
