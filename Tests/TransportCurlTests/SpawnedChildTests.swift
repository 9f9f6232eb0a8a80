import Foundation
import Glibc
import TestSupport
import Testing

/// The one way the tests start a process: what the child gets of this process, and how it is
/// reaped.
@Suite struct SpawnedChildTests {
    /// Checked to fail: without `closeInheritedDescriptors` in `SpawnedChild.start`, the child
    /// lists the pipe below and every socket of the in-process servers.
    @Test func aChildHoldsNoDescriptorOfTheTestProcessAboveStandardError() async throws {
        // Given a descriptor of this process without close-on-exec, as the servers' sockets are
        var ends: [Int32] = [-1, -1]
        try #require(pipe(&ends) == 0)
        defer { for end in ends { close(end) } }

        // When a shell started here lists its own descriptors
        let listed = try await onOwnThread { () -> String in
            let child = try SpawnedChild.start("/bin/sh", arguments: ["-c", "ls /proc/$$/fd"], output: .pipe)
            let output = child.output?.readToEndRetryingInterrupts() ?? Data()
            child.waitForExit()
            return String(decoding: output, as: UTF8.self)
        }

        // Then it has standard input, output and error, and nothing else
        let descriptors = listed.split(separator: "\n").compactMap { Int32($0) }.sorted()
        #expect(descriptors == [0, 1, 2], "the child holds \(descriptors), the pipe's ends are \(ends)")
    }

    @Test func standardInputAndOutputArePipesAndTheExitStatusIsReported() async throws {
        let (output, ended) = try await onOwnThread { () -> (String, SpawnedChild.Termination) in
            let child = try SpawnedChild.start(
                "/bin/sh", arguments: ["-c", "cat; exit 7"], input: .pipe, output: .pipe)
            child.input?.write(Data("through the pipe".utf8))
            try child.input?.close()
            let output = child.output?.readToEndRetryingInterrupts() ?? Data()
            return (String(decoding: output, as: UTF8.self), child.waitForExit())
        }
        #expect(output == "through the pipe")
        #expect(ended.exitStatus == 7)
        #expect(ended.signal == nil)
        #expect(ended.shellStatus == 7)
    }

    @Test func killingARunningChildReapsItAndSaysTheSignalEndedIt() async throws {
        let (killed, first, second, running) = try await onOwnThread {
            () -> (Bool, SpawnedChild.Termination, SpawnedChild.Termination, Bool) in
            let child = try SpawnedChild.start("/bin/sleep", arguments: ["600"])
            let killed = child.kill()
            return (killed, child.waitForExit(), child.waitForExit(), child.isRunning)
        }
        #expect(killed)
        #expect(first.signal == SIGKILL)
        #expect(first.shellStatus == 128 + SIGKILL)
        // Reaped once: a later wait says the same, and the child no longer runs.
        #expect(second == first)
        #expect(!running)
    }

    @Test func killingAChildThatEndedByItselfSaysSo() async throws {
        let (killed, ended) = try await onOwnThread { () -> (Bool, SpawnedChild.Termination) in
            let child = try SpawnedChild.start("/bin/true", arguments: [])
            while child.isRunning { usleep(1000) }
            return (child.kill(), child.waitForExit())
        }
        #expect(!killed)
        #expect(ended.exitStatus == 0)
    }

    @Test func aMissingProgramIsAThrownError() async throws {
        let error = try await onOwnThread { () -> SpawnedChild.StartFailure? in
            do {
                _ = try SpawnedChild.start("/nonexistent/program", arguments: [])
                return nil
            } catch let failure as SpawnedChild.StartFailure {
                return failure
            }
        }
        #expect(error?.description.contains("/nonexistent/program") == true)
    }
}
