import ArgumentParser
import FeedbackConsole
import Foundation

/// `parley-demo`: every part of Parley at work against a backend that starts by itself.
struct ParleyDemo: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "parley-demo",
        abstract: "Parley at work: forecasts, downloads, uploads, retries and feedback, against a backend of its own.",
        discussion: """
            Without --server, parley-demo starts its backend on 127.0.0.1 (a free port) and stops it \
            on exit. Results go to standard output (one JSON document with --json); masks, progress \
            bars, warnings, retry notices and questions go to standard error.

            Exit status: 0 success; 1 the server answered with a business error; 2 the command line \
            is wrong; 3 a network or HTTP failure, after the retries (or standard output failed, such \
            as a full disk); 4 an answer that does not decode; 130 interrupted (Ctrl-C; a partial \
            download is kept); 143 terminated (SIGTERM); 141, killed by SIGPIPE as cat is, when the \
            reader of standard output went away (| head): the terminal is restored first, and a \
            program started with SIGPIPE ignored exits 141 too. A download to --output is unaffected.

            GLOBAL OPTIONS (before or after the command's name, for every command):
            \(GlobalOptions.helpLines)
            """,
        subcommands: [
            SystemCommand.self, WeatherCommand.self, LoginCommand.self, FetchCommand.self, DownloadsCommand.self,
            EventsCommand.self, ServeCommand.self, TourCommand.self,
        ]
    )
}

/// The global options given before the command's name, moved after the whole command line,
/// where the command (which declares them) reads them: `parley-demo --json system time` is
/// `parley-demo system time --json`.
func globalOptionsMovedLast(_ arguments: [String]) -> [String] {
    let flags: Set = ["--json", "--no-input", "--trace", "--verbose"]
    let valued: Set = ["--server", "--retries", "--timeout", "--cacert"]
    var leading: [String] = []
    var index = arguments.startIndex
    while index < arguments.endIndex {
        let argument = arguments[index]
        let name = String(argument.split(separator: "=", maxSplits: 1).first ?? "")
        if flags.contains(argument) || (valued.contains(name) && argument.contains("=")) {
            leading.append(argument)
            index += 1
        } else if valued.contains(argument), index + 1 < arguments.endIndex {
            leading += [argument, arguments[index + 1]]
            index += 2
        } else {
            break
        }
    }
    // Before a `--`, after which every word is an argument, even one that looks like an option.
    var rest = Array(arguments[index...])
    rest.insert(contentsOf: leading, at: rest.firstIndex(of: "--") ?? rest.endIndex)
    return rest
}

/// The arguments with a bare `--idempotency-key` (one not followed by a word that can be a
/// key) replaced by the hidden flag `--generated-idempotency-key`, which the parser can read:
/// `--idempotency-key [KEY]` has an optional value, which the argument parser has no syntax
/// for. A following word is taken as the key unless it is an option or a URL.
func normalizedArguments(_ arguments: [String]) -> [String] {
    var result: [String] = []
    var index = arguments.startIndex
    while index < arguments.endIndex {
        let argument = arguments[index]
        index += 1
        guard argument == "--idempotency-key" else {
            result.append(argument)
            continue
        }
        if index < arguments.endIndex, !arguments[index].hasPrefix("-"), !arguments[index].contains("://") {
            result += [argument, arguments[index]]
            index += 1
        } else {
            result.append("--generated-idempotency-key")
        }
    }
    return result
}

/// Parses, runs, and exits with the command's status; usage errors exit 2.
func runMain() async -> Int32 {
    let command: any ParsableCommand
    do {
        let arguments = globalOptionsMovedLast(normalizedArguments(Array(CommandLine.arguments.dropFirst())))
        command = try ParleyDemo.parseAsRoot(arguments)
    } catch {
        let code = ParleyDemo.exitCode(for: error)
        let message = ParleyDemo.fullMessage(for: error)
        if code == .success {
            try? StandardStreams.writeOutput(message + "\n")
            return 0
        }
        standardError(message)
        return ExitStatus.usage.rawValue
    }
    switch command {
    case let command as any DemoCommand:
        return await DemoRunner.run(command.global) { session in try await command.perform(in: session) }.rawValue
    case let command as ServeCommand:
        return await command.serve().rawValue
    case is ParleyDemo, is SystemCommand, is WeatherCommand:
        // A group without its command: say which there are.
        standardError(ParleyDemo.helpMessage(for: type(of: command)))
        return ExitStatus.usage.rawValue
    default:
        // The parser's own commands, such as `help`.
        do {
            var command = command
            try command.run()
            return ExitStatus.success.rawValue
        } catch {
            let message = ParleyDemo.fullMessage(for: error)
            if ParleyDemo.exitCode(for: error) == .success {
                try? StandardStreams.writeOutput(message + "\n")
                return ExitStatus.success.rawValue
            }
            standardError(message)
            return ExitStatus.usage.rawValue
        }
    }
}

// Before the embedded backend's SwiftNIO ignores SIGPIPE for the whole process: how the process
// started decides how a reader that went away ends it.
StandardStreams.recordStartingDisposition()
exit(await runMain())
