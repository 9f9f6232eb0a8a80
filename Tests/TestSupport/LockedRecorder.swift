import Transport

/// A list that code running on any thread appends to and a test reads: handlers, plugins,
/// middleware and event callbacks record what they saw here, and the test asserts on ``all``.
///
/// ```swift
/// let events = LockedRecorder<TransferEvent>()
/// request.options.eventHandler = events.handler
/// _ = try await transport.data(for: request)
/// #expect(events.all.contains { … })
/// ```
package final class LockedRecorder<Element: Sendable>: Sendable {
    private let elements = PThreadMutex<[Element]>([])

    /// An empty recorder.
    package init() {}

    /// Records `element` after those already recorded.
    package func append(_ element: Element) {
        elements.withLock { $0.append(element) }
    }

    /// Everything recorded so far, in the order it was appended.
    package var all: [Element] {
        elements.withLock { $0 }
    }

    /// A closure that records what it is called with, for APIs that take a handler.
    package var handler: @Sendable (Element) -> Void {
        { [self] element in append(element) }
    }
}
