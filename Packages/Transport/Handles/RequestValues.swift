/// The values of a handle's runs as an asynchronous sequence: the founding design's
/// observable request, for a handle that produces more than one value.
///
/// Made by ``RequestHandle/values`` and ``RequestHandle/poll(every:)``:
///
/// ```swift
/// for try await forecast in api.forecast(city: "Oslo").decode(Forecast.self).poll(every: .seconds(30)) {
///     show(forecast)
/// }
/// ```
///
/// It yields the value of each run of the handle from the one in progress (or, on a finished
/// handle, the latest one) on:
///
/// - **More than one run.** A request that delivers the cached answer first yields the cached
///   value, then the network's; a ``RequestHandle/reload()`` while the sequence is consumed
///   yields the new run's value; ``RequestHandle/poll(every:)`` runs the handle again after
///   each value, once the interval has passed.
/// - **When it finishes.** When, after a run, no other run is under way or queued (a
///   ``RequestHandle/reload()`` from a handler or from the loop's body, the network turn of a
///   cached-first request) and no poll is to come; when the handle is cancelled (a run ends
///   cancelled); when the consuming task is cancelled. A handle made with `startImmediately:
///   false` waits for its ``RequestHandle/start()``.
/// - **Failures.** A run that fails ends the sequence by throwing its error (after the values
///   before it): `for try await` sees the failure where it happened. Use a retry policy for
///   failures worth riding out. A cancelled run ends it without an error, and a run a
///   ``RequestStop`` stopped yields nothing (a poll goes on after it).
/// - **Polling.** The interval is counted from the moment the consumer asks for the next value
///   after the last one, so a slow consumer is never sent more than it asked for; leaving the
///   loop (or cancelling its task) stops the polling, and no request is sent after it. A
///   ``RequestHandle/cancel()`` stops the run in progress; between runs it has nothing to
///   stop, so leave the loop to stop polling.
///
/// Each iterator watches the handle through a view of its own (see ``RequestHandle/map(_:)``),
/// which goes with the iterator: the values of a decoded handle are its decoded models, each
/// decoded once however many iterators and handlers read it.
public struct RequestValues<Value: Sendable>: AsyncSequence, Sendable {
    /// A value of a run.
    public typealias Element = Value
    /// What a failed run throws.
    public typealias Failure = any Error

    /// The handle whose runs are read.
    private let handle: RequestHandle<Value>
    /// The wait before each run after the first, when the sequence polls.
    private let interval: Duration?

    /// The values of `handle`'s runs, running it again `interval` after each one when given.
    init(handle: RequestHandle<Value>, interval: Duration?) {
        self.handle = handle
        self.interval = interval
    }

    /// An iterator over the values, from the run in progress (or the latest one) on.
    public func makeAsyncIterator() -> Iterator {
        Iterator(feed: RequestValueFeed(watching: handle), interval: interval)
    }

    /// Reads a handle's values, one run at a time.
    public struct Iterator: AsyncIteratorProtocol, Sendable {
        /// The outcomes of the runs, as they end.
        private let feed: RequestValueFeed<Value>
        /// The wait before each run after the first, when polling.
        private let interval: Duration?
        /// Whether a run has ended since the iterator began (so that a poll runs the next).
        private var hasRun = false
        /// Whether the sequence has ended.
        private var ended = false

        init(feed: RequestValueFeed<Value>, interval: Duration?) {
            self.feed = feed
            self.interval = interval
        }

        /// The value of the next run; `nil` once the sequence has ended.
        ///
        /// - Throws: The error of a run that failed (but was not cancelled), once; the sequence
        ///   ends with it.
        public mutating func next() async throws -> Value? {
            while !ended {
                if let interval, hasRun {
                    do {
                        try await Task.sleep(for: interval)
                    } catch {
                        ended = true
                        return nil
                    }
                    feed.reload()
                }
                guard let outcome = await feed.next() else {
                    ended = true
                    return nil
                }
                hasRun = true
                switch outcome {
                case .success(let value):
                    return value
                case .failure(let error) where error is RequestStop:
                    // Stopped on purpose: nothing to yield; a poll runs again, otherwise the
                    // sequence ends unless another run is under way.
                    continue
                case .failure(let error):
                    ended = true
                    if (error as? TransportError)?.category == .cancelled || error is CancellationError { return nil }
                    throw error
                }
            }
            return nil
        }
    }
}

extension RequestHandle {
    /// The values of this handle's runs, from the run in progress (or the latest one) on, as
    /// an asynchronous sequence that ends when no other run is coming; see ``RequestValues``.
    ///
    /// ```swift
    /// let handle = api.request(form, options: CallOptions(deliversCachedFirst: true)).decode(Forecast.self)
    /// for try await forecast in handle.values { show(forecast) }  // the cached one, then the server's
    /// ```
    public var values: RequestValues<Value> {
        RequestValues(handle: self, interval: nil)
    }

    /// The values of this handle's runs, running it again `interval` after each value has been
    /// taken, for as long as the sequence is consumed; see ``RequestValues``.
    ///
    /// ```swift
    /// for try await status in api.status().poll(every: .seconds(5)) {
    ///     if status.isDone { break }  // no request is sent after this
    /// }
    /// ```
    ///
    /// - Parameter interval: The wait between the end of a run (once its value has been taken)
    ///   and the start of the next.
    /// - Returns: The sequence.
    public func poll(every interval: Duration) -> RequestValues<Value> {
        RequestValues(handle: self, interval: interval)
    }
}

/// The outcomes of a handle's runs for one ``RequestValues`` iterator, kept in order until it
/// takes them.
///
/// It watches the handle through a view of its own, with a handler for every outcome (those a
/// ``RequestStop`` ended included), so that what it registered goes when it goes.
final class RequestValueFeed<Value: Sendable>: Sendable {
    /// The view watched.
    private let view: RequestHandle<Value>
    /// The outcomes not taken yet, oldest first.
    private let outcomes = PThreadMutex<[Result<Value, any Error>]>([])

    /// A feed of `handle`'s outcomes from the run in progress (or the latest one) on.
    init(watching handle: RequestHandle<Value>) {
        view = handle.map { value, _ in value }
        // Weakly: the view's handlers live as long as the request.
        view.addOutcomeHandler(seesStops: true) { [weak self] result in
            self?.outcomes.withLock { $0.append(result) }
        }
    }

    /// Runs the handle again (a poll); does nothing while a run is in progress.
    func reload() {
        view.reload()
    }

    /// The next outcome: at once when one is waiting, otherwise once the run under way ends;
    /// `nil` when none is coming (no run under way or queued, or the consuming task was
    /// cancelled).
    func next() async -> Result<Value, any Error>? {
        while true {
            // Read first: once settled, every outcome's handlers have run, this feed's included.
            let settled = view.isSettled
            let taken = outcomes.withLock { $0.isEmpty ? nil : $0.removeFirst() }
            if let taken { return taken }
            if settled || Task.isCancelled { return nil }
            // Returns once the run under way has ended and its outcome has been handed out (the
            // handler above has it by then), or at once when the handle settled meanwhile.
            _ = await view.result
        }
    }
}
