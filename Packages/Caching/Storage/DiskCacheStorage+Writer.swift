import Dispatch
import Foundation
import Transport

extension DiskCacheStorage {
    /// A version the writer has written to its temporary file, or failed to.
    struct Written {
        var name: EntryName
        var key: String
        var sequence: UInt64
        var outcome: Result<(path: String, size: Int), CacheError>
    }

    /// Starts the writer on the storage's queue; it holds the storage until it has nothing
    /// left to write.
    func startWriter() {
        queue.async { self.writeBatch() }
    }

    /// Writes one batch of pending entries, then queues itself again while more wait, so that
    /// other work on the queue (removing every file) is never held up behind a long stream of
    /// writes.
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
        let written = batch.map { taken in
            Written(
                name: taken.name, key: taken.entry.key, sequence: taken.sequence,
                outcome: Result { () throws(CacheError) in
                    try files.writeTemporary(taken.entry, as: taken.name, maximumBytes: maximumBytes)
                })
        }
        let resumptions = install(written)
        files.flushDirectoryIfSynchronizing()
        resumptions()
        queue.async { self.writeBatch() }
    }

    /// Renames the written files over their entries and records them, journals them in one
    /// write and evicts beyond the cap, all under the lock, so the index changes in the order
    /// the files do. A write that is no longer its name's latest version (replaced or removed
    /// meanwhile) is thrown away.
    ///
    /// - Returns: What resumes the callers this batch finished, to be called outside the lock.
    private func install(_ written: [Written]) -> () -> Void {
        state.withLock { state in
            var finished: [(CheckedContinuation<Void, any Error>, CacheError?)] = []
            var installed: [DiskCacheIndex.Installed] = []
            for item in written {
                guard state.pending.claim(item.name, sequence: item.sequence) else {
                    if case .success(let file) = item.outcome { files.removeFile(atPath: file.path) }
                    continue
                }
                var failure: CacheError?
                switch item.outcome {
                case .success(let file) where state.isClosed:
                    files.removeFile(atPath: file.path)
                    failure = CacheError(
                        .closed, message: "The disk cache at \(directory) was closed; open a new storage.")
                case .success(let file):
                    do {
                        try files.install(file.path, as: item.name)
                        installed.append(.init(name: item.name, size: file.size, generation: item.sequence))
                    } catch {
                        failure = CacheError(
                            .writeFailed,
                            message:
                                "The response for \(LogRedaction.redactedURL(item.key)) could not be stored: \(error).")
                    }
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
            perform(state.index.installed(installed), &state)
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
}
