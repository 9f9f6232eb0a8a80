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
        let child = try SpawnedChild.start(
            path, arguments: arguments,
            environment: ["NO_COLOR": "1", "CI": "1", "LANG": "C.UTF-8"].merging(environment) { _, new in new },
            input: input == nil ? .null : .pipe, output: .pipe, errors: .pipe)
        if let input, let writer = child.input {
            writer.write(input)
            try writer.close()
        }
        // Both pipes are read to their end before waiting, so a large output cannot block the child.
        let group = DispatchGroup()
        // Safety of nonisolated(unsafe): the block below is the only writer, and the one read
        // comes after `group.wait()`, which orders it after that write.
        nonisolated(unsafe) var errorData = Data()
        group.enter()
        DispatchQueue.global().async {
            errorData = child.errors?.readToEndRetryingInterrupts() ?? Data()
            group.leave()
        }
        let outputData = child.output?.readToEndRetryingInterrupts() ?? Data()
        group.wait()
        let status = child.waitForExit().shellStatus
        return DemoRun(
            status: status, standardOutput: String(decoding: outputData, as: UTF8.self),
            standardError: String(decoding: errorData, as: UTF8.self), outputData: outputData)
    }
}

/// A `parley-demo serve` running in the background, for other runs to use with `--server`.
final class DemoServer: Sendable {
    /// The server; a test that threw before ``stop(with:)`` leaves no server running, as a
    /// dropped child is killed.
    let child: SpawnedChild
    /// `http://127.0.0.1:PORT`, from the line the server prints once listening.
    let baseURL: String

    private init(child: SpawnedChild, baseURL: String) {
        self.child = child
        self.baseURL = baseURL
    }

    /// Starts `parley-demo serve` with `arguments` (and `globalOptions` before `serve`) and
    /// returns once it prints its address, as a line or (with `--json`) a JSON document.
    static func start(_ arguments: [String], globalOptions: [String] = []) async throws -> DemoServer {
        let path = try ChildProcess.siblingExecutable("parley-demo")
        return try await onOwnThread {
            let child = try SpawnedChild.start(path, arguments: globalOptions + ["serve"] + arguments, output: .pipe)
            var text = ""
            while !text.contains("\n") {
                guard let data = child.output?.readChunkRetryingInterrupts() else { break }
                text += String(decoding: data, as: UTF8.self)
            }
            let line = text.split(separator: "\n").first.map(String.init) ?? ""
            if line.hasPrefix("listening on ") {
                return DemoServer(child: child, baseURL: String(line.dropFirst("listening on ".count)))
            }
            if let document = try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: String],
                let url = document["url"]
            {
                return DemoServer(child: child, baseURL: url)
            }
            child.kill()
            throw DemoServerError(output: text)
        }
    }

    /// Sends `signal` (SIGTERM by default) and waits for the exit; returns the exit status, or
    /// 128 plus the signal that ended it.
    func stop(with signal: Int32 = SIGTERM) async throws -> Int32 {
        try await onOwnThread { [child] in
            child.send(signal)
            return child.waitForExit().shellStatus
        }
    }
}

/// `parley-demo serve` did not print its address.
struct DemoServerError: Error, CustomStringConvertible {
    var output: String
    var description: String { "parley-demo serve printed no address: \(output.debugDescription)" }
}
