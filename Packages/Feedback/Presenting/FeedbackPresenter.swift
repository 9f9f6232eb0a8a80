/// Draws feedback: the one role every presenter plays, in a terminal, in a test, in an app's
/// own interface.
///
/// The Feedback protocols (``Loadable``, ``Progressable``, ``Warnable``, ``Informable``) turn
/// what happens to a request into ``FeedbackEvent``s and hand them to a presenter; the
/// presenter decides what a person sees. FeedbackConsole's `ConsolePresenter` draws them on
/// standard error, FeedbackTesting's `RecordingPresenter` records them for assertions.
///
/// ``present(_:)`` is called from any thread, the engine's own among them (for progress):
/// record the event and return; draw later, on a thread of your own. A presenter keeps what is
/// live itself: the masks stacked per container (the newest shown, each ended by its own
/// ``FeedbackEvent/maskEnded(_:outcome:)``), the transfers, and the log lines a masked region
/// holds back.
public protocol FeedbackPresenter: Sendable {
    /// Takes one event; must return quickly and never block on drawing.
    func present(_ event: FeedbackEvent)
}
