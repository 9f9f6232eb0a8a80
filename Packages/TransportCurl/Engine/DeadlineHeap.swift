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
///
/// Deadlines are ``LoopInstant``s, plain integers, so that sifting copies and compares no
/// `LoopInstant` (each of which would be a call).
struct DeadlineHeap<Element: DeadlineHeapElement> {
    private struct Entry {
        var deadline: LoopInstant
        let element: Element
    }

    private var entries: [Entry] = []

    /// How many elements the heap holds.
    var count: Int { entries.count }

    /// Whether the heap holds no element.
    var isEmpty: Bool { entries.isEmpty }

    /// The earliest deadline, or `nil` when the heap is empty.
    var earliestDeadline: LoopInstant? { entries.first?.deadline }

    /// Every element, in no particular order.
    var elements: [Element] { entries.map(\.element) }

    /// Adds an element that is in no heap, due at `deadline`.
    mutating func insert(_ element: Element, deadline: LoopInstant) {
        precondition(element.deadlineHeapIndex == nil, "the element is in a heap already")
        entries.append(Entry(deadline: deadline, element: element))
        siftUp(entries.count - 1)
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
        // The moved entry may belong above or below its new place.
        if index > 0 && last.deadline < entries[(index - 1) / 2].deadline {
            siftUp(index)
        } else {
            siftDown(index)
        }
    }

    /// The element with the earliest deadline when that deadline is at or before `now`, without
    /// removing it; `nil` when none is due.
    func firstDue(at now: LoopInstant) -> Element? {
        guard let first = entries.first, first.deadline <= now else { return nil }
        return first.element
    }

    /// Gives the element with the earliest deadline a new deadline (the element that
    /// ``firstDue(at:)`` returned, once it has been looked at).
    mutating func rescheduleFirst(to deadline: LoopInstant) {
        guard !entries.isEmpty else { return }
        entries[0].deadline = deadline
        siftDown(0)
    }

    /// Moves the entry at `index` up past every later parent, then records the index of each
    /// entry that moved (each once).
    private mutating func siftUp(_ index: Int) {
        let moving = entries[index]
        var hole = index
        while hole > 0 {
            let parent = (hole - 1) / 2
            guard moving.deadline < entries[parent].deadline else { break }
            entries[hole] = entries[parent]
            entries[hole].element.deadlineHeapIndex = hole
            hole = parent
        }
        entries[hole] = moving
        moving.element.deadlineHeapIndex = hole
    }

    /// Moves the entry at `index` down past every earlier child, then records the index of each
    /// entry that moved (each once).
    private mutating func siftDown(_ index: Int) {
        let moving = entries[index]
        var hole = index
        while true {
            let left = 2 * hole + 1
            guard left < entries.count else { break }
            let right = left + 1
            let earlier = right < entries.count && entries[right].deadline < entries[left].deadline ? right : left
            guard entries[earlier].deadline < moving.deadline else { break }
            entries[hole] = entries[earlier]
            entries[hole].element.deadlineHeapIndex = hole
            hole = earlier
        }
        entries[hole] = moving
        moving.element.deadlineHeapIndex = hole
    }
}
