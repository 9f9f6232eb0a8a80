public import Transport

/// Many requests run as one: at most a given number at a time, a count of those done as
/// they finish, and one outcome when all are done.
///
/// A batch is itself a ``/Transport/RequestHandle``: chain `success`, `failure` and
/// `completion` on it, await its `value`, `cancel()` it (which cancels every member), and
/// hand it to Feedback's `progress(_:)`, which draws its count ("7/20") as a bar.
///
/// ```swift
/// let forecasts = RequestBatch.all(cities, maximumConcurrent: 3) { city in
///     api.forecast(city: city)
/// }
/// .progress(ProgressType.bar(label: "forecasts"))
/// for case .success(let forecast) in try await forecasts.value { print(forecast.location) }
/// ```
///
/// Two ways to end:
///
/// - `RequestBatch.all` waits for every member and succeeds with every outcome, in the order
///   the members were given, failures included: `[Result<Value, any Error>]`.
/// - `RequestBatch.failFast` succeeds with every value in order, `[Value]`, or fails with the
///   first failure itself: the members in flight are cancelled (their outcomes are
///   `.cancelled`) and those not started never start.
///
/// ## Members
///
/// Members are closures that make a handle, so that a request starts only when a slot is free:
/// the batch calls a closure when a slot frees up, and starts the handle it returns (a handle
/// made with `startImmediately: false` waits for that). The overloads that take a sequence
/// and a closure make one member per element; those that take handles start each handle
/// (`start()`) when its turn comes, so a deferred handle waits for its slot while a handle
/// already running runs whatever the limit.
///
/// Each time a member finishes, the batch's handle reports a
/// ``/Transport/RequestEvent/count(_:)`` with how many are done and how many of those failed;
/// the first, "0 of N", as the batch starts.
///
/// ## Cancellation and reloads
///
/// Cancelling the batch cancels the members in flight, starts no other, and fails the batch
/// with a `.cancelled` ``/Transport/TransportError``; members given as handles that never had
/// their turn are cancelled too. `reload()` runs the batch again: closures make new handles,
/// and handles given as such are reloaded.
///
/// ## Limits and empty batches
///
/// A limit below one fails the batch at once with ``CoordinationError`` of category `.invalidLimit`
/// (and cancels members given as handles); an empty batch succeeds with no outcomes (`[]`)
/// after a count of "0 of 0".
public enum RequestBatch {
    /// How many members run at once unless told otherwise.
    public static let defaultMaximumConcurrent = 4

    // MARK: - Every outcome

    /// A batch that waits for every member and succeeds with their outcomes, in order.
    ///
    /// - Parameters:
    ///   - members: Closures that each make one member's handle, called when its slot frees up.
    ///   - maximumConcurrent: The most members running at a time; 1 or more.
    ///   - startImmediately: Whether the batch starts now (the default) or waits for `start()`.
    /// - Returns: The batch's handle; its value has one outcome per member, in order.
    public static func all<Value: Sendable>(
        _ members: [@Sendable () -> RequestHandle<Value>],
        maximumConcurrent: Int = defaultMaximumConcurrent,
        startImmediately: Bool = true
    ) -> RequestHandle<[Result<Value, any Error>]> {
        makeBatch(
            Members(makers: members), maximumConcurrent: maximumConcurrent, failFast: false,
            startImmediately: startImmediately, finish: { $0 })
    }

    /// A batch of one member per element, that waits for every member and succeeds with their
    /// outcomes, in the order of the elements.
    ///
    /// - Parameters:
    ///   - elements: What the members are made from, such as cities.
    ///   - maximumConcurrent: The most members running at a time; 1 or more.
    ///   - startImmediately: Whether the batch starts now (the default) or waits for `start()`.
    ///   - makeHandle: Makes an element's handle, when its slot frees up.
    /// - Returns: The batch's handle; its value has one outcome per element, in order.
    public static func all<Element: Sendable, Value: Sendable>(
        _ elements: some Sequence<Element>,
        maximumConcurrent: Int = defaultMaximumConcurrent,
        startImmediately: Bool = true,
        _ makeHandle: @escaping @Sendable (Element) -> RequestHandle<Value>
    ) -> RequestHandle<[Result<Value, any Error>]> {
        all(
            elements.map { element in { @Sendable in makeHandle(element) } }, maximumConcurrent: maximumConcurrent,
            startImmediately: startImmediately)
    }

    /// A batch of handles made already, that waits for every one and succeeds with their
    /// outcomes, in order.
    ///
    /// - Parameters:
    ///   - handles: The members; each is started when its turn comes.
    ///   - maximumConcurrent: The most members running at a time; 1 or more.
    ///   - startImmediately: Whether the batch starts now (the default) or waits for `start()`.
    /// - Returns: The batch's handle; its value has one outcome per handle, in order.
    public static func all<Value: Sendable>(
        _ handles: [RequestHandle<Value>],
        maximumConcurrent: Int = defaultMaximumConcurrent,
        startImmediately: Bool = true
    ) -> RequestHandle<[Result<Value, any Error>]> {
        makeBatch(
            Members(handles: handles), maximumConcurrent: maximumConcurrent, failFast: false,
            startImmediately: startImmediately, finish: { $0 })
    }

    // MARK: - Fail fast

    /// A batch that succeeds with every member's value, in order, or fails with the first
    /// failure, cancelling the members in flight and starting no other.
    ///
    /// - Parameters:
    ///   - members: Closures that each make one member's handle, called when its slot frees up.
    ///   - maximumConcurrent: The most members running at a time; 1 or more.
    ///   - startImmediately: Whether the batch starts now (the default) or waits for `start()`.
    /// - Returns: The batch's handle; its value has one value per member, in order.
    public static func failFast<Value: Sendable>(
        _ members: [@Sendable () -> RequestHandle<Value>],
        maximumConcurrent: Int = defaultMaximumConcurrent,
        startImmediately: Bool = true
    ) -> RequestHandle<[Value]> {
        makeBatch(
            Members(makers: members), maximumConcurrent: maximumConcurrent, failFast: true,
            startImmediately: startImmediately, finish: { outcomes in try outcomes.map { try $0.get() } })
    }

    /// A batch of one member per element that succeeds with every value, in the order of the
    /// elements, or fails with the first failure, cancelling the members in flight and
    /// starting no other.
    ///
    /// - Parameters:
    ///   - elements: What the members are made from.
    ///   - maximumConcurrent: The most members running at a time; 1 or more.
    ///   - startImmediately: Whether the batch starts now (the default) or waits for `start()`.
    ///   - makeHandle: Makes an element's handle, when its slot frees up.
    /// - Returns: The batch's handle; its value has one value per element, in order.
    public static func failFast<Element: Sendable, Value: Sendable>(
        _ elements: some Sequence<Element>,
        maximumConcurrent: Int = defaultMaximumConcurrent,
        startImmediately: Bool = true,
        _ makeHandle: @escaping @Sendable (Element) -> RequestHandle<Value>
    ) -> RequestHandle<[Value]> {
        failFast(
            elements.map { element in { @Sendable in makeHandle(element) } }, maximumConcurrent: maximumConcurrent,
            startImmediately: startImmediately)
    }

    /// A batch of handles made already that succeeds with every value, in order, or fails
    /// with the first failure, cancelling the others (those not started yet included).
    ///
    /// - Parameters:
    ///   - handles: The members; each is started when its turn comes.
    ///   - maximumConcurrent: The most members running at a time; 1 or more.
    ///   - startImmediately: Whether the batch starts now (the default) or waits for `start()`.
    /// - Returns: The batch's handle; its value has one value per handle, in order.
    public static func failFast<Value: Sendable>(
        _ handles: [RequestHandle<Value>],
        maximumConcurrent: Int = defaultMaximumConcurrent,
        startImmediately: Bool = true
    ) -> RequestHandle<[Value]> {
        makeBatch(
            Members(handles: handles), maximumConcurrent: maximumConcurrent, failFast: true,
            startImmediately: startImmediately, finish: { outcomes in try outcomes.map { try $0.get() } })
    }

    // MARK: - Running

    /// The batch's handle: a finished failure for a limit below one, otherwise one that runs
    /// the members.
    private static func makeBatch<Value: Sendable, Output: Sendable>(
        _ members: Members<Value>, maximumConcurrent: Int, failFast: Bool, startImmediately: Bool,
        finish: @escaping @Sendable ([Result<Value, any Error>]) throws -> Output
    ) -> RequestHandle<Output> {
        guard maximumConcurrent >= 1 else {
            members.cancelUnstarted(from: 0)
            return RequestHandle(
                finished: .failure(CoordinationError.invalidLimit(maximumConcurrent, of: "RequestBatch")))
        }
        let runs = PThreadMutex(0)
        let batch = RequestHandle<Output>(startImmediately: startImmediately) { events in
            let run = runs.withLock { runs in
                runs += 1
                return runs
            }
            let outcomes = try await BatchRun(
                members: members, run: run, limit: maximumConcurrent, failFast: failFast, events: events
            ).run()
            return .init(value: try finish(outcomes), response: nil)
        }
        // Also when the batch is cancelled before it ever ran: handles given to it would
        // otherwise wait for a start that never comes.
        batch.onCancel { members.cancelUnstarted(from: 0) }
        return batch
    }
}

/// A batch's members: closures that make handles, or handles made already.
private struct Members<Value: Sendable>: Sendable {
    private enum Source: Sendable {
        case makers([@Sendable () -> RequestHandle<Value>])
        case handles([RequestHandle<Value>])
    }

    private let source: Source

    init(makers: [@Sendable () -> RequestHandle<Value>]) { source = .makers(makers) }
    init(handles: [RequestHandle<Value>]) { source = .handles(handles) }

    var count: Int {
        switch source {
        case .makers(let makers): makers.count
        case .handles(let handles): handles.count
        }
    }

    /// Member `index`'s handle for run number `run`, started.
    func start(_ index: Int, run: Int) -> RequestHandle<Value> {
        switch source {
        case .makers(let makers):
            return makers[index]().start()
        case .handles(let handles):
            // The first run takes each handle as it is (running, finished or waiting for its
            // start); later runs run it again.
            return run == 1 ? handles[index].start() : handles[index].reload()
        }
    }

    /// Cancels the members from `index` on that are handles: their turn will not come (a
    /// handle that has finished stays as it is).
    func cancelUnstarted(from index: Int) {
        guard case .handles(let handles) = source, index < handles.count else { return }
        for handle in handles[index...] { handle.cancel() }
    }
}

/// One run of a batch.
private struct BatchRun<Value: Sendable> {
    let members: Members<Value>
    let run: Int
    let limit: Int
    let failFast: Bool
    let events: RequestEventSink

    /// Runs the members, at most `limit` at a time, and returns their outcomes in order.
    func run() async throws -> [Result<Value, any Error>] {
        let total = members.count
        var outcomes = [Result<Value, any Error>?](repeating: nil, count: total)
        var count = CountProgress(completed: 0, failed: 0, total: total)
        events.send(.count(count))
        var firstFailure: (any Error)?
        var started = 0
        await withTaskGroup(of: (Int, Result<Value, any Error>).self) { group in
            while started < min(limit, total) {
                let index = started
                group.addTask { [members, run] in (index, await members.start(index, run: run).result) }
                started += 1
            }
            var stopped = false
            while let (index, result) = await group.next() {
                outcomes[index] = result
                // Once the batch is cancelled, or has failed fast, the members still finishing
                // are being cancelled: they are not counted as done.
                if stopped || Task.isCancelled {
                    stopped = true
                    continue
                }
                count.completed += 1
                if case .failure(let error) = result {
                    count.failed += 1
                    if failFast {
                        firstFailure = error
                        stopped = true
                        group.cancelAll()
                        continue
                    }
                }
                events.send(.count(count))
                guard started < total else { continue }
                let next = started
                group.addTask { [members, run] in (next, await members.start(next, run: run).result) }
                started += 1
            }
        }
        members.cancelUnstarted(from: started)
        if let firstFailure { throw firstFailure }
        try Task.checkCancellation()
        return outcomes.map { $0 ?? .failure(CancellationError()) }
    }
}
