import Foundation
import HTTPTypes
import MockBackend
import TestSupport
import Testing
import Transport
import TransportCurl

/// The loop on libcurl's socket interface, end to end on loopback: thousands of sockets in
/// one epoll set, shutdown in every state a transfer can be in, sockets libcurl stops and
/// starts watching as a transfer pauses, timers that fire with no socket activity, and HTTP/2
/// streams sharing one socket.
@Suite struct EventLoopTests {
    /// 1,000 requests at once over one loop, on up to 250 connections (the rest wait in libcurl
    /// for one), each for a file of its own length that nginx serves: each completes exactly
    /// once (one final `.metrics` event per request, and a second completion would emit
    /// another) with its own body. nginx, not the in-process mock server, which accepts too
    /// slowly on a busy test run; and not more, because the whole run shares two cores with
    /// suites whose servers must keep time (2,000 over 500 connections passed alone).
    ///
    /// Checked to fail: with `finish` completing each transfer twice (`transfer.complete` called
    /// again), every request counted two completions.
    @Test(
        .enabled(if: ExternalServers.nginxAvailable, "nginx is not running: use `make test`"), .timeLimit(.minutes(3)))
    func thousandsOfTransfersInFlightEachCompleteOnceWithTheirOwnBody() async throws {
        let count = 1000
        let connections = 250
        try raiseDescriptorLimit(toAtLeast: connections + 512)
        let plainURL = try ExternalServers.require(ExternalServers.nginxURL, "PARLEY_NGINX_URL")
        let root = try ExternalServers.require(ExternalServers.nginxRoot, "PARLEY_NGINX_ROOT")
        let folder = URL(fileURLWithPath: root).appendingPathComponent("event-loop")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        for index in 0..<count {
            try pattern(0..<Self.length(of: index)).write(to: folder.appendingPathComponent("\(index).bin"))
        }
        let completions = PThreadMutex([Int](repeating: 0, count: count))
        try await withTransport(
            .with {
                $0.maximumConnectionsPerHost = connections
                $0.maximumTotalConnections = connections
            }
        ) { transport in
            let results = try await withThrowingTaskGroup(of: (Int, Data, Bool).self) { group in
                for index in 0..<count {
                    // On the loop's own executor, so as to leave the cooperative pool to the
                    // other suites of the run.
                    group.addTask(executorPreference: transport.taskExecutor) {
                        var request = try TransportRequest(method: .get, url: "\(plainURL)/event-loop/\(index).bin")
                        // A busy machine can drop SYNs of so many connects at once; the kernel
                        // retries them after 1, 3, 7, 15 s, which the default 10 s would cut short.
                        request.options.connectTimeout = .seconds(60)
                        request.options.eventHandler = { event in
                            if case .metrics = event { completions.withLock { $0[index] += 1 } }
                        }
                        let response = try await transport.data(for: request)
                        return (index, response.body, response.metrics?.reusedConnection ?? true)
                    }
                }
                return try await group.reduce(into: [(Int, Data, Bool)]()) { $0.append($1) }
            }
            #expect(results.count == count)
            #expect(Set(results.map(\.0)).count == count)
            let wrong = results.filter { $0.1 != pattern(0..<Self.length(of: $0.0)) }.map(\.0)
            #expect(wrong.isEmpty, "requests with a wrong body: \(wrong.prefix(10))")
            let counts = completions.withLock { $0 }
            let notOnce = counts.indices.filter { counts[$0] != 1 }
            #expect(notOnce.isEmpty, "requests not completed exactly once: \(notOnce.prefix(10))")
            // Most of the 250 connections were opened: that many sockets were watched at once
            // (a few requests may reuse one that an early request has freed instead).
            let newConnections = results.filter { !$0.2 }.count
            #expect(newConnections > connections / 2, "only \(newConnections) connections were opened")
        }
    }

    /// The body length of request `index`: its own, so that no two bodies can be swapped unseen.
    static func length(of index: Int) -> Int { 100 + index }

    /// Shutdown while transfers are in every state: waiting in libcurl for a connection
    /// (queued behind the host's one connection), connecting to a peer that never answers,
    /// in the middle of a body the server stopped sending, paused for a consumer that does not
    /// read, and just posted. Every one fails with `.shutDown`, and shutdown returns.
    ///
    /// Checked to fail: with `tearDown` failing the transfers it ends with `.cancelled`, all
    /// six attached ones failed the check (the just-posted one may be a leftover command).
    @Test(.timeLimit(.minutes(1)))
    func shutdownEndsTransfersInEveryState() async throws {
        let unanswered = try UnansweredListener()
        try await MockServer.withRunning { server in
            let transport = try CurlTransport(
                configuration: .with {
                    $0.maximumConnectionsPerHost = 1
                    $0.streamBufferSize = 64 * 1024
                })
            // Mid-body: the head and 1,000 bytes arrived, then nothing.
            let midBody = try await transport.send(TransportRequest(method: .get, url: server.url("/stall?after=1000")))
            let midBodyTask = Task {
                var total = 0
                for try await chunk in midBody.body { total += chunk.count }
                return total
            }
            // Queued: the host's one connection is taken by the stalled transfer.
            let queued = (0..<3).map { _ in
                Task { try await transport.data(for: TransportRequest(method: .get, url: server.url("/echo"))) }
            }
            // Paused: another host name, so another connection; the consumer never reads.
            let pausedURL = "http://localhost:\(server.port)/bytes/\(32 << 20)"
            let paused = try await transport.send(TransportRequest(method: .get, url: pausedURL))
            // Connecting: the peer's accept queue is full, so the connect is never answered.
            var connectingRequest = try TransportRequest(method: .get, url: "http://127.0.0.1:\(unanswered.port)/")
            connectingRequest.options.connectTimeout = .seconds(60)
            let connecting = Task { try await transport.data(for: connectingRequest) }
            try await Task.sleep(for: .milliseconds(300))
            // Just posted: may still be a command in the queue when the loop stops.
            let posted = Task {
                try await transport.data(for: TransportRequest(method: .get, url: server.url("/echo")))
            }

            await transport.shutdown()

            var failures: [(state: String, error: TransportError?)] = [
                ("mid-body", await midBodyTask.result.failure as? TransportError),
                ("connecting", await connecting.result.failure as? TransportError),
                ("posted", await posted.result.failure as? TransportError),
            ]
            for (index, task) in queued.enumerated() {
                failures.append(("queued \(index)", await task.result.failure as? TransportError))
            }
            do {
                for try await _ in paused.body {}
                failures.append(("paused", nil))
            } catch {
                failures.append(("paused", error as? TransportError))
            }
            for (state, error) in failures {
                #expect(error?.category == .shutDown, "\(state): \(String(describing: error))")
            }
            #expect(server.receivedRequests().filter { $0.path == "/echo" }.isEmpty)
        }
    }

    /// A consumer that waits after every few chunks pauses the transfer again and again; each
    /// time libcurl stops watching the socket, and each unpause must get it going again with
    /// no other socket or transfer to wake the loop. The body arrives whole.
    ///
    /// Checked to fail: with the loop ignoring what libcurl's socket and timer callbacks ask
    /// while it applies a delivery or a resume (when `curl_easy_pause` lifts a pause), the
    /// transfer stopped at its first pause and the stall check failed it as stalled.
    @Test(.timeLimit(.minutes(1)))
    func aBodyPausedAgainAndAgainArrivesWholeWithNothingElseInFlight() async throws {
        let length = 2 << 20
        let server = try OwnThreadBodyServer(body: pattern(0..<length))
        try await withTransport(.with { $0.streamBufferSize = 32 * 1024 }) { transport in
            var request = try TransportRequest(method: .get, url: server.url("/bytes"))
            request.options.stallTimeout = .seconds(5)
            let response = try await transport.send(request)
            var received = Data()
            var chunks = 0
            for try await chunk in response.body {
                received += chunk
                chunks += 1
                if chunks % 4 == 0 { try await Task.sleep(for: .milliseconds(20)) }
            }
            #expect(received.count == length)
            #expect(received == pattern(0..<length))
        }
    }

    /// Timers with no socket activity at all: a request whose answer comes after a delay with
    /// nothing else in flight, and connect timeouts to a peer that never answers.
    ///
    /// Checked to fail: with libcurl's timer run only in passes that had socket activity, the
    /// test ran into its time limit.
    @Test(.timeLimit(.minutes(1)))
    func timersFireWithoutSocketActivity() async throws {
        try await MockServer.withRunning { server in
            try await withTransport { transport in
                let delayed = try await transport.data(
                    for: TransportRequest(method: .get, url: server.url("/delay/300")))
                #expect(String(decoding: delayed.body, as: UTF8.self) == "ok")
            }
        }
        let unanswered = try UnansweredListener()
        let port = unanswered.port
        try await withTransport { transport in
            let errors = await withTaskGroup(of: TransportError?.self) { group in
                for _ in 0..<8 {
                    group.addTask {
                        var request = try? TransportRequest(method: .get, url: "http://127.0.0.1:\(port)/")
                        request?.options.connectTimeout = .milliseconds(300)
                        guard let request else { return nil }
                        do {
                            _ = try await transport.data(for: request)
                            return nil
                        } catch {
                            return error as? TransportError
                        }
                    }
                }
                return await group.reduce(into: [TransportError?]()) { $0.append($1) }
            }
            #expect(errors.count == 8)
            #expect(errors.allSatisfy { $0?.category == .connectTimeout }, "\(errors)")
        }
        withExtendedLifetime(unanswered) {}
    }

    /// A loop with nothing in flight sleeps in `epoll_wait`, also after a transfer that
    /// outlived one of libcurl's timers: the connect timeout, which stays in libcurl's timer
    /// tree once the connection is up and comes to nothing when it runs. That timeout action
    /// leaves libcurl no timer, and libcurl 7.x then does not call the timer callback at all
    /// (it calls it with -1 only when it had told the application of a timer since), so the
    /// loop asks libcurl with `curl_multi_timeout` rather than guess.
    ///
    /// Checked to fail: with the loop taking libcurl's silence for a timer still pending and
    /// asking again a millisecond later, the idle loop woke every millisecond (several hundred
    /// context switches in the half second), and went on doing so for as long as the transport
    /// stayed idle; under ThreadSanitizer, where a pass takes longer than that millisecond, such
    /// loops spun without sleeping.
    @Test(.timeLimit(.minutes(1)))
    func anIdleLoopSleepsAfterATransferOutlivedOneOfLibcurlsTimers() async throws {
        try await MockServer.withRunning { server in
            try await withTransport(.with { $0.loopCount = 1 }) { transport in
                // Given a transfer that connects at once and is answered after its connect
                // timeout has come and gone
                var request = try TransportRequest(method: .get, url: server.url("/delay/600"))
                request.options.connectTimeout = .milliseconds(200)
                let delayed = try await transport.data(for: request)
                #expect(String(decoding: delayed.body, as: UTF8.self) == "ok")

                // When the loop then has nothing to do for half a second
                let thread = try await Task(executorPreference: transport.taskExecutor) {
                    // "PID/task/TID": the loop's own thread, as this job runs on it.
                    try FileManager.default.destinationOfSymbolicLink(atPath: "/proc/thread-self")
                }.value
                let before = try Self.voluntaryContextSwitches(of: thread)
                try await Task.sleep(for: .milliseconds(500))
                let after = try Self.voluntaryContextSwitches(of: thread)

                // Then it slept through it instead of waking every millisecond
                #expect(after - before < 50, "the idle loop woke \(after - before) times in 500 ms")
            }
        }
    }

    /// How many times a thread of this process has gone to sleep (`voluntary_ctxt_switches`).
    ///
    /// - Parameter thread: Its `/proc` path below `/proc`, as `/proc/thread-self` names it.
    static func voluntaryContextSwitches(of thread: String) throws -> Int {
        let status = try String(contentsOfFile: "/proc/\(thread)/status", encoding: .utf8)
        let line = try #require(status.split(separator: "\n").first { $0.hasPrefix("voluntary_ctxt_switches:") })
        return try #require(Int(line.split(separator: ":")[1].trimmingCharacters(in: .whitespaces)))
    }

    /// HTTP/2 streams share one socket: several streamed downloads over one TLS connection,
    /// one of them read slowly (paused while the others go on), all arrive whole, and none
    /// opened a connection of its own, though the host's limit would allow it.
    ///
    /// Checked to fail: with `CURLMOPT_PIPELINING` set to `CURLPIPE_NOTHING`, the downloads
    /// opened connections of their own.
    @Test(
        .enabled(if: ExternalServers.nginxAvailable, "nginx is not running: use `make test`"), .timeLimit(.minutes(1)))
    func http2StreamsShareOneSocketWhileOneIsPaused() async throws {
        let tlsURL = try ExternalServers.require(ExternalServers.nginxTLSURL, "PARLEY_NGINX_TLS_URL")
        let caFile = try ExternalServers.require(ExternalServers.testCA, "PARLEY_TEST_CA")
        let metrics = LockedRecorder<TransferMetrics>()
        try await withTransport(
            .with {
                $0.tls.caFile = caFile
                $0.maximumConnectionsPerHost = 8
                $0.streamBufferSize = 32 * 1024
            }
        ) { transport in
            // One request first, so that the others find the connection and multiplex on it.
            _ = try await transport.data(for: TransportRequest(method: .get, url: tlsURL + "/small.bin"))
            let sizes = try await withThrowingTaskGroup(of: Int.self) { group in
                for index in 0..<5 {
                    group.addTask {
                        var request = try TransportRequest(method: .get, url: tlsURL + "/1m.bin")
                        request.options.eventHandler = { event in
                            if case .metrics(let value) = event { metrics.append(value) }
                        }
                        let response = try await transport.send(request)
                        var total = 0
                        for try await chunk in response.body {
                            total += chunk.count
                            if index == 0 { try await Task.sleep(for: .milliseconds(10)) }
                        }
                        return total
                    }
                }
                return try await group.reduce(into: [Int]()) { $0.append($1) }
            }
            #expect(sizes == Array(repeating: 1 << 20, count: 5))
            let all = metrics.all
            #expect(all.count == 5)
            #expect(all.allSatisfy { $0.httpVersion == "2" && $0.reusedConnection }, "\(all)")
        }
    }

    /// Raises this process's soft `RLIMIT_NOFILE` towards the hard limit, or fails the test
    /// when even the hard limit is below `needed`.
    private func raiseDescriptorLimit(toAtLeast needed: Int) throws {
        var limit = rlimit()
        try #require(getrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit) == 0)
        if limit.rlim_cur < rlim_t(needed) {
            limit.rlim_cur = min(limit.rlim_max, rlim_t(needed))
            try #require(setrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit) == 0)
        }
        try #require(limit.rlim_cur >= rlim_t(needed), "the descriptor limit \(limit.rlim_max) is below \(needed)")
    }
}
