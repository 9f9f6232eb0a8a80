import Downloads
import Forms
import Foundation
import HTTPTypes
import Synchronization
import Transport

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

// Resumable downloads of `/bytes/{n}`: dropped mid-body, cancelled and resumed, or made by a
// `parley-fetch` child killed with SIGKILL and resumed in process.
extension Soak {
    /// The file sizes, odd so that no chunk boundary lines up with the end.
    static let downloadSizes = [393_223, 1_048_589]

    /// Runs `plan.downloads` downloads, `plan.downloadsInFlight` at a time, and checks each file.
    func runDownloads() async {
        guard plan.downloads > 0 else { return }
        let started = clock.now
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent(
            "parley-soak-\(plan.seed)-\(getpid())")
        try? FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        var references: [Int: Reference] = [:]
        for size in Self.downloadSizes {
            do {
                references[size] = try await reference(size, in: folder)
            } catch {
                report.downloadProblem("could not fetch the reference of /bytes/\(size): \(error)")
                return
            }
        }
        let fixed = references
        await withTaskGroup(of: Void.self) { group in
            var next = 0
            func more() {
                guard next < plan.downloads else { return }
                let index = next
                next += 1
                group.addTask { await self.download(index, references: fixed, folder: folder) }
            }
            for _ in 0..<plan.downloadsInFlight { more() }
            while await group.next() != nil { more() }
        }
        report.took("downloads", clock.now - started)
    }

    /// What the server serves at `/bytes/{n}`: its bytes, fetched once without faults, and
    /// their SHA-256 as `sha256sum` prints it.
    struct Reference: Sendable {
        var bytes: Data
        var sha256: String
    }

    private func reference(_ size: Int, in folder: URL) async throws -> Reference {
        let response = try await transport.data(for: TransportRequest(method: .get, url: "\(baseURL)/bytes/\(size)"))
        let path = folder.appendingPathComponent("reference-\(size)").path
        try response.body.write(to: URL(fileURLWithPath: path))
        var pipe: [Int32] = [0, 0]
        guard Glibc.pipe(&pipe) == 0 else { throw SoakError("cannot make a pipe") }
        let pid = try spawn(["/usr/bin/sha256sum", path], standardOutput: pipe[1])
        close(pipe[1])
        let output = FileHandle(fileDescriptor: pipe[0], closeOnDealloc: true).readDataToEndOfFile()
        _ = await onOwnThread { reap(pid) }
        let digest = String(decoding: output, as: UTF8.self).prefix(64)
        guard digest.count == 64 else { throw SoakError("sha256sum printed '\(digest)'") }
        return Reference(bytes: response.body, sha256: String(digest))
    }

    /// One download, its mode and moments drawn from the seed and `index`.
    private func download(_ index: Int, references: [Int: Reference], folder: URL) async {
        var random = SplitMix64(seed: plan.seed ^ (UInt64(index) &* 0xa076_1d64_78bd_642f) ^ 0xd0)
        let size = Self.downloadSizes[index % Self.downloadSizes.count]
        guard let reference = references[size] else { return }
        let destination = folder.appendingPathComponent("download-\(index).bin")
        let id = 1 << 40 + index * 2
        let chunks = (size + 65_535) / 65_536
        let roll = random.next() % 100
        let mode: String
        if roll < 50 {
            // Dropped mid-body 1 to 3 times; the client's retry policy resumes each time.
            mode = "dropped"
            let form = BytesDownload(
                size: size, destination: destination, sha256: reference.sha256,
                query: [
                    "drop-after": 1 + Int(random.next() % UInt64(size - 1)), "drops": 1 + Int(random.next() % 3),
                    "key": "soak-\(plan.seed)-\(index)",
                ])
            await track(id, mode: mode, destination, client.download(form), cancelAfter: nil)
        } else if roll < 70 {
            // Cancelled at a random moment, then resumed from the partial it kept.
            mode = "cancelled"
            let query: Parameters = ["chunk-delay": 2]
            let form = BytesDownload(size: size, destination: destination, sha256: reference.sha256, query: query)
            let moment = Duration.microseconds(Int64(random.next() % UInt64(chunks * 2_000)))
            let ended = await track(id, mode: mode, destination, client.download(form), cancelAfter: moment)
            if !ended {
                let resume = BytesResume(size: size, destination: destination, sha256: reference.sha256, query: query)
                await track(
                    id + 1, mode: "resumed after cancel", destination, client.download(resume), cancelAfter: nil)
            }
        } else {
            // parley-fetch killed with SIGKILL once its partial holds a random share of the
            // file, then resumed in process.
            mode = "killed"
            let query: Parameters = ["chunk-delay": 3]
            let url = "\(baseURL)/bytes/\(size)?chunk-delay=3"
            let target = 1 + Int(random.next() % UInt64(size - 1))
            do {
                let pid = try spawn([
                    fetchPath, url, "--output", destination.path, "--sha256", reference.sha256, "--quiet",
                ])
                let status = await onOwnThread {
                    killWhenPartial(pid, reaches: target, at: destination.path + ".partial")
                }
                if status == 128 + SIGKILL {
                    report.killed()
                    let resume = BytesResume(
                        size: size, destination: destination, sha256: reference.sha256, query: query)
                    await track(id, mode: "resumed after kill", destination, client.download(resume), cancelAfter: nil)
                } else if status != 0 {
                    report.downloadProblem("parley-fetch of download \(index) exited with status \(status)")
                }
            } catch {
                report.downloadProblem("download \(index): \(error)")
            }
        }
        verify(index, mode: mode, destination, reference)
    }

    /// Runs a download handle to its end; `true` when it succeeded.
    @discardableResult
    private func track(
        _ id: Int, mode: String, _ destination: URL, _ handle: DownloadRequest, cancelAfter: Duration?
    ) async -> Bool {
        let report = report
        let succeeded = SuccessFlag()
        await report.run(id, kind: "download", key: destination.lastPathComponent) {
            handle.observe { event in
                if case .retry = event { report.retried() }
            }
            if let cancelAfter {
                report.cancelRequested()
                Task {
                    try? await Task.sleep(for: cancelAfter)
                    handle.cancel()
                }
            }
            handle.completion { result in
                switch result {
                case .success:
                    succeeded.set()
                    report.end(id, outcome: "download \(mode): success")
                case .failure(let error):
                    let name = Self.name(of: error)
                    if name.hasPrefix("untyped") { report.untypedError("download \(id): \(error)") }
                    if !name.hasSuffix(".cancelled") {
                        say("parley-soak: \(destination.lastPathComponent) (\(mode)) failed: \(error)")
                    }
                    report.end(id, outcome: "download \(mode): \(name)")
                }
            }
        }
        return succeeded.value
    }

    /// Checks that the file is byte-exact, or absent with a partial that is a prefix of it.
    private func verify(_ index: Int, mode: String, _ destination: URL, _ reference: Reference) {
        let manager = FileManager.default
        let partial = destination.path + ".partial"
        if manager.fileExists(atPath: destination.path) {
            guard let bytes = manager.contents(atPath: destination.path), bytes == reference.bytes else {
                report.downloadProblem(
                    "download \(index) (\(mode)) is not byte-exact: it differs from the \(reference.bytes.count) bytes "
                        + "of SHA-256 \(reference.sha256)")
                return
            }
            if manager.fileExists(atPath: partial) || manager.fileExists(atPath: partial + ".json") {
                report.downloadProblem("download \(index) (\(mode)) is complete but left its partial or sidecar")
            }
            report.download("byte-exact")
        } else if let bytes = manager.contents(atPath: partial) {
            if bytes.count <= reference.bytes.count, reference.bytes.prefix(bytes.count) == bytes {
                report.download("absent, partial of \(bytes.count > 0 ? "some" : "no") bytes kept")
            } else {
                report.downloadProblem("download \(index) (\(mode)) left a partial that is not a prefix of the file")
            }
        } else {
            report.download("absent, no partial")
        }
    }

    /// Samples the process once more, after the downloads, and compares it with the sample
    /// after the requests: the downloads and their children must leave no descriptor or thread
    /// behind. It first waits 6 seconds, as the quiet samples do, for Dispatch's idle workers to
    /// end; memory is not compared, as the allocator may keep what the downloads' buffers took.
    func finalSample() async {
        guard let afterRequests = report.sampleAfterRequests, let start = report.firstSample else { return }
        var bounds = plan.bounds
        bounds.residentKiB = Int.max / 2
        try? await Task.sleep(for: .seconds(6))
        let final = ProcessSample.now(requests: report.counts.ended, quiet: true)
        report.sample(final, serverResidentKiB: server.residentKiB)
        let growth = final.growth(since: afterRequests, start: start, bounds: bounds, label: "after the downloads")
        report.grew(growth.map { "\($0); threads now: \(ProcessSample.threadNames().joined(separator: ", "))" })
    }

    /// The watchdog: every quarter of `plan.hangAfter` (so a hang is named within 1.25 times
    /// the limit), names the requests running longer than `plan.hangAfter`; it is not woken more
    /// often, so that it does not keep Dispatch's idle workers alive during the quiet samples.
    func watch() async {
        while !Task.isCancelled {
            try? await Task.sleep(for: plan.hangAfter / 4)
            report.hung(olderThan: plan.hangAfter)
        }
    }
}

/// `GET /bytes/{size}?…` to a file: a fresh download, which discards any earlier partial.
struct BytesDownload: DownloadFormable {
    var size: Int
    var destination: URL
    var sha256: String
    var query: Parameters
    var path: String { "/bytes/\(size)" }
    var parameters: Parameters { query }
    var expectedSHA256: String? { sha256 }
}

/// `GET /bytes/{size}?…` to a file, continuing the partial an earlier run left.
struct BytesResume: DownloadResumeFormable {
    var size: Int
    var destination: URL
    var sha256: String
    var query: Parameters
    var path: String { "/bytes/\(size)" }
    var parameters: Parameters { query }
    var expectedSHA256: String? { sha256 }
}

/// A flag set from a completion handler and read after it ran.
final class SuccessFlag: Sendable {
    private let flag = Mutex(false)

    func set() { flag.withLock { $0 = true } }

    var value: Bool { flag.withLock { $0 } }
}

/// Kills `pid` with SIGKILL once the file at `partial` holds `target` bytes or more, and reaps it;
/// returns its status (128 + 9 when killed, its own when it ended first). Blocks: run it on a
/// thread of its own.
func killWhenPartial(_ pid: pid_t, reaches target: Int, at partial: String) -> Int32 {
    var status: Int32 = 0
    var details = stat()
    while waitpid(pid, &status, WNOHANG) == 0 {
        if stat(partial, &details) == 0, Int(details.st_size) >= target {
            kill(pid, SIGKILL)
            return reap(pid)
        }
        usleep(500)
    }
    return (status & 0x7F) == 0 ? (status >> 8) & 0xFF : 128 + (status & 0x7F)
}
