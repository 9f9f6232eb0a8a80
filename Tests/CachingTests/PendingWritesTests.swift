import Foundation
import Testing

@testable import Caching

/// The writes a disk storage keeps for its writer, as scripts of steps and what each returns:
/// versions replacing versions, the writer taking and claiming them, the bound, and what a flush
/// waits for.
///
/// Checked to fail: with taken versions still counted against the bound, "taken versions make
/// room" finds the table full; with a replaced version's bytes counted twice, "a newer version
/// of a waiting name needs room only for what it adds" is refused; with `claim` accepting any
/// version of the name, "a version replaced while it is written is thrown away" claims the older
/// one.
@Suite struct PendingWritesTests {
    /// One step and what it must return.
    enum Step: Sendable, CustomStringConvertible {
        /// Stores `name` with a body of `size` bytes (the entry is about 100 bytes larger).
        case admit(String, size: Int, bounded: Bool = true, expect: PendingWrites.Admission)
        /// The writer takes a batch: these names, with these sequence numbers.
        case take(expect: [(String, UInt64)])
        /// The writer comes back with `name`'s version `sequence`: whether it is the latest.
        case claim(String, sequence: UInt64, expect: Bool)
        case drop(String, expect: Bool)
        /// The batch came back empty: whether the writer stops.
        case finishes(expect: Bool)
        /// The oldest store a flush waits for.
        case oldest(expect: UInt64?)
        /// The bytes counted against the bound, in whole MiB (entries of whole MiB bodies).
        case mebibytesWaiting(expect: Int)

        var description: String {
            switch self {
            case .admit(let name, let size, let bounded, _): "admit \(name) (\(size) B\(bounded ? "" : ", unbounded"))"
            case .take: "take a batch"
            case .claim(let name, let sequence, _): "claim \(name) #\(sequence)"
            case .drop(let name, _): "drop \(name)"
            case .finishes: "an empty batch"
            case .oldest: "the oldest store waited for"
            case .mebibytesWaiting: "the bytes waiting"
            }
        }
    }

    struct Script: Sendable, CustomTestStringConvertible {
        var name: String
        var steps: [Step]
        var testDescription: String { name }
    }

    static let mebibyte = 1 << 20

    static let scripts: [Script] = [
        Script(
            name: "the first store starts the writer, the next ones find it running",
            steps: [
                .admit("a", size: 10, expect: .admitted(startsWriter: true)),
                .admit("b", size: 10, expect: .admitted(startsWriter: false)),
                .take(expect: [("a", 1), ("b", 2)]),
                .finishes(expect: true),
                .admit("c", size: 10, expect: .admitted(startsWriter: true)),
            ]),
        Script(
            name: "a newer version replaces one not taken yet, in its place in the queue",
            steps: [
                .admit("a", size: 10, expect: .admitted(startsWriter: true)),
                .admit("b", size: 10, expect: .admitted(startsWriter: false)),
                .admit("a", size: 20, expect: .admitted(startsWriter: false)),
                .take(expect: [("a", 3), ("b", 2)]),
                .take(expect: []),
                .claim("a", sequence: 3, expect: true),
                .claim("b", sequence: 2, expect: true),
                .oldest(expect: nil),
            ]),
        Script(
            name: "a version replaced while it is written is thrown away, and the newer one is written after it",
            steps: [
                .admit("a", size: 10, expect: .admitted(startsWriter: true)),
                .take(expect: [("a", 1)]),
                .admit("a", size: 10, expect: .admitted(startsWriter: false)),
                .claim("a", sequence: 1, expect: false),
                .finishes(expect: false),
                .take(expect: [("a", 2)]),
                .claim("a", sequence: 2, expect: true),
                .take(expect: []),
                .finishes(expect: true),
            ]),
        Script(
            name: "a version dropped while it is written is thrown away",
            steps: [
                .admit("a", size: 10, expect: .admitted(startsWriter: true)),
                .take(expect: [("a", 1)]),
                .drop("a", expect: true),
                .claim("a", sequence: 1, expect: false),
                .drop("a", expect: false),
            ]),
        Script(
            name: "a dropped version not taken yet is skipped by the writer",
            steps: [
                .admit("a", size: 10, expect: .admitted(startsWriter: true)),
                .admit("b", size: 10, expect: .admitted(startsWriter: false)),
                .drop("a", expect: true),
                .take(expect: [("b", 2)]),
            ]),
        Script(
            name: "a flush waits for the oldest store a waiting version stands for",
            steps: [
                .admit("a", size: 10, expect: .admitted(startsWriter: true)),
                .admit("b", size: 10, expect: .admitted(startsWriter: false)),
                .admit("a", size: 10, expect: .admitted(startsWriter: false)),
                .oldest(expect: 1),
                .take(expect: [("a", 3), ("b", 2)]),
                .claim("a", sequence: 3, expect: true),
                .oldest(expect: 2),
                .claim("b", sequence: 2, expect: true),
                .oldest(expect: nil),
            ]),
        Script(
            name: "beyond 8 MiB a bounded store is refused; one entry alone always goes",
            steps: [
                .admit("a", size: 9 * mebibyte, expect: .admitted(startsWriter: true)),
                .admit("b", size: 10, expect: .full),
                .admit("c", size: 10, bounded: false, expect: .admitted(startsWriter: false)),
                .mebibytesWaiting(expect: 9),
            ]),
        Script(
            name: "a newer version of a waiting name needs room only for what it adds",
            steps: [
                .admit("a", size: 5 * mebibyte, expect: .admitted(startsWriter: true)),
                .admit("b", size: 2 * mebibyte, expect: .admitted(startsWriter: false)),
                .admit("b", size: 3 * mebibyte - 4096, expect: .admitted(startsWriter: false)),
                .admit("c", size: mebibyte, expect: .full),
            ]),
        Script(
            name: "taken versions make room",
            steps: [
                .admit("a", size: 5 * mebibyte, expect: .admitted(startsWriter: true)),
                .admit("b", size: 5 * mebibyte, expect: .full),
                .take(expect: [("a", 1)]),
                .mebibytesWaiting(expect: 0),
                .admit("b", size: 5 * mebibyte, expect: .admitted(startsWriter: false)),
            ]),
    ]

    @Test(arguments: scripts)
    func eachStepReturnsWhatItShould(script: Script) {
        var pending = PendingWrites()
        for (number, step) in script.steps.enumerated() {
            let label = Comment(rawValue: "step \(number + 1): \(step)")
            switch step {
            case .admit(let name, let size, let bounded, let expected):
                let entry = CacheEntry.sample(key: "https://example.com/\(name)", body: Data(count: size))
                #expect(pending.admit(entry, as: Self.name(name), bounded: bounded) == expected, label)
            case .take(let expected):
                let batch = pending.takeBatch()
                #expect(batch.map(\.name) == expected.map { Self.name($0.0) }, label)
                #expect(batch.map(\.sequence) == expected.map(\.1), label)
                #expect(batch.allSatisfy { pending.write($0.name)?.isTaken == true }, label)
            case .claim(let name, let sequence, let expected):
                #expect(pending.claim(Self.name(name), sequence: sequence) == expected, label)
            case .drop(let name, let expected):
                #expect(pending.drop(Self.name(name)) == expected, label)
            case .finishes(let expected):
                #expect(pending.writerFinishes() == expected, label)
            case .oldest(let expected):
                #expect(pending.oldestSequence == expected, label)
            case .mebibytesWaiting(let expected):
                #expect(pending.bytes / Self.mebibyte == expected, label)
            }
        }
    }

    @Test func aBatchHoldsAtMost64Entries() {
        var pending = PendingWrites()
        for index in 0..<100 {
            _ = pending.admit(.sample(key: "https://example.com/\(index)"), as: Self.name("\(index)"), bounded: true)
        }
        #expect(pending.takeBatch().count == 64)
        #expect(pending.takeBatch().count == 36)
        #expect(pending.takeBatch().isEmpty)
    }

    static func name(_ text: String) -> EntryName { EntryName(key: "https://example.com/\(text)") }
}
