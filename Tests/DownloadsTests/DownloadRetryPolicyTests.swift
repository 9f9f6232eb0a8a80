import Downloads
import Foundation
import HTTPTypes
import Retry
import TestSupport
import Testing
import Transport
import TransportTesting

/// A clock whose `sleep` returns at once, moving `now` on by the wait and recording it, so a
/// test sees every wait a download chose without spending it.
private final class VirtualClock: RetryClock {
    private let state = PThreadMutex<(now: Duration, waits: [Duration])>((.zero, []))

    var now: Duration { state.withLock { $0.now } }

    var date: Date {
        let (seconds, attoseconds) = now.components
        return Date(timeIntervalSince1970: 1_700_000_000 + Double(seconds) + Double(attoseconds) / 1e18)
    }

    /// The waits so far, in order.
    var waits: [Duration] { state.withLock { $0.waits } }

    func sleep(for duration: Duration) async throws {
        try Task.checkCancellation()
        state.withLock { state in
            state.now += max(.zero, duration)
            state.waits.append(duration)
        }
    }
}

/// Answers from a script, one reply (or failure) per request, the last one repeated.
private func scripted(_ replies: [Result<StubTransport.Reply, TransportError>]) -> StubTransport {
    let next = PThreadMutex(0)
    return StubTransport { _ in
        let index = next.withLock { index in
            defer { index += 1 }
            return min(index, replies.count - 1)
        }
        return try replies[index].get()
    }
}

/// `count` bytes that differ from their neighbours.
private func content(_ count: Int) -> Data {
    Data((0..<count).map { UInt8(truncatingIfNeeded: $0 &* 13 &+ $0 / 256) })
}

/// Downloads retry under the Retry module's `RetryPolicy`: its backoff, `Retry-After`, budget,
/// deadline and table, with the download's own rule that bytes added reset the count.
@Suite struct DownloadRetryPolicyTests {
    let url = "http://127.0.0.1:9/file.bin"
    let host = "127.0.0.1:9"

    /// A policy on `clock` whose jitter always draws `random`, with no budget unless given one.
    private func downloadOptions(
        clock: VirtualClock, random: Double = 0.5, configure: (inout RetryPolicy) -> Void = { _ in }
    ) -> FileDownload.Options {
        var options = FileDownload.Options()
        options.synchronizesToDisk = false
        options.retry.clock = clock
        options.retry.random = { random }
        options.retry.budget = nil
        configure(&options.retry)
        return options
    }

    @Test func theWaitsAreThePolicysFullJitterBackoff() async throws {
        try await withTemporaryFolder { folder in
            // Given a server that answers 503 four times, then the file, and a policy of 1 s
            // doubling up to 3 s whose jitter draws a quarter of each ceiling
            let clock = VirtualClock()
            let body = content(100)
            let unavailable = StubTransport.Reply(status: .serviceUnavailable)
            let transport = scripted(
                Array(repeating: .success(unavailable), count: 4) + [
                    .success(.init(headers: [.eTag: "\"v1\""], body: body))
                ])
            let events = LockedRecorder<RetryEvent>()
            var options = downloadOptions(clock: clock, random: 0.25) { policy in
                policy.maximumRetries = 4
                policy.baseDelay = .seconds(1)
                policy.maximumDelay = .seconds(3)
            }
            options.retryHandler = { retry, failure in
                #expect(failure.category == .downloadFailed)
                events.append(retry)
            }

            // When it is downloaded
            let summary = try await FileDownload(
                url: url, to: folder + "/file.bin", transport: transport, options: options
            )
            .run()

            // Then each wait is a quarter of min(3 s, 1 s × 2^(k−1)), as the policy computes it
            let expected: [Duration] = [.milliseconds(250), .milliseconds(500), .milliseconds(750), .milliseconds(750)]
            #expect(clock.waits == expected)
            #expect(clock.waits == (1...4).map { options.retry.backoff(beforeRetry: $0) })
            #expect(summary.requestCount == 5)
            #expect(try Data(contentsOf: URL(fileURLWithPath: folder + "/file.bin")) == body)
            // And each retry was reported as the policy decided it, with no fixed maximum
            #expect(events.all.map(\.attempt) == [2, 3, 4, 5])
            #expect(events.all.map(\.delay) == expected)
            #expect(events.all.allSatisfy { $0.maximumAttempts == nil && !$0.serverAsked })
            #expect(events.all.first?.reason == "HTTP 503 Service Unavailable")
        }
    }

    @Test func aRetryAfterOnA503IsTheWait() async throws {
        try await withTemporaryFolder { folder in
            let clock = VirtualClock()
            let body = content(100)
            let transport = scripted([
                .success(.init(status: .serviceUnavailable, headers: [.retryAfter: "3"])),
                .success(.init(headers: [.eTag: "\"v1\""], body: body)),
            ])
            let events = LockedRecorder<RetryEvent>()
            var options = downloadOptions(clock: clock)
            options.retryHandler = { retry, _ in events.append(retry) }

            let summary = try await FileDownload(
                url: url, to: folder + "/file.bin", transport: transport, options: options
            )
            .run()

            #expect(clock.waits == [.seconds(3)])
            #expect(events.all.count == 1)
            #expect(events.all.first?.delay == .seconds(3))
            #expect(events.all.first?.serverAsked == true)
            #expect(events.all.first?.attempt == 2)
            #expect(summary.requestCount == 2)
        }
    }

    @Test func aRetryAfterLongerThanThePolicyAllowsFailsAndKeepsThePartial() async throws {
        try await withTemporaryFolder { folder in
            // Given a first answer that ends after 40 of its 100 bytes, then a 503 that asks
            // for 2 minutes, past the policy's longest wait of 60 seconds
            let clock = VirtualClock()
            let transport = scripted([
                .success(.init(headers: [.eTag: "\"v1\"", .contentLength: "100"], body: content(40))),
                .success(.init(status: .serviceUnavailable, headers: [.retryAfter: "120"])),
            ])
            let download = try FileDownload(
                url: url, to: folder + "/file.bin", transport: transport, options: downloadOptions(clock: clock))

            // When it runs
            let error = await #expect(throws: TransportError.self) { try await download.run() }

            // Then it stops at the 503 without waiting, naming the wait, and keeps the 40 bytes
            #expect(error?.category == .retryAfterTooLong)
            #expect(error?.message.contains("answered 503 Service Unavailable") == true)
            #expect(error?.message.contains("asked to wait 2 min") == true)
            #expect(error?.message.contains("40 bytes are kept in \(download.partialPath)") == true)
            #expect(error?.message.contains("running the download again resumes from there") == true)
            #expect(transport.requests.count == 2)
            #expect(transport.requests.last?.head.headerFields[.range] == "bytes=40-")
            #expect(clock.waits == [.milliseconds(250)])  // the backoff after the drop only
            #expect(try Data(contentsOf: URL(fileURLWithPath: download.partialPath)) == content(40))
            #expect(FileManager.default.fileExists(atPath: download.sidecarPath))
        }
    }

    @Test func theBudgetStopsRetriesAndAFinishedFileGivesBack() async throws {
        try await withTemporaryFolder { folder in
            // Given a host whose budget allows retries while it holds more than 2 of 4 tokens,
            // and a server that always answers 503
            let clock = VirtualClock()
            let budget = RetryBudget(maximumTokens: 4, tokensPerSuccess: 1)
            let options = downloadOptions(clock: clock) { policy in
                policy.maximumRetries = 5
                policy.budget = budget
            }
            let failing = StubTransport(always: .init(status: .serviceUnavailable))

            // When it is downloaded
            let error = await #expect(throws: TransportError.self) {
                try await FileDownload(url: url, to: folder + "/a.bin", transport: failing, options: options).run()
            }

            // Then the first failure is retried, the second spends the budget, and retries stop
            // well before the 5 the policy allows
            #expect(error?.category == .retryBudgetExhausted)
            #expect(error?.message.contains("retry budget is spent") == true)
            #expect(error?.message.contains("No byte of the file arrived, so there is nothing to resume.") == true)
            #expect(failing.requests.count == 2)
            #expect(clock.waits.count == 1)
            #expect(budget.tokens(for: host) == 2)

            // And a download that finishes gives a token back
            let working = StubTransport(always: .init(headers: [.eTag: "\"v1\""], body: content(10)))
            _ = try await FileDownload(url: url, to: folder + "/b.bin", transport: working, options: options).run()
            #expect(budget.tokens(for: host) == 3)
        }
    }

    @Test func anAttemptThatAddedBytesResetsTheCountInARow() async throws {
        try await withTemporaryFolder { folder in
            // Given one retry in a row allowed, and a server that drops each of four answers
            // after 30 bytes of a 100-byte file, the last one excepted
            let clock = VirtualClock()
            let file = content(100)
            func part(_ range: Range<Int>) -> Result<StubTransport.Reply, TransportError> {
                .success(
                    .init(
                        status: .partialContent,
                        headers: [.eTag: "\"v1\"", .contentRange: "bytes \(range.lowerBound)-99/100"],
                        body: file.subdata(in: range)))
            }
            let transport = scripted([
                .success(.init(headers: [.eTag: "\"v1\"", .contentLength: "100"], body: file.prefix(30))),
                part(30..<60), part(60..<90), part(90..<100),
            ])
            let options = downloadOptions(clock: clock) { $0.maximumRetries = 1 }

            // When it is downloaded
            let summary = try await FileDownload(
                url: url, to: folder + "/file.bin", transport: transport, options: options
            )
            .run()

            // Then three failures in all did not exhaust one retry in a row, and each wait was
            // the first retry's
            #expect(summary.requestCount == 4)
            #expect(try Data(contentsOf: URL(fileURLWithPath: folder + "/file.bin")) == file)
            #expect(
                transport.requests.map { $0.head.headerFields[.range] } == [nil, "bytes=30-", "bytes=60-", "bytes=90-"])
            #expect(clock.waits == Array(repeating: options.retry.backoff(beforeRetry: 1), count: 3))
        }
    }

    @Test func dropsThatAddedBytesTakeNothingFromTheBudget() async throws {
        try await withTemporaryFolder { folder in
            // Given a budget that stops retries after two failures, and a server that drops
            // three answers in a row, each after adding bytes
            let clock = VirtualClock()
            let budget = RetryBudget(maximumTokens: 4, tokensPerSuccess: 0)
            let file = content(100)
            func part(_ range: Range<Int>) -> Result<StubTransport.Reply, TransportError> {
                .success(
                    .init(
                        status: .partialContent,
                        headers: [.eTag: "\"v1\"", .contentRange: "bytes \(range.lowerBound)-99/100"],
                        body: file.subdata(in: range)))
            }
            let transport = scripted([
                .success(.init(headers: [.eTag: "\"v1\"", .contentLength: "100"], body: file.prefix(30))),
                part(30..<60), part(60..<90), part(90..<100),
            ])
            let options = downloadOptions(clock: clock) { $0.budget = budget }

            // When it is downloaded
            let summary = try await FileDownload(
                url: url, to: folder + "/file.bin", transport: transport, options: options
            ).run()

            // Then the host was serving the file: every drop was retried and no token was taken
            #expect(summary.requestCount == 4)
            #expect(budget.tokens(for: host) == 4)
        }
    }

    @Test func failuresWithoutProgressAreCountedInARow() async throws {
        try await withTemporaryFolder { folder in
            // Given one retry in a row allowed and a server that refuses every connection
            let clock = VirtualClock()
            let refused = TransportError(
                .connectionRefused, message: "Connection refused.", url: url, mayHaveReachedServer: false)
            let transport = scripted([.failure(refused)])
            let download = try FileDownload(
                url: url, to: folder + "/file.bin", transport: transport,
                options: downloadOptions(clock: clock) { $0.maximumRetries = 1 })

            let error = await #expect(throws: TransportError.self) { try await download.run() }

            // Then it gives up after two attempts with the network failure's own category
            #expect(error?.category == .connectionRefused)
            #expect(error?.message.contains("Gave up after 2 attempts in a row; No byte of the file arrived") == true)
            #expect(transport.requests.count == 2)
            #expect(clock.waits.count == 1)
        }
    }

    @Test func a404IsNotRetried() async throws {
        try await withTemporaryFolder { folder in
            let clock = VirtualClock()
            let transport = StubTransport(always: .init(status: .notFound))
            let events = LockedRecorder<RetryEvent>()
            var options = downloadOptions(clock: clock)
            options.retryHandler = { retry, _ in events.append(retry) }
            let download = try FileDownload(url: url, to: folder + "/file.bin", transport: transport, options: options)

            let error = await #expect(throws: TransportError.self) { try await download.run() }

            #expect(error?.category == .downloadFailed)
            #expect(error?.message.contains("answered 404") == true)
            #expect(error?.message.contains("Check the URL.") == true)
            #expect(transport.requests.count == 1)
            #expect(clock.waits.isEmpty)
            #expect(events.all.isEmpty)
        }
    }

    @Test func thePolicysTableDecidesWhichNetworkFailuresAreRetried() async throws {
        try await withTemporaryFolder { folder in
            // Given a DNS failure, which the policy retries by default, then the file
            let clock = VirtualClock()
            let dns = TransportError(
                .dnsFailure, message: "Could not resolve the host.", url: url, mayHaveReachedServer: false)
            let body = content(10)
            let once = scripted([.failure(dns), .success(.init(headers: [.eTag: "\"v1\""], body: body))])
            _ = try await FileDownload(
                url: url, to: folder + "/a.bin", transport: once, options: downloadOptions(clock: clock)
            )
            .run()
            #expect(once.requests.count == 2)

            // And a policy that retries no network failure at all
            let always = scripted([.failure(dns)])
            let error = await #expect(throws: TransportError.self) {
                try await FileDownload(
                    url: url, to: folder + "/b.bin", transport: always,
                    options: downloadOptions(clock: clock) { $0.retryableFailures = [] }
                ).run()
            }
            // Then that one fails at once, as the transport reported it
            #expect(error?.category == .dnsFailure)
            #expect(error?.message == dns.message)
            #expect(always.requests.count == 1)
        }
    }

    @Test func theDeadlineStopsRetriesAndCutsEachAttempt() async throws {
        try await withTemporaryFolder { folder in
            // Given a deadline of 2 s, waits of the whole ceiling (1 s, then 2 s), and a
            // server that always answers 503
            let clock = VirtualClock()
            let transport = StubTransport(always: .init(status: .serviceUnavailable))
            let options = downloadOptions(clock: clock, random: 1) { policy in
                policy.deadline = .seconds(2)
                policy.baseDelay = .seconds(1)
            }
            let download = try FileDownload(url: url, to: folder + "/file.bin", transport: transport, options: options)

            let error = await #expect(throws: TransportError.self) { try await download.run() }

            // Then the second retry, which would not start before the deadline, is not made
            #expect(error?.category == .deadlineExceeded)
            #expect(error?.message.contains("deadline of 2.0 s") == true)
            #expect(error?.message.contains("No byte of the file arrived, so there is nothing to resume.") == true)
            #expect(clock.waits == [.seconds(1)])
            // And each attempt's transfer deadline was the time left
            #expect(transport.requests.map(\.options.deadline) == [.seconds(2), .seconds(1)])
        }
    }
}

/// Answers a download's reload prompt from a script (no once the script is spent) and records
/// what it was asked.
private final class ScriptedPrompt: ReloadPrompt {
    private let answers: PThreadMutex<[Bool]>
    let asked = LockedRecorder<ReloadContext>()

    init(_ answers: [Bool]) {
        self.answers = PThreadMutex(answers)
    }

    func shouldReload(after failure: ReloadContext) async -> Bool {
        asked.append(failure)
        return answers.withLock { $0.isEmpty ? false : $0.removeFirst() }
    }
}

/// A download's `reloadPrompt`: asked once the retries in a row of a network failure are spent;
/// a yes starts a new round that resumes from the partial, a no lets the failure stand.
@Suite struct DownloadReloadPromptTests {
    let url = "http://127.0.0.1:9/file.bin"
    let refused = TransportError(
        .connectionRefused, message: "Connection refused.", url: "http://127.0.0.1:9/file.bin",
        mayHaveReachedServer: false)

    private func downloadOptions(clock: VirtualClock, prompt: ScriptedPrompt) -> FileDownload.Options {
        var options = FileDownload.Options()
        options.synchronizesToDisk = false
        options.retry.clock = clock
        options.retry.random = { 1 }
        options.retry.budget = nil
        options.retry.maximumRetries = 1
        options.reloadPrompt = prompt
        return options
    }

    /// The rest of a 100-byte file, from `offset`.
    private func rest(of file: Data, from offset: Int) -> Result<StubTransport.Reply, TransportError> {
        .success(
            .init(
                status: .partialContent, headers: [.eTag: "\"v1\"", .contentRange: "bytes \(offset)-99/100"],
                body: file.subdata(in: offset..<100)))
    }

    @Test func aYesStartsANewRoundWithAFreshCountThatResumesFromThePartial() async throws {
        try await withTemporaryFolder { folder in
            // Given one retry in a row allowed, and a server that drops the first answer after
            // 40 bytes, refuses two connections, then sends the rest
            let clock = VirtualClock()
            let file = content(100)
            let transport = scripted([
                .success(.init(headers: [.eTag: "\"v1\"", .contentLength: "100"], body: file.prefix(40))),
                .failure(refused), .failure(refused), rest(of: file, from: 40),
            ])
            let prompt = ScriptedPrompt([true])

            // When it is downloaded with a prompt that says yes
            let summary = try await FileDownload(
                url: url, to: folder + "/file.bin", transport: transport,
                options: downloadOptions(clock: clock, prompt: prompt)
            ).run()

            // Then the drop was retried, the first refusal spent the one retry and the prompt was
            // asked; the new round's count started afresh (the second refusal was retried, not
            // asked about)
            #expect(prompt.asked.all.count == 1)
            let context = try #require(prompt.asked.all.first)
            #expect(context.error.category == .connectionRefused)
            #expect(context.error.message == "Connection refused.", "the transport's own message, as the detail")
            #expect(context.attempts == 2)
            #expect(context.method.rawValue == "GET")
            #expect(context.url == url)
            #expect(!context.mayHaveBeenApplied)
            // And every attempt after the drop resumed from the 40 bytes on disk
            #expect(summary.requestCount == 4)
            #expect(summary.resumedFrom == 0)
            #expect(
                transport.requests.map { $0.head.headerFields[.range] } == [nil, "bytes=40-", "bytes=40-", "bytes=40-"])
            #expect(try Data(contentsOf: URL(fileURLWithPath: folder + "/file.bin")) == file)
        }
    }

    @Test func aYesStartsTheDeadlineAfresh() async throws {
        try await withTemporaryFolder { folder in
            // Given a 1 s deadline, waits of 0.6 s, and a server that refuses three connections
            let clock = VirtualClock()
            let file = content(100)
            let transport = scripted([
                .failure(refused), .failure(refused), .failure(refused),
                .success(.init(headers: [.eTag: "\"v1\""], body: file)),
            ])
            let prompt = ScriptedPrompt([true])
            var options = downloadOptions(clock: clock, prompt: prompt)
            options.retry.baseDelay = .milliseconds(600)
            options.retry.deadline = .seconds(1)

            // When the prompt says yes after the second refusal, 0.6 s in
            let summary = try await FileDownload(
                url: url, to: folder + "/file.bin", transport: transport, options: options
            ).run()

            // Then the new round's retry fits its own deadline (0.6 s from the reload), where
            // the first round's would have ended 1.2 s in, past it
            #expect(prompt.asked.all.count == 1)
            #expect(clock.waits == [.milliseconds(600), .milliseconds(600)])
            #expect(summary.requestCount == 4)
        }
    }

    @Test func aNoLetsTheFailureStandWithThePartialKept() async throws {
        try await withTemporaryFolder { folder in
            let clock = VirtualClock()
            let transport = scripted([
                .success(.init(headers: [.eTag: "\"v1\"", .contentLength: "100"], body: content(40))),
                .failure(refused),
            ])
            let prompt = ScriptedPrompt([false])
            let download = try FileDownload(
                url: url, to: folder + "/file.bin", transport: transport,
                options: downloadOptions(clock: clock, prompt: prompt))

            let error = await #expect(throws: TransportError.self) { try await download.run() }

            #expect(prompt.asked.all.count == 1)
            #expect(error?.category == .connectionRefused)
            #expect(error?.message.contains("Gave up after 2 attempts in a row; 40 bytes are kept") == true)
            #expect(transport.requests.count == 2)
            #expect(try Data(contentsOf: URL(fileURLWithPath: download.partialPath)) == content(40))
        }
    }

    @Test func statusesAndFailuresThePolicyNeverRetriesAreNotOffered() async throws {
        try await withTemporaryFolder { folder in
            let clock = VirtualClock()
            let prompt = ScriptedPrompt([true, true])
            let unavailable = StubTransport(always: .init(status: .serviceUnavailable))
            await #expect(throws: TransportError.self) {
                try await FileDownload(
                    url: url, to: folder + "/a.bin", transport: unavailable,
                    options: downloadOptions(clock: clock, prompt: prompt)
                ).run()
            }
            let tls = scripted([.failure(TransportError(.tlsFailure, message: "Bad certificate.", url: url))])
            await #expect(throws: TransportError.self) {
                try await FileDownload(
                    url: url, to: folder + "/b.bin", transport: tls,
                    options: downloadOptions(clock: clock, prompt: prompt)
                ).run()
            }
            #expect(prompt.asked.all.isEmpty)
            #expect(unavailable.requests.count == 2)
            #expect(tls.requests.count == 1)
        }
    }

    @Test func aCancelledDownloadIsNotOffered() async throws {
        try await withTemporaryFolder { folder in
            let clock = VirtualClock()
            let prompt = ScriptedPrompt([true])
            let started = LockedRecorder<Bool>()
            let transport = StubTransport { request in
                started.append(true)
                try await Task.sleep(for: .seconds(60))
                throw TransportError(.connectionReset, message: "Reset.", url: request.url)
            }
            let download = try FileDownload(
                url: url, to: folder + "/file.bin", transport: transport,
                options: downloadOptions(clock: clock, prompt: prompt))
            let task = Task { try await download.run() }
            try await waitUntil { !started.all.isEmpty }
            task.cancel()
            let error = await #expect(throws: TransportError.self) { try await task.value }
            #expect(error?.category == .cancelled)
            #expect(prompt.asked.all.isEmpty)
        }
    }
}
