/// The whole live area: a mask on it is a line (or a box) of its own.
public struct Screen: Containable, Hashable {
    /// The screen; there is one.
    public init() {}
    /// `"screen"`.
    public var containerId: String { "screen" }
    /// ``ContainerKind/screen``.
    public var containerKind: ContainerKind { .screen }
}

/// A titled box: a mask is drawn inside it, under the title.
public struct Panel: Containable, Hashable {
    /// The title the box shows.
    public var title: String
    /// The identifier; the title by default.
    public var id: String

    /// Creates a panel.
    ///
    /// - Parameters:
    ///   - title: The title the box shows.
    ///   - id: What identifies it when two panels share a title; the title by default.
    public init(title: String, id: String? = nil) {
        self.title = title
        self.id = id ?? title
    }

    /// ``id``.
    public var containerId: String { "panel:" + id }
    /// ``ContainerKind/panel``.
    public var containerKind: ContainerKind { .panel }
    /// ``title``.
    public var containerTitle: String? { title }
}

/// One row of a list: its label, with the mask beside it.
public struct ListRow: Containable, Hashable {
    /// The row's label, such as a city's name.
    public var label: String
    /// The identifier; the label by default.
    public var id: String

    /// Creates a row.
    public init(label: String, id: String? = nil) {
        self.label = label
        self.id = id ?? label
    }

    /// ``id``.
    public var containerId: String { "row:" + id }
    /// ``ContainerKind/row``.
    public var containerKind: ContainerKind { .row }
    /// ``label``.
    public var containerTitle: String? { label }
}

/// An action line, the console's button: shown disabled while its request runs.
public struct ActionLine: Containable, Hashable {
    /// The action's label, such as `Refresh`.
    public var label: String

    /// Creates an action line.
    public init(label: String) {
        self.label = label
    }

    /// The label.
    public var containerId: String { "action:" + label }
    /// ``ContainerKind/button``.
    public var containerKind: ContainerKind { .button }
    /// ``label``.
    public var containerTitle: String? { label }
}

/// A "refreshing…" header above a list, the console's refresh control.
public struct RefreshHeader: Containable, Hashable {
    /// What the header says while it refreshes; `Refreshing…` by default.
    public var label: String

    /// Creates a header.
    public init(label: String = "Refreshing…") {
        self.label = label
    }

    /// `"refresh:"` and the label.
    public var containerId: String { "refresh:" + label }
    /// ``ContainerKind/refreshHeader``.
    public var containerKind: ContainerKind { .refreshHeader }
    /// ``label``.
    public var containerTitle: String? { label }
}

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
