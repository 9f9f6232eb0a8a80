/// An object that a ``DeadlineHeap`` can hold: it remembers where in the heap it sits, so that
/// it can be removed in O(log n) without a search.
protocol DeadlineHeapElement: AnyObject {
    /// The element's position in the heap's storage; `nil` while it is in no heap. Only the
    /// heap writes it.
    var deadlineHeapIndex: Int? { get set }
}

/// Objects ordered by a deadline each: the earliest is read in O(1), and an insertion, a
/// removal (of any element) or a change of the earliest one's deadline costs O(log n).
///
/// The loop keeps every attached transfer here, ordered by its next stall check, so that a
/// pass looks only at the transfers whose check is due and never walks them all. Each element
/// stores its own index (``DeadlineHeapElement/deadlineHeapIndex``), which is how it can be
/// removed when it finishes early; an element is in at most one heap at a time.
struct DeadlineHeap<Element: DeadlineHeapElement> {
    private var entries: [(deadline: ContinuousClock.Instant, element: Element)] = []

    /// How many elements the heap holds.
    var count: Int { entries.count }

    /// Whether the heap holds no element.
    var isEmpty: Bool { entries.isEmpty }

    /// The earliest deadline, or `nil` when the heap is empty.
    var earliestDeadline: ContinuousClock.Instant? { entries.first?.deadline }

    /// Every element, in no particular order.
    var elements: [Element] { entries.map(\.element) }

    /// Adds an element that is in no heap, due at `deadline`.
    mutating func insert(_ element: Element, deadline: ContinuousClock.Instant) {
        precondition(element.deadlineHeapIndex == nil, "the element is in a heap already")
        entries.append((deadline, element))
        element.deadlineHeapIndex = entries.count - 1
        siftUp(from: entries.count - 1)
    }

    /// Removes an element, if it is in this heap.
    mutating func remove(_ element: Element) {
        guard let index = element.deadlineHeapIndex, index < entries.count, entries[index].element === element else {
            return
        }
        element.deadlineHeapIndex = nil
        let last = entries.removeLast()
        guard index < entries.count else { return }
        entries[index] = last
        last.element.deadlineHeapIndex = index
        // The moved entry may belong above or below its new place.
        if !siftUp(from: index) { siftDown(from: index) }
    }

    /// The element with the earliest deadline when that deadline is at or before `now`, without
    /// removing it; `nil` when none is due.
    func firstDue(at now: ContinuousClock.Instant) -> Element? {
        guard let first = entries.first, first.deadline <= now else { return nil }
        return first.element
    }

    /// Gives the element with the earliest deadline a new deadline (the element that
    /// ``firstDue(at:)`` returned, once it has been looked at).
    mutating func rescheduleFirst(to deadline: ContinuousClock.Instant) {
        guard !entries.isEmpty else { return }
        entries[0].deadline = deadline
        siftDown(from: 0)
    }

    /// Removes every element.
    mutating func removeAll() {
        for entry in entries { entry.element.deadlineHeapIndex = nil }
        entries.removeAll()
    }

    /// Moves the entry at `index` up while it is earlier than its parent.
    ///
    /// - Returns: Whether it moved.
    @discardableResult
    private mutating func siftUp(from index: Int) -> Bool {
        var child = index
        while child > 0 {
            let parent = (child - 1) / 2
            guard entries[child].deadline < entries[parent].deadline else { break }
            swapAt(child, parent)
            child = parent
        }
        return child != index
    }

    /// Moves the entry at `index` down while a child is earlier.
    private mutating func siftDown(from index: Int) {
        var parent = index
        while true {
            let left = 2 * parent + 1
            guard left < entries.count else { return }
            let right = left + 1
            let earlier = right < entries.count && entries[right].deadline < entries[left].deadline ? right : left
            guard entries[earlier].deadline < entries[parent].deadline else { return }
            swapAt(parent, earlier)
            parent = earlier
        }
    }

    private mutating func swapAt(_ first: Int, _ second: Int) {
        entries.swapAt(first, second)
        entries[first].element.deadlineHeapIndex = first
        entries[second].element.deadlineHeapIndex = second
    }
}
