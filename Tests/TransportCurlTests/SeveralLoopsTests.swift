import Foundation
import HTTPTypes
import MockBackend
import TestSupport
import Testing
import Transport

@testable import TransportCurl

/// A transport with several event loops: every transfer completes once, transfers spread over
/// the loops, the connection limits hold for the transport as a whole, connections are reused,
/// HTTP/2 keeps one connection per origin, tasks on a loop's executor stay there, and shutting
/// down (or dropping the transport) stops every loop.
@Suite struct SeveralLoopsTests {
    /// nginx, not the in-process mock server: thousands of connections at once to the mock
    /// server, whose event loops every suite of the run shares, starve the other suites' servers
    /// under a sanitizer (`make sanitize`), and their transfers stall.
    @Test(
        .enabled(if: ExternalServers.nginxAvailable, "nginx is not running: use `make test`"), .timeLimit(.minutes(5)))
    func thousandsOfConcurrentTransfersEachCompleteOnceWithTheirBody() async throws {
        let plainURL = try ExternalServers.require(ExternalServers.nginxURL, "PARLEY_NGINX_URL")
        let folder = try nginxFolder("several-loops")
        let sizes = 1...1500
        for size in sizes { try pattern(0..<size).write(to: folder.appendingPathComponent("\(size).bin")) }
        var configuration = CurlTransport.Configuration()
        configuration.loopCount = 4
        configuration.maximumConnectionsPerHost = 64
        try await withTransport(configuration) { transport in
            #expect(transport.loopCount == 4)
            // Given 3,000 requests at once, each for a body of its own length, half collected
            // and half streamed, sent from tasks on each loop's executor in turn (which leaves
            // the cooperative pool to the other suites of the run)
            let count = 3000
            let completed = LockedRecorder<Int>()
            try await withThrowingTaskGroup(of: Void.self) { group in
                for index in 0..<count {
                    group.addTask(executorPreference: transport.taskExecutor) {
                        let size = sizes.lowerBound + index % sizes.count
                        var request = try TransportRequest(
                            method: .get, url: "\(plainURL)/several-loops/\(size).bin?request=\(index)")
                        // A busy machine can drop SYNs of so many connects at once; the kernel
                        // retries them after 1, 3, 7, 15 s, which the default 10 s would cut short.
                        request.options.connectTimeout = .seconds(60)
                        let body: Data
                        if index.isMultiple(of: 2) {
                            body = try await transport.data(for: request).body
                        } else {
                            var streamed = Data()
                            for try await chunk in try await transport.send(request).body { streamed.append(chunk) }
                            body = streamed
                        }
                        #expect(body == pattern(0..<size), "request \(index)")
                        completed.append(index)
                    }
                }
                try await group.waitForAll()
            }

            // Then each one completed exactly once, and no loop counts one still in flight
            #expect(completed.all.sorted() == Array(0..<count))
            try await waitUntil { transport.loops.inFlight == [0, 0, 0, 0] }
        }
    }

    @Test(.timeLimit(.minutes(1))) func transfersSpreadOverTheLoopsWithinTheTransportsConnectionLimit() async throws {
        try await MockServer.withRunning { server in
            var configuration = CurlTransport.Configuration()
            configuration.loopCount = 4
            configuration.maximumConnectionsPerHost = 8
            try await withTransport(configuration) { transport in
                // Given 64 requests at once to one host, each held by the server for a while
                let count = 64
                let running = Task {
                    try await withThrowingTaskGroup(of: TransferMetrics?.self) { group in
                        for index in 0..<count {
                            group.addTask {
                                try await transport.data(
                                    for: TransportRequest(method: .get, url: server.url("/delay/300?request=\(index)"))
                                ).metrics
                            }
                        }
                        return try await group.reduce(into: [TransferMetrics]()) { if let m = $1 { $0.append(m) } }
                    }
                }

                // Then, while they run, every loop has its part of them
                try await waitUntil { transport.loops.inFlight.reduce(0, +) == count }
                let inFlight = transport.loops.inFlight
                #expect(inFlight.allSatisfy { $0 >= 8 }, "in flight per loop: \(inFlight)")

                // And the transport opened at most the 8 connections the caller allowed, not 8 per loop
                let metrics = try await running.cancellableValue
                #expect(metrics.count == count)
                let opened = metrics.filter { !$0.reusedConnection }.count
                #expect(opened <= 8, "\(opened) connections opened")
            }
        }
    }

    /// The requests are held by their client, not their server: each is a streamed response
    /// from nginx whose body is not read until the check, so that it stays in flight, paused at
    /// its buffer. 900 requests the in-process mock server held would each hold a connection to
    /// it, and starve the other suites' servers under a sanitizer (`make sanitize`).
    @Test(
        .enabled(if: ExternalServers.nginxAvailable, "nginx is not running: use `make test`"), .timeLimit(.minutes(3)))
    func highConnectionLimitsAddLoopsThatTakeTransfersOnlyWhenTheBaseLoopsAreFull() async throws {
        let plainURL = try ExternalServers.require(ExternalServers.nginxURL, "PARLEY_NGINX_URL")
        let length = 64 * 1024
        try pattern(0..<length).write(to: try nginxFolder("several-loops-held").appendingPathComponent("held.bin"))
        let url = "\(plainURL)/several-loops-held/held.bin"
        // Given two base loops and room for 3,000 connections to a host: a third loop
        var configuration = CurlTransport.Configuration()
        configuration.loopCount = 2
        configuration.maximumConnectionsPerHost = 3000
        configuration.streamBufferSize = 4 * 1024
        configuration.receiveBufferSize = 4 * 1024
        try await withTransport(configuration) { transport in
            #expect(transport.loopCount == 3)

            // When a light load runs, the extra loop carries none of it
            var light = try await sendHeld(40, to: url, on: transport, tag: "light")
            #expect(transport.loops.inFlight.reduce(0, +) == 40)
            #expect(transport.loops.inFlight[2] == 0, "in flight per loop: \(transport.loops.inFlight)")
            #expect(try await readWhole(light) == Array(repeating: length, count: 40))
            light = []
            try await waitUntil { transport.loops.inFlight == [0, 0, 0] }

            // When 900 run at once, the base loops fill to 256 each before the extra loop
            // takes any, and then all three share them
            var heavy = try await sendHeld(900, to: url, on: transport, tag: "heavy")
            let inFlight = transport.loops.inFlight
            #expect(inFlight.reduce(0, +) == 900, "in flight per loop: \(inFlight)")
            #expect(inFlight[0] >= 256 && inFlight[1] >= 256, "in flight per loop: \(inFlight)")
            #expect(inFlight[2] >= 256, "in flight per loop: \(inFlight)")

            // Then every request completed once, with its whole body
            #expect(try await readWhole(heavy) == Array(repeating: length, count: 900))
            heavy = []
            try await waitUntil { transport.loops.inFlight == [0, 0, 0] }
        }
    }

    @Test(.timeLimit(.minutes(1))) func requestsToOneHostReuseConnectionsOnEveryLoop() async throws {
        try await MockServer.withRunning { server in
            var configuration = CurlTransport.Configuration()
            configuration.loopCount = 4
            try await withTransport(configuration) { transport in
                // Given requests one at a time to one host
                var sequential: [TransferMetrics] = []
                for index in 0..<20 {
                    let response = try await transport.data(
                        for: TransportRequest(method: .get, url: server.url("/bytes/10?request=\(index)")))
                    sequential.append(try #require(response.metrics))
                }

                // Then they all go to the host's loop and share one connection
                #expect(sequential.filter { !$0.reusedConnection }.count == 1)

                // And given five rounds of 64 at once (16 connections per host: 4 per loop)
                var opened = 0
                for round in 0..<5 {
                    opened += try await withThrowingTaskGroup(of: Bool.self) { group in
                        for index in 0..<64 {
                            group.addTask {
                                let request = try TransportRequest(
                                    method: .get, url: server.url("/delay/20?round=\(round)&request=\(index)"))
                                return try #require(try await transport.data(for: request).metrics).reusedConnection
                            }
                        }
                        return try await group.reduce(0) { $0 + ($1 ? 0 : 1) }
                    }
                }

                // Then the later rounds reuse the connections of the first: at most the limit of
                // 16 is ever opened, beside the first one
                #expect(opened <= 16, "\(opened) connections opened over 320 requests")
            }
        }
    }

    @Test(.enabled(if: ExternalServers.nginxAvailable, "nginx is not running: use `make test`"))
    func http2StreamsToOneOriginShareOneConnectionAcrossLoops() async throws {
        let tlsURL = try ExternalServers.require(ExternalServers.nginxTLSURL, "PARLEY_NGINX_TLS_URL")
        let caFile = try ExternalServers.require(ExternalServers.testCA, "PARLEY_TEST_CA")
        var configuration = CurlTransport.Configuration()
        configuration.loopCount = 4
        configuration.tls.caFile = caFile
        try await withTransport(configuration) { transport in
            // Given 50 requests at once to one HTTPS origin, on a transport with four loops
            let metrics = try await withThrowingTaskGroup(of: TransferMetrics?.self) { group in
                for _ in 0..<50 {
                    group.addTask {
                        try await transport.data(for: TransportRequest(method: .get, url: tlsURL + "/small.bin"))
                            .metrics
                    }
                }
                return try await group.reduce(into: [TransferMetrics]()) { if let m = $1 { $0.append(m) } }
            }

            // Then they are HTTP/2 streams of one connection, as with one loop
            #expect(metrics.count == 50)
            #expect(metrics.allSatisfy { $0.httpVersion == "2" })
            #expect(metrics.filter { !$0.reusedConnection }.count == 1)
        }
    }

    @Test(.timeLimit(.minutes(1))) func tasksOnEachLoopsExecutorSendFromAndResumeOnTheirLoop() async throws {
        try await MockServer.withRunning { server in
            var configuration = CurlTransport.Configuration()
            configuration.loopCount = 4
            try await withTransport(configuration) { transport in
                // Given 64 tasks, each preferring the next loop's executor, each sending a request
                // the server holds for a while
                let count = 64
                let running = Task {
                    try await withThrowingTaskGroup(of: (String?, String?, String?).self) { group in
                        for index in 0..<count {
                            group.addTask(executorPreference: transport.taskExecutor) {
                                let before = currentThreadID()
                                let request = try TransportRequest(
                                    method: .get, url: server.url("/delay/300?request=\(index)"))
                                _ = try await transport.data(for: request)
                                return (before, currentThreadID(), currentThreadName())
                            }
                        }
                        return try await group.reduce(into: []) { $0.append($1) }
                    }
                }

                // Then each loop runs the requests of its 16 tasks
                try await waitUntil { transport.loops.inFlight.reduce(0, +) == count }
                #expect(transport.loops.inFlight == [16, 16, 16, 16])

                // And each task ran on a loop thread and was resumed on the same one, four in all
                let threads = try await running.cancellableValue
                #expect(threads.count == count)
                for (before, after, name) in threads {
                    #expect(before != nil && before == after)
                    #expect(name == "parley-curl")
                }
                #expect(Set(threads.map(\.0)).count == 4)
            }
        }
    }

    @Test(.timeLimit(.minutes(1))) func childTasksInheritTheirParentsLoop() async throws {
        try await MockServer.withRunning { server in
            var configuration = CurlTransport.Configuration()
            configuration.loopCount = 4
            try await withTransport(configuration) { transport in
                // Given a task preferring one loop, whose 16 children send requests
                let running = Task(executorPreference: transport.taskExecutor) {
                    try await withThrowingTaskGroup(of: String?.self) { group in
                        for index in 0..<16 {
                            group.addTask {
                                let request = try TransportRequest(
                                    method: .get, url: server.url("/delay/300?request=\(index)"))
                                _ = try await transport.data(for: request)
                                return currentThreadID()
                            }
                        }
                        return try await group.reduce(into: []) { $0.append($1) }
                    }
                }

                // Then every request runs on that one loop
                try await waitUntil { transport.loops.inFlight.reduce(0, +) == 16 }
                #expect(transport.loops.inFlight.sorted() == [0, 0, 0, 16])
                let threads = try await running.cancellableValue
                #expect(Set(threads).count == 1)
            }
        }
    }

    @Test(.timeLimit(.minutes(1))) func shuttingDownStopsTransfersOnEveryLoop() async throws {
        try await MockServer.withRunning { server in
            var configuration = CurlTransport.Configuration()
            configuration.loopCount = 4
            configuration.maximumConnectionsPerHost = 64
            let transport = try CurlTransport(configuration: configuration)
            // Given 40 requests the server holds for ten minutes, spread over the four loops
            let running = (0..<40).map { index in
                Task {
                    try await transport.data(
                        for: TransportRequest(method: .get, url: server.url("/delay/600000?request=\(index)")))
                }
            }
            try await waitUntil { server.receivedRequests().count { $0.path.hasPrefix("/delay/600000") } == 40 }
            #expect(transport.loops.inFlight.allSatisfy { $0 > 0 }, "\(transport.loops.inFlight)")

            // When the transport shuts down
            await transport.shutdown()

            // Then every one of them fails as shut down, and so does a later request
            for task in running {
                let error = try #require(await task.result.failure as? TransportError)
                #expect(error.category == .shutDown)
            }
            let later = await #expect(throws: TransportError.self) {
                try await transport.data(for: TransportRequest(method: .get, url: server.url("/bytes/1")))
            }
            #expect(later?.category == .shutDown)
        }
    }

    /// Shutdown while each of the loops holds transfers in every state: stalled in the middle
    /// of a body, waiting for the loop's one connection to the host (queued behind the stalled
    /// one), paused for a consumer that does not read, connecting to a peer that never answers,
    /// and just posted. Each loop gets its part from a task preferring its executor. Every one
    /// fails with `.shutDown`, and shutdown returns.
    @Test(.timeLimit(.minutes(1))) func shutdownEndsTransfersInEveryStateOnEveryLoop() async throws {
        let unanswered = try UnansweredListener()
        try await MockServer.withRunning { server in
            // Given two loops, with one connection to each host on each
            var configuration = CurlTransport.Configuration()
            configuration.loopCount = 2
            configuration.maximumConnectionsPerHost = 2
            configuration.streamBufferSize = 64 * 1024
            let transport = try CurlTransport(configuration: configuration)
            #expect(transport.loopCount == 2)
            var midBodies: [Task<Int, any Error>] = []
            var queued: [Task<DataResponse, any Error>] = []
            var paused: [ResponseBody] = []
            var connecting: [Task<DataResponse, any Error>] = []
            let executors = (0..<2).map { _ in transport.taskExecutor }
            for (loop, executor) in executors.enumerated() {
                // Mid-body: the head and 1,000 bytes arrived, then nothing.
                let midBody = try await Task(executorPreference: executor) {
                    try await transport.send(
                        TransportRequest(method: .get, url: server.url("/stall?after=1000&loop=\(loop)")))
                }.cancellableValue
                midBodies.append(
                    Task(executorPreference: executor) {
                        var total = 0
                        for try await chunk in midBody.body { total += chunk.count }
                        return total
                    })
                // Queued: the loop's one connection to the host is taken by the stalled transfer.
                for index in 0..<3 {
                    queued.append(
                        Task(executorPreference: executor) {
                            try await transport.data(
                                for: TransportRequest(
                                    method: .get, url: server.url("/echo?loop=\(loop)&queued=\(index)")))
                        })
                }
                // Paused: another host name, so another connection; the consumer never reads.
                let pausedURL = "http://localhost:\(server.port)/bytes/\(32 << 20)?loop=\(loop)"
                paused.append(
                    try await Task(executorPreference: executor) {
                        try await transport.send(TransportRequest(method: .get, url: pausedURL))
                    }.cancellableValue.body)
                // Connecting: the peer's accept queue is full, so the connect is never answered.
                var connectingRequest = try TransportRequest(
                    method: .get, url: "http://127.0.0.1:\(unanswered.port)/?loop=\(loop)")
                connectingRequest.options.connectTimeout = .seconds(60)
                connecting.append(
                    Task(executorPreference: executor) { try await transport.data(for: connectingRequest) })
            }
            // Each loop holds its six: one mid-body, three queued, one paused, one connecting.
            try await waitUntil { transport.loops.inFlight == [6, 6] }
            try await Task.sleep(for: .milliseconds(300))
            // Just posted: may still be a command in a loop's queue when the loops stop.
            let posted = executors.map { executor in
                Task(executorPreference: executor) {
                    try await transport.data(for: TransportRequest(method: .get, url: server.url("/echo?posted")))
                }
            }

            // When the transport shuts down
            await transport.shutdown()

            // Then every one of them, on both loops, fails as shut down
            var failures: [(state: String, error: TransportError?)] = []
            for (loop, task) in midBodies.enumerated() {
                failures.append(("mid-body on loop \(loop)", await task.result.failure as? TransportError))
            }
            for (index, task) in queued.enumerated() {
                failures.append(
                    ("queued \(index % 3) on loop \(index / 3)", await task.result.failure as? TransportError))
            }
            for (loop, body) in paused.enumerated() {
                do {
                    for try await _ in body {}
                    failures.append(("paused on loop \(loop)", nil))
                } catch {
                    failures.append(("paused on loop \(loop)", error as? TransportError))
                }
            }
            for (loop, task) in connecting.enumerated() {
                failures.append(("connecting on loop \(loop)", await task.result.failure as? TransportError))
            }
            for (loop, task) in posted.enumerated() {
                failures.append(("posted on loop \(loop)", await task.result.failure as? TransportError))
            }
            #expect(failures.count == 14)
            for (state, error) in failures {
                #expect(error?.category == .shutDown, "\(state): \(String(describing: error))")
            }
            #expect(server.receivedRequests().filter { $0.path == "/echo" }.isEmpty)
        }
        withExtendedLifetime(unanswered) {}
    }

    @Test(.timeLimit(.minutes(1))) func droppingTheTransportStopsStreamsOnEveryLoop() async throws {
        try await MockServer.withRunning { server in
            var configuration = CurlTransport.Configuration()
            configuration.loopCount = 4
            var transport: CurlTransport? = try CurlTransport(configuration: configuration)
            // Given four slow streamed bodies, one sent from each loop's executor
            var bodies: [ResponseBody] = []
            for _ in 0..<4 {
                let executor = try #require(transport?.taskExecutor)
                let response = try await Task(executorPreference: executor) { [transport] in
                    try await #require(transport).send(
                        TransportRequest(method: .get, url: server.url("/bytes/4194304?chunk-delay=200")))
                }.cancellableValue
                bodies.append(response.body)
            }
            #expect(transport?.loops.inFlight == [1, 1, 1, 1])

            // When the last reference to the transport goes
            transport = nil

            // Then every stream ends with the shutdown rather than running on
            for body in bodies {
                let error = await #expect(throws: TransportError.self) {
                    for try await _ in body {}
                }
                #expect(error?.category == .shutDown)
            }
        }
    }

    @Test(.timeLimit(.minutes(1))) func theBenchmarkPeerRunsOnTheLoopsItIsGiven() async throws {
        try await MockServer.withRunning { server in
            // Given parley-bench with three loops and 8 connections for its 8 workers (3, 3 and 2
            // on the loops)
            let run = try await ChildProcess.launch(
                ChildProcess.siblingExecutable("parley-bench"),
                arguments: [
                    "--url", server.url("/bytes/10"), "--requests", "400", "--concurrency", "8", "--loops", "3",
                    "--count-connections",
                ])

            // Then every request succeeds on the three loops, which open at most the 8 connections
            // allowed, and more than one loop's share of them
            #expect(run.status == 0, "parley-bench failed: \(run.output)")
            #expect(run.output.contains("ok=400 errors=0"))
            let counted = try #require(
                run.output.firstMatch(of: /connections opened: (\d+) for 400 requests on 3 loop\(s\)/), "\(run.output)")
            let opened = try #require(Int(counted.1))
            #expect(opened > 3 && opened <= 8, "\(opened) connections opened")

            // And no loops is refused before any request
            let refused = try await ChildProcess.launch(
                ChildProcess.siblingExecutable("parley-bench"),
                arguments: ["--url", server.url("/bytes/10"), "--loops", "0"])
            #expect(refused.status != 0)
            #expect(refused.output.contains("--loops must be at least 1."), "\(refused.output)")
        }
    }

    /// The default is a loop per processor, at most 8: on a machine with two or more, every test
    /// that takes the default configuration (and every sanitizer run of them) runs several loops.
    @Test func theDefaultRunsALoopPerProcessorUpToEight() throws {
        let processors = ProcessInfo.processInfo.activeProcessorCount
        #expect(CurlTransport.Configuration.defaultLoopCount == min(max(1, processors), 8))
        let transport = try CurlTransport()
        #expect(transport.loopCount == min(max(1, processors), 8))
        transport.loops.requestShutdown()
    }

    @Test func aLoopCountBelowOneIsAClearError() {
        var configuration = CurlTransport.Configuration()
        configuration.loopCount = 0
        let error = #expect(throws: TransportError.self) { try CurlTransport(configuration: configuration) }
        #expect(error?.message.contains("loopCount is 0") == true)
        #expect(error?.message.contains("at least one") == true)
    }

    @Test func fewerLoopsRunWhenTheConnectionLimitAllowsFewer() throws {
        var configuration = CurlTransport.Configuration()
        configuration.loopCount = 4
        configuration.maximumConnectionsPerHost = 2
        let transport = try CurlTransport(configuration: configuration)
        #expect(transport.loopCount == 2)
        transport.loops.requestShutdown()
    }
}

/// The kernel's id of the calling thread, from `/proc/thread-self` (`PID/task/TID`).
private func currentThreadID() -> String? {
    try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/thread-self")
}

/// The name the system shows for the calling thread (the engine names its loop threads).
private func currentThreadName() -> String? {
    (try? String(contentsOfFile: "/proc/thread-self/comm", encoding: .utf8))?
        .trimmingCharacters(in: .whitespacesAndNewlines)
}

/// The folder `name` under nginx's root, made if missing.
private func nginxFolder(_ name: String) throws -> URL {
    let root = try ExternalServers.require(ExternalServers.nginxRoot, "PARLEY_NGINX_ROOT")
    let folder = URL(fileURLWithPath: root).appendingPathComponent(name)
    try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    return folder
}

/// Sends `count` requests for `url` at once and returns their responses, whose bodies nobody
/// reads yet: each transfer stays in flight, paused at its stream buffer.
private func sendHeld(_ count: Int, to url: String, on transport: CurlTransport, tag: String) async throws
    -> [TransportResponse]
{
    try await withThrowingTaskGroup(of: TransportResponse.self) { group in
        for index in 0..<count {
            group.addTask {
                var request = try TransportRequest(method: .get, url: "\(url)?\(tag)=\(index)")
                // A busy machine can drop SYNs of so many connects at once; the kernel retries
                // them after 1, 3, 7, 15 s, which the default 10 s would cut short.
                request.options.connectTimeout = .seconds(60)
                return try await transport.send(request)
            }
        }
        return try await group.reduce(into: []) { $0.append($1) }
    }
}

/// Reads each response's body to its end, one after another, and returns their lengths.
private func readWhole(_ responses: [TransportResponse]) async throws -> [Int] {
    var lengths: [Int] = []
    for response in responses {
        #expect(response.head.status.kind == .successful)
        var length = 0
        for try await chunk in response.body { length += chunk.count }
        lengths.append(length)
    }
    return lengths
}
