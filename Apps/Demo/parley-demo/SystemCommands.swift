import ArgumentParser
import Feedback
import Foundation
import SystemAPI
import Transport

/// `parley-demo system time | version`.
struct SystemCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "system",
        abstract: "The backend's system endpoints.",
        subcommands: [Time.self, Version.self]
    )

    /// `system time`: the server's clock.
    struct Time: DemoCommand {
        static let configuration = CommandConfiguration(abstract: "Show the server's clock (GET /sysTime).")

        @OptionGroup var global: GlobalOptions

        func perform(in session: DemoSession) async throws {
            let time = try await session.screen.sysTime().load(LoadType.default(container: Screen())).value
            try session.output.emit(
                text: "Server time: \(Self.iso8601(time.date)) (\(time.millisecondsSince1970) ms since 1970)",
                json: time)
        }

        /// `date` as ISO 8601 with milliseconds, in UTC.
        static func iso8601(_ date: Date) -> String {
            date.formatted(.iso8601.year().month().day().time(includingFractionalSeconds: true))
        }
    }

    /// `system version`: the releases newer than the app.
    struct Version: DemoCommand {
        static let configuration = CommandConfiguration(
            abstract: "List the releases newer than an app version (POST /sysVersion).")

        @OptionGroup var global: GlobalOptions

        @Option(help: ArgumentHelp("The version to compare with.", valueName: "version"))
        var appVersion = "1.0.0"

        @Option(help: ArgumentHelp("The platform to ask for.", valueName: "name"))
        var platform = SystemPlatform.current

        func validate() throws {
            let parts = appVersion.split(separator: ".", omittingEmptySubsequences: false)
            guard !parts.isEmpty, parts.count <= 4, parts.allSatisfy({ !$0.isEmpty && $0.allSatisfy(\.isNumber) })
            else {
                throw ValidationError("--app-version must look like 1.2.0 (numbers and dots), got '\(appVersion)'.")
            }
        }

        /// What `--json` prints.
        struct Result: Encodable {
            var appVersion: String
            var platform: String
            var releases: [AppRelease]
        }

        func perform(in session: DemoSession) async throws {
            let releases = try await session.screen.sysVersion(appVersion: appVersion, platform: platform)
                .load(LoadType.default(container: Screen())).value
            try session.output.emit(
                text: text(releases), json: Result(appVersion: appVersion, platform: platform, releases: releases))
        }

        private func text(_ releases: [AppRelease]) -> String {
            guard !releases.isEmpty else { return "\(appVersion) is the newest release for \(platform)." }
            let width = releases.map { $0.version.count }.max() ?? 0
            let lines = releases.map { release in
                let day = release.publishedAt.formatted(.iso8601.year().month().day())
                return "  \(ResultOutput.pad(release.version, to: width))  \(day)  \(release.notes)"
            }
            return (["Releases newer than \(appVersion) for \(platform):"] + lines).joined(separator: "\n")
        }
    }
}
