import Dispatch
import Foundation
import Transport

extension DiskCacheStorage {
    /// A version the writer has appended to a segment, or failed to.
    struct Written {
        var name: EntryName
        var sequence: UInt64
        var outcome: Result<RecordLocation, CacheError>
    }

    /// The size past which the writer starts a new segment: an eighth of the cap, so that a
    /// segment's unused records are a small part of the directory, between 64 KiB and 4 MiB.
    static func segmentLimit(maximumBytes: Int) -> Int {
        min(4 << 20, max(64 << 10, maximumBytes / 8))
    }

    /// Starts the writer on the storage's queue; it holds the storage until it has nothing
    /// left to write.
    func startWriter() {
        queue.async { self.writeBatch() }
    }

    /// Writes one batch of pending entries, then queues itself again while more wait, so that
    /// other work on the queue (compaction, removing every segment) is never held up behind a
    /// long stream of writes.
    func writeBatch() {
        let (batch, room) = state.withLock { state in
            let batch = state.pending.takeBatch()
            // What was taken made room: the stores waiting for it go on while the batch is written.
            return (batch, batch.isEmpty ? [] : takeRoomWaiters(&state))
        }
        for waiter in room { waiter.resume() }
        guard !batch.isEmpty else {
            // Nothing left (what was pending may have been removed meanwhile): whoever waits
            // for the writes or for room has what it waits for.
            let (waiters, goesOn) = state.withLock { state -> ([CheckedContinuation<Void, Never>], Bool) in
                // A store came in since the batch was taken: it is the writer's.
                guard state.pending.writerFinishes() else { return ([], true) }
                defer {
                    state.flushWaiters = []
                    state.roomWaiters = []
                }
                return (state.flushWaiters.map(\.continuation) + state.roomWaiters, false)
            }
            for waiter in waiters { waiter.resume() }
            if goesOn { queue.async { self.writeBatch() } }
            return
        }
        // Each entry becomes a record as it is, without deflating it: deflating costs more than
        // writing, and compaction deflates the records it copies, away from the busy moments.
        let records = batch.map { taken in
            Result { () throws(CacheError) in try files.record(for: taken.entry, maximumBytes: maximumBytes) }
        }
        let appended = append(records.compactMap { try? $0.get() })
        var locations = appended.locations.makeIterator()
        let written = zip(batch, records).map { taken, record in
            let outcome: Result<RecordLocation, CacheError>
            switch record {
            case .failure(let error):
                outcome = .failure(error)
            case .success:
                switch locations.next() ?? .failure(FileCalls.Failure(action: "write to", path: directory, code: EIO)) {
                case .success(let location):
                    outcome = .success(location)
                case .failure(let failure):
                    outcome = .failure(
                        CacheError(
                            .writeFailed,
                            message: "The response for \(LogRedaction.redactedURL(taken.entry.key)) could not be "
                                + "stored: \(failure). It is answered from the network until the disk accepts it."))
                }
            }
            return Written(name: taken.name, sequence: taken.sequence, outcome: outcome)
        }
        let resumptions = install(written, segmentEnd: appended.segmentEnd)
        resumptions()
        queue.async { self.writeBatch() }
    }

    /// Appends `records` to the segment being written (starting one when there is none or it
    /// has reached ``segmentLimit(maximumBytes:)``), flushed with ``synchronizesToDisk``. After
    /// a failure the segment is closed, so the next append starts a new one. On the queue.
    ///
    /// - Returns: Each record's location or failure, and where the segment now ends.
    func append(_ records: [[UInt8]]) -> (
        locations: [Result<RecordLocation, FileCalls.Failure>], segmentEnd: (segment: UInt64, end: Int)?
    ) {
        guard !records.isEmpty else { return ([], nil) }
        let limit = Self.segmentLimit(maximumBytes: maximumBytes)
        let current = state.withLock { state -> (DiskCacheFiles.Appending?, UInt64) in
            if let appending = state.appending, appending.end < limit { return (appending, 0) }
            state.closeAppendingSegment()
            defer { state.nextSegment += 1 }
            return (nil, state.nextSegment)
        }
        var segment: DiskCacheFiles.Appending
        do {
            segment = try current.0 ?? files.startSegment(current.1)
        } catch {
            let failure = error as? FileCalls.Failure ?? FileCalls.Failure(action: "create", path: directory, code: EIO)
            return (Array(repeating: .failure(failure), count: records.count), nil)
        }
        var locations = files.append(records, to: &segment)
        var failed = locations.contains { if case .failure = $0 { true } else { false } }
        do {
            try files.flushIfSynchronizing(segment)
        } catch {
            // Bytes that may not be on the disk are not promised to be.
            let failure = error as? FileCalls.Failure ?? FileCalls.Failure(action: "flush", path: directory, code: EIO)
            locations = Array(
                repeating: Result<RecordLocation, FileCalls.Failure>.failure(failure), count: locations.count)
            failed = true
        }
        let kept = segment
        state.withLock { state in
            state.appending = kept
            if failed { state.closeAppendingSegment() }
        }
        return (locations, (segment.number, segment.end))
    }

    /// Records the appended records, journals them in one write and evicts beyond the cap, all
    /// under the lock, so the index changes in the order the files do. A write that is no
    /// longer its name's latest version (replaced or removed meanwhile) is left unused.
    ///
    /// - Returns: What resumes the callers this batch finished, to be called outside the lock.
    private func install(_ written: [Written], segmentEnd: (segment: UInt64, end: Int)?) -> () -> Void {
        state.withLock { state in
            var finished: [(CheckedContinuation<Void, any Error>, CacheError?)] = []
            var installed: [DiskCacheIndex.Installed] = []
            for item in written {
                guard state.pending.claim(item.name, sequence: item.sequence) else { continue }
                var failure: CacheError?
                switch item.outcome {
                case .success where state.isClosed:
                    failure = CacheError(
                        .closed, message: "The disk cache at \(directory) was closed; open a new storage.")
                case .success(let location):
                    installed.append(.init(name: item.name, location: location, generation: item.sequence))
                case .failure(let error):
                    failure = error
                }
                if failure != nil {
                    // A failed write leaves no older version behind to be served as current.
                    if state.isClosed {
                        state.index.writeFailedWhileClosed(item.name)
                    } else {
                        perform(state.index.writeFailed(item.name), &state)
                    }
                }
                let waiters = state.storeWaiters.removeValue(forKey: item.name) ?? []
                finished += waiters.map { ($0, failure) }
            }
            if !state.isClosed { perform(state.index.installed(installed, segmentEnd: segmentEnd), &state) }
            let room = takeRoomWaiters(&state)
            var flushed: [CheckedContinuation<Void, Never>] = []
            if !state.flushWaiters.isEmpty {
                let oldest = state.pending.oldestSequence ?? .max
                flushed = state.flushWaiters.filter { $0.sequence < oldest }.map(\.continuation)
                state.flushWaiters.removeAll { $0.sequence < oldest }
            }
            return {
                for (waiter, failure) in finished {
                    if let failure { waiter.resume(throwing: failure) } else { waiter.resume() }
                }
                for waiter in room { waiter.resume() }
                for waiter in flushed { waiter.resume() }
            }
        }
    }

    /// Copies the records still in use in segment `number` to the segment being written,
    /// deflating those that were written as they were, then lets the index take the copies
    /// and delete the segment. Records found damaged are forgotten and counted. On the queue.
    func compact(_ number: UInt64) {
        let live = state.withLock { state in state.isClosed ? [] : state.index.liveRecords(in: number) }
        guard !live.isEmpty else {
            change { $0.index.moved([], from: number, segmentEnd: nil) }
            return
        }
        var copies: [(record: DiskCacheIndex.Installed, bytes: [UInt8])] = []
        var damaged: [DiskCacheIndex.Installed] = []
        for record in live {
            // A segment gone meanwhile (every record of it removed) has nothing left to copy.
            guard let bytes = (try? files.read(record.location)) ?? nil else { continue }
            switch EntryFile.decode(bytes) {
            case .success(let entry):
                let copy =
                    EntryFile.isDeflated(bytes)
                    ? [UInt8](bytes)
                    : (try? files.record(for: entry, maximumBytes: Int.max, compressionLevel: 1)) ?? [UInt8](bytes)
                copies.append((record, copy))
            case .failure:
                damaged.append(record)
            }
        }
        let appended = append(copies.map(\.bytes))
        var moved: [DiskCacheIndex.Installed] = []
        for (copy, location) in zip(copies, appended.locations) {
            guard case .success(let location) = location else { continue }
            moved.append(.init(name: copy.record.name, location: location, generation: copy.record.generation))
        }
        change { state in
            var actions: [DiskCacheIndex.Action] = []
            for record in damaged {
                actions += state.index.readFoundDamage(
                    record.name, record: .init(location: record.location, generation: record.generation))
            }
            return actions + state.index.moved(moved, from: number, segmentEnd: appended.segmentEnd)
        }
    }
}
