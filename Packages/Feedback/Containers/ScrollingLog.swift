/// A scrolling log, the console's scroll view.
///
/// A mask meant for the log goes to the region it sits in (``enclosingContainer``; the screen
/// when none), because a mask over scrolling lines would scroll away. Lines appended while
/// that region is masked are held and printed, in order, when its last mask ends, so the log
/// never interleaves with the mask.
public struct ScrollingLog: Containable {
    /// The identifier.
    public var id: String
    /// The region the log sits in.
    public var enclosing: (any Containable)?
    /// Where appended lines are presented; `nil` for ``FeedbackSystem/presenter`` (the one
    /// installed when a line is appended).
    public var chosenPresenter: (any FeedbackPresenter)?

    /// Creates a log.
    ///
    /// - Parameters:
    ///   - id: The identifier.
    ///   - enclosing: The region the log sits in; the screen by default.
    ///   - presenter: Where lines go; the bootstrapped presenter by default.
    public init(id: String = "log", in enclosing: (any Containable)? = nil, presenter: (any FeedbackPresenter)? = nil) {
        self.id = id
        self.enclosing = enclosing
        self.chosenPresenter = presenter
    }

    /// The chosen presenter, or the one installed now.
    public var presenter: any FeedbackPresenter { chosenPresenter ?? FeedbackSystem.presenter }

    /// `"log:"` and the identifier.
    public var containerId: String { "log:" + id }
    /// ``ContainerKind/scrollingLog``.
    public var containerKind: ContainerKind { .scrollingLog }
    /// ``enclosing``.
    public var enclosingContainer: (any Containable)? { enclosing }

    /// Prints a line to the log: at once, or after the masks on its region end.
    public func append(_ line: String) {
        presenter.present(.logLine(line, log: containerInfo))
    }
}
