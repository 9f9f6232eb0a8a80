import CCurl
import Foundation
import Testing

@testable import TransportCurl

/// What libcurl's socket callback asks, against what the epoll set holds, as a table: the one
/// `epoll_ctl` operation and the events watched afterwards; and how each `epoll_ctl` failure
/// that descriptor reuse causes is recovered.
///
/// Checked to fail: with an interest the set already holds answered by a modification instead
/// of nothing, "the same interest again" and "both ways again" fail; with `EEXIST` on an
/// addition and `ENOENT` on a modification treated as failures, their recovery rows and both
/// tests on a real epoll set fail (the socket is left unwatched).
@Suite struct SocketInterestTests {
    static let inOnly = parley_epoll_in
    static let outOnly = parley_epoll_out
    static let both = parley_epoll_in | parley_epoll_out

    /// One row: libcurl's `what` and what the set holds → the change.
    struct Row: Sendable, CustomTestStringConvertible {
        let name: String
        let what: Int32
        let registered: UInt32
        let operation: SocketInterest.Operation
        let events: UInt32
        var testDescription: String { name }
    }

    static let rows: [Row] = [
        Row(name: "a new socket to read", what: CURL_POLL_IN, registered: 0, operation: .add, events: inOnly),
        Row(name: "a new socket to write", what: CURL_POLL_OUT, registered: 0, operation: .add, events: outOnly),
        Row(name: "a new socket both ways", what: CURL_POLL_INOUT, registered: 0, operation: .add, events: both),
        Row(name: "the same interest again", what: CURL_POLL_IN, registered: inOnly, operation: .none, events: inOnly),
        Row(name: "both ways again", what: CURL_POLL_INOUT, registered: both, operation: .none, events: both),
        Row(
            name: "from writing to reading", what: CURL_POLL_IN, registered: outOnly, operation: .modify, events: inOnly
        ),
        Row(name: "from reading to both", what: CURL_POLL_INOUT, registered: inOnly, operation: .modify, events: both),
        Row(name: "from both to writing", what: CURL_POLL_OUT, registered: both, operation: .modify, events: outOnly),
        Row(name: "remove a watched socket", what: CURL_POLL_REMOVE, registered: both, operation: .remove, events: 0),
        Row(
            name: "remove a socket paused for reading", what: CURL_POLL_REMOVE, registered: inOnly, operation: .remove,
            events: 0),
        Row(name: "remove a socket never added", what: CURL_POLL_REMOVE, registered: 0, operation: .none, events: 0),
        Row(name: "no direction is a removal", what: CURL_POLL_NONE, registered: inOnly, operation: .remove, events: 0),
    ]

    @Test(arguments: rows)
    func decidesOneOperation(_ row: Row) {
        let change = SocketInterest(what: row.what, registered: row.registered)
        #expect(change == SocketInterest(operation: row.operation, events: row.events))
    }

    /// One row: the operation that failed and its `errno` → the recovery.
    struct RecoveryRow: Sendable, CustomTestStringConvertible {
        let operation: SocketInterest.Operation
        let error: Int32
        let errorName: String
        let recovery: SocketInterest.Recovery
        var testDescription: String { "\(operation): \(errorName) → \(recovery)" }
    }

    static let recoveryRows: [RecoveryRow] = [
        RecoveryRow(operation: .add, error: EEXIST, errorName: "EEXIST", recovery: .retry(.modify)),
        RecoveryRow(operation: .modify, error: ENOENT, errorName: "ENOENT", recovery: .retry(.add)),
        RecoveryRow(operation: .remove, error: ENOENT, errorName: "ENOENT", recovery: .gone),
        RecoveryRow(operation: .remove, error: EBADF, errorName: "EBADF", recovery: .gone),
        RecoveryRow(operation: .add, error: EBADF, errorName: "EBADF", recovery: .gone),
        RecoveryRow(operation: .modify, error: EBADF, errorName: "EBADF", recovery: .gone),
        RecoveryRow(operation: .add, error: ENOMEM, errorName: "ENOMEM", recovery: .failed),
        RecoveryRow(operation: .add, error: ENOSPC, errorName: "ENOSPC", recovery: .failed),
        RecoveryRow(operation: .modify, error: ENOMEM, errorName: "ENOMEM", recovery: .failed),
        // Two recoveries never chase each other: a retried addition that meets ENOENT fails.
        RecoveryRow(operation: .add, error: ENOENT, errorName: "ENOENT", recovery: .failed),
        RecoveryRow(operation: .modify, error: EEXIST, errorName: "EEXIST", recovery: .failed),
    ]

    @Test(arguments: recoveryRows)
    func recoversFromDescriptorReuse(_ row: RecoveryRow) {
        #expect(SocketInterest.recovery(after: row.operation, error: row.error) == row.recovery)
    }

    /// What one `wait` of `set` reports, without sleeping.
    static func readyEvents(_ set: EpollSet) -> [Int32: UInt32] {
        var ready: [Int32: UInt32] = [:]
        set.wait(timeout: 0) { descriptor, events in ready[descriptor] = events }
        return ready
    }

    /// A connected pair of local sockets.
    static func socketPair() -> (Int32, Int32) {
        var pair: [Int32] = [-1, -1]
        #expect(socketpair(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0, &pair) == 0)
        return (pair[0], pair[1])
    }

    /// The kernel dropped a closed socket from the set, and its number came back as a new
    /// socket the set still believes it watches: the modification libcurl's next interest
    /// needs meets `ENOENT` and becomes an addition, and the new socket is watched.
    @Test func aReusedNumberTheKernelForgotIsAddedAgain() throws {
        let set = try EpollSet()
        defer { set.close() }
        let (socket, peer) = Self.socketPair()
        defer { close(peer) }
        #expect(set.watch(socket, what: CURL_POLL_IN).watching)
        // Made while the first is open, so that its numbers differ.
        let (other, otherPeer) = Self.socketPair()
        defer { close(otherPeer) }
        close(socket)
        #expect(dup2(other, socket) == socket)
        close(other)
        defer { close(socket) }

        #expect(set.watch(socket, what: CURL_POLL_OUT).watching)
        #expect(set.watchedEvents(of: socket) == Self.outOnly)
        #expect(Self.readyEvents(set)[socket].map { $0 & Self.outOnly } == Self.outOnly)
    }

    /// A socket closed while a copy of it stays open is still in the kernel's set, though
    /// libcurl's removal met `EBADF`; when the number comes back for that same socket, the
    /// addition meets `EEXIST` and becomes a modification, and the socket is watched.
    @Test func aNumberTheKernelStillHoldsIsModifiedInstead() throws {
        let set = try EpollSet()
        defer { set.close() }
        let (socket, peer) = Self.socketPair()
        defer { close(peer) }
        #expect(set.watch(socket, what: CURL_POLL_IN).watching)
        let copy = dup(socket)
        close(socket)
        #expect(set.watch(socket, what: CURL_POLL_REMOVE).watching)
        #expect(set.watchedEvents(of: socket) == 0)
        #expect(dup2(copy, socket) == socket)
        defer {
            close(socket)
            close(copy)
        }

        #expect(set.watch(socket, what: CURL_POLL_OUT).watching)
        #expect(set.watchedEvents(of: socket) == Self.outOnly)
        #expect(Self.readyEvents(set)[socket].map { $0 & Self.outOnly } == Self.outOnly)
    }
}
