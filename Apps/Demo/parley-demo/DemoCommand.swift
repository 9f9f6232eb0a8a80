import ArgumentParser

/// A command that runs in a ``DemoSession``: against the backend, with the console.
protocol DemoCommand: AsyncParsableCommand, Sendable {
    /// The options every command takes.
    var global: GlobalOptions { get }
    /// The command's work.
    func perform(in session: DemoSession) async throws
}

extension DemoCommand {
    /// Not used: `main.swift` runs ``perform(in:)`` through ``DemoRunner`` for its exit status.
    mutating func run() async throws {
        let command = self
        let status = await DemoRunner.run(global) { session in try await command.perform(in: session) }
        if status != .success { throw ExitCode(status.rawValue) }
    }
}
