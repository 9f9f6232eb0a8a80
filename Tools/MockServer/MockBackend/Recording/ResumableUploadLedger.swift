import NIOConcurrencyHelpers

/// The upload resources `/resumable` holds: the bytes each has received, its scripted faults,
/// and whether it is complete or deleted.
final class ResumableUploadLedger: Sendable {
    /// One upload resource.
    struct Resource: Sendable {
        /// The bytes appended so far.
        var bytes: [UInt8] = []
        /// The length the client announced (`Upload-Length`), if any.
        var length: Int?
        /// Whether the upload is complete.
        var complete = false
        /// Whether a `DELETE` removed it.
        var deleted = false
        /// Drop the connection once the offset reaches this, once.
        var dropAfter: Int?
        /// Answer the next append with 409 and no `Upload-Offset`, once.
        var conflictPending = false
        /// The `max-append-size` announced in `Upload-Limit`, if any.
        var maximumAppendSize: Int?
        /// Milliseconds to sleep after each buffer received, to slow an upload down.
        var paceMilliseconds = 0
        /// Bumped by every request to the resource: a transfer of an earlier generation stops
        /// appending, as the draft asks of a server whose client has moved on.
        var generation = 0
    }

    private let resources = NIOLockedValueBox<[Int: Resource]>([:])
    private let nextID = NIOLockedValueBox(1)

    /// Creates a resource and returns its id.
    func create(_ resource: Resource) -> Int {
        let id = nextID.withLockedValue { id in
            defer { id += 1 }
            return id
        }
        resources.withLockedValue { $0[id] = resource }
        return id
    }

    /// Reads or changes a resource; `nil` when there is none with that id.
    func update<Result>(_ id: Int, _ body: (inout Resource) -> Result) -> Result? {
        resources.withLockedValue { resources in
            guard var resource = resources[id] else { return nil }
            let result = body(&resource)
            resources[id] = resource
            return result
        }
    }
}
