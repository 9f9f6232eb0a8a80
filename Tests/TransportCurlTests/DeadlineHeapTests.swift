import Testing

@testable import TransportCurl

/// The heap the loop orders its transfers' stall checks in, on instants the test chooses.
///
/// Checked to fail: with `siftDown` always following the left child (not the earlier one),
/// both drained orders come out unsorted.
@Suite struct DeadlineHeapTests {
    final class Item: DeadlineHeapElement {
        let name: Int
        var deadlineHeapIndex: Int?
        init(_ name: Int) { self.name = name }
    }

    static let start = LoopInstant(nanoseconds: 0)

    /// Takes every element in deadline order, rescheduling none.
    static func drain(_ heap: inout DeadlineHeap<Item>) -> [Int] {
        var order: [Int] = []
        let end = start + .seconds(1_000_000)
        while let item = heap.firstDue(at: end) {
            order.append(item.name)
            heap.remove(item)
        }
        return order
    }

    /// Deadlines in seconds, a pseudo-random but fixed permutation with repeats.
    static let deadlines: [Int] = (0..<200).map { ($0 * 7919) % 97 }

    @Test func comesOutInDeadlineOrder() {
        var heap = DeadlineHeap<Item>()
        let items = Self.deadlines.enumerated().map { Item($0.offset) }
        for (item, seconds) in zip(items, Self.deadlines) {
            heap.insert(item, deadline: Self.start + .seconds(seconds))
        }
        #expect(heap.count == 200)
        let order = Self.drain(&heap)
        #expect(order.map { Self.deadlines[$0] } == Self.deadlines.sorted())
        #expect(heap.isEmpty)
        #expect(items.allSatisfy { $0.deadlineHeapIndex == nil })
    }

    @Test func removingAnyElementKeepsTheOrder() {
        var heap = DeadlineHeap<Item>()
        let items = Self.deadlines.enumerated().map { Item($0.offset) }
        for (item, seconds) in zip(items, Self.deadlines) {
            heap.insert(item, deadline: Self.start + .seconds(seconds))
        }
        // Every third element leaves early, as finished transfers do.
        for item in items where item.name % 3 == 0 { heap.remove(item) }
        // Removing one that is no longer there changes nothing.
        heap.remove(items[0])
        let kept = Self.deadlines.enumerated().filter { $0.offset % 3 != 0 }
        #expect(heap.count == kept.count)
        let order = Self.drain(&heap)
        #expect(order.allSatisfy { $0 % 3 != 0 })
        #expect(order.map { Self.deadlines[$0] } == kept.map(\.element).sorted())
    }

    @Test func onlyDueElementsAreLookedAt() {
        var heap = DeadlineHeap<Item>()
        let early = Item(1)
        let late = Item(2)
        heap.insert(late, deadline: Self.start + .seconds(5))
        heap.insert(early, deadline: Self.start + .seconds(1))
        #expect(heap.earliestDeadline == Self.start + .seconds(1))
        #expect(heap.firstDue(at: Self.start) == nil)
        #expect(heap.firstDue(at: Self.start + .seconds(1)) === early)
        // Checked and rescheduled past the other: the other comes first now.
        heap.rescheduleFirst(to: Self.start + .seconds(9))
        #expect(heap.firstDue(at: Self.start + .seconds(1)) == nil)
        #expect(heap.earliestDeadline == Self.start + .seconds(5))
        #expect(heap.firstDue(at: Self.start + .seconds(6)) === late)
        #expect(Set(heap.elements.map(\.name)) == [1, 2])
    }
}
