import Foundation
import Glibc
import TestSupport
import Testing

/// A run of the built `parley-demo`, as a person or a script runs it: its exit status, and
/// its standard output and standard error apart.
struct DemoRun: Sendable {
    let status: Int32
    let standardOutput: String
    let standardError: String
    /// Standard output's bytes, exactly.
    let outputData: Data

    /// Standard output parsed as JSON.
    func json() throws -> Any {
        try JSONSerialization.jsonObject(with: outputData)
    }
}

/// Runs the built `parley-demo` with `arguments`.
///
/// Standard input is `/dev/null` unless `input` is given; the environment is this process's
/// with `NO_COLOR` and `CI` set unless `environment` overrides them, so the console writes
/// plain lines.
///
/// - Parameters:
///   - arguments: The arguments after the program's name.
///   - input: Bytes for standard input.
///   - environment: Variables to set or replace.
/// - Returns: The run.
func runDemo(
    _ arguments: [String], input: Data? = nil, environment: [String: String] = [:]
) async throws -> DemoRun {
    let path = try ChildProcess.siblingExecutable("parley-demo")
    return try await onOwnThread {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: path)
        process.arguments = arguments
        var variables = ProcessInfo.processInfo.environment
        variables["NO_COLOR"] = "1"
        variables["CI"] = "1"
        variables["LANG"] = "C.UTF-8"
        variables.merge(environment) { _, new in new }
        process.environment = variables
        let outputPipe = Pipe()
        let errorPipe = Pipe()
        process.standardOutput = outputPipe
        process.standardError = errorPipe
        if let input {
            let inputPipe = Pipe()
            process.standardInput = inputPipe
            try process.run()
            inputPipe.fileHandleForWriting.write(input)
            try inputPipe.fileHandleForWriting.close()
        } else {
            process.standardInput = FileHandle.nullDevice
            try process.run()
        }
        // Both pipes are read to their end before waiting, so a large output cannot block the child.
        let group = DispatchGroup()
        // Safety of nonisolated(unsafe): the block below is the only writer, and the one read
        // comes after `group.wait()`, which orders it after that write.
        nonisolated(unsafe) var errorData = Data()
        group.enter()
        DispatchQueue.global().async {
            errorData = errorPipe.fileHandleForReading.readToEndRetryingInterrupts()
            group.leave()
        }
        let outputData = outputPipe.fileHandleForReading.readToEndRetryingInterrupts()
        group.wait()
        process.waitUntilExit()
        let status =
            process.terminationReason == .uncaughtSignal ? 128 + process.terminationStatus : process.terminationStatus
        return DemoRun(
            status: status, standardOutput: String(decoding: outputData, as: UTF8.self),
            standardError: String(decoding: errorData, as: UTF8.self), outputData: outputData)
    }
}

/// A `parley-demo serve` running in the background, for other runs to use with `--server`.
final class DemoServer: Sendable {
    let process: Process
    /// `http://127.0.0.1:PORT`, from the line the server prints once listening.
    let baseURL: String

    private init(process: Process, baseURL: String) {
        self.process = process
        self.baseURL = baseURL
    }

    /// A test that threw before ``stop()`` leaves no server running.
    deinit {
        if process.isRunning { process.terminate() }
    }

    /// Starts `parley-demo serve` with `arguments` (and `globalOptions` before `serve`) and
    /// returns once it prints its address, as a line or (with `--json`) a JSON document.
    static func start(_ arguments: [String], globalOptions: [String] = []) async throws -> DemoServer {
        let path = try ChildProcess.siblingExecutable("parley-demo")
        return try await onOwnThread {
            let process = Process()
            process.executableURL = URL(fileURLWithPath: path)
            process.arguments = globalOptions + ["serve"] + arguments
            let output = Pipe()
            process.standardOutput = output
            process.standardError = FileHandle.nullDevice
            process.standardInput = FileHandle.nullDevice
            try process.run()
            var text = ""
            while !text.contains("\n") {
                guard let data = output.fileHandleForReading.readChunkRetryingInterrupts() else { break }
                text += String(decoding: data, as: UTF8.self)
            }
            let line = text.split(separator: "\n").first.map(String.init) ?? ""
            if line.hasPrefix("listening on ") {
                return DemoServer(process: process, baseURL: String(line.dropFirst("listening on ".count)))
            }
            if let document = try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: String],
                let url = document["url"]
            {
                return DemoServer(process: process, baseURL: url)
            }
            process.terminate()
            throw DemoServerError(output: text)
        }
    }

    /// Sends `signal` (SIGTERM by default) and waits for the exit; returns the exit status, or
    /// 128 plus the signal that ended it.
    func stop(with signal: Int32 = SIGTERM) async throws -> Int32 {
        try await onOwnThread { [process] in
            kill(process.processIdentifier, signal)
            process.waitUntilExit()
            return process.terminationReason == .uncaughtSignal
                ? 128 + process.terminationStatus : process.terminationStatus
        }
    }
}

/// `parley-demo serve` did not print its address.
struct DemoServerError: Error, CustomStringConvertible {
    var output: String
    var description: String { "parley-demo serve printed no address: \(output.debugDescription)" }
}
