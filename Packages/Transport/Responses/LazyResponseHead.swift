package import HTTPTypes

/// What ``TransportResponse`` and ``DataResponse`` keep of their head: an `HTTPResponse`
/// someone made or changed, or the head an engine received, built on its first read.
package struct LazyResponseHead: Sendable {
    private enum Storage: Sendable {
        case built(HTTPResponse)
        case received(ReceivedResponseHead)
        /// Nothing, for the moment ``appendUnbuilt(_:)`` holds the received head on its own.
        case lent
    }

    private var storage: Storage

    /// A head made by the caller.
    package init(_ head: HTTPResponse) {
        storage = .built(head)
    }

    /// A head as an engine received it, built on the first read.
    package init(received: ReceivedResponseHead) {
        storage = .received(received)
    }

    /// The head; setting it replaces the received one.
    package var response: HTTPResponse {
        get {
            switch storage {
            case .built(let head): head
            case .received(let received): received.response
            case .lent: Self.neverSeenLent()
            }
        }
        set { storage = .built(newValue) }
    }

    /// The head an engine received, when this is one and nobody has set it since (it may have
    /// been built by a read); `nil` for a head made by the caller.
    package var received: ReceivedResponseHead? {
        switch storage {
        case .built: nil
        case .received(let received): received
        case .lent: Self.neverSeenLent()
        }
    }

    /// The head with at least the fields `names` names: a received head nobody has read gives
    /// those alone, without building the others (see
    /// ``ReceivedResponseHead/head(keeping:)``); any other gives the whole head.
    ///
    /// - Parameter names: The fields the reader asks about.
    package func head(keeping names: FieldNameSet) -> HTTPResponse {
        switch storage {
        case .built(let head): head
        case .received(let received): received.head(keeping: names)
        case .lent: Self.neverSeenLent()
        }
    }

    /// The fields of ``head(keeping:)`` alone: of a received head nobody has read, `nil` when
    /// its signature rules out all of `names`, and nothing is made for that answer (see
    /// ``ReceivedResponseHead/fields(keeping:)``); of any other, every field.
    ///
    /// - Parameter names: The fields the reader asks about.
    package func fields(keeping names: FieldNameSet) -> HTTPFields? {
        switch storage {
        case .built(let head): head.headerFields
        case .received(let received): received.fields(keeping: names)
        case .lent: Self.neverSeenLent()
        }
    }

    /// The status, without building the head.
    package var status: HTTPResponse.Status {
        switch storage {
        case .built(let head): head.status
        case .received(let received): received.status
        case .lent: Self.neverSeenLent()
        }
    }

    /// Appends `field` to a received head nobody has read, as its last field once built: in
    /// place when this value holds the only reference to the head, else into a new head that
    /// shares the lines (``ReceivedResponseHead/adding(_:)``). Nothing is built or copied: a
    /// cache marks every answer it passes on so.
    ///
    /// - Parameter field: The field to append.
    /// - Returns: Whether it was appended; `false`, and nothing changes, for a head that has
    ///   been built or made by the caller, or that has a field appended already.
    package mutating func appendUnbuilt(_ field: HTTPField) -> Bool {
        guard case .received(var received) = storage, !received.isBuilt, !received.hasAddedField else { return false }
        // The head taken out of the storage, so that `received` is its one reference if nobody
        // else holds it.
        storage = .lent
        if isKnownUniquelyReferenced(&received) {
            received.addInPlace(field)
        } else {
            received = received.adding(field)
        }
        storage = .received(received)
        return true
    }

    /// `.lent` lasts only inside ``appendUnbuilt(_:)``, which no reader can interrupt: `self`
    /// is `inout` there, held exclusively.
    private static func neverSeenLent() -> Never {
        preconditionFailure("A response head was read while it was being changed.")
    }
}
