package import HTTPTypes

/// What ``TransportResponse`` and ``DataResponse`` keep of their head: an `HTTPResponse`
/// someone made or changed, or the head an engine received, built on its first read.
package struct LazyResponseHead: Sendable {
    private enum Storage: Sendable {
        case built(HTTPResponse)
        case received(ReceivedResponseHead)
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
        }
    }

    /// The status, without building the head.
    package var status: HTTPResponse.Status {
        switch storage {
        case .built(let head): head.status
        case .received(let received): received.status
        }
    }
}
