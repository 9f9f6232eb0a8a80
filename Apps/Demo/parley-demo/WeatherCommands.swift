import ArgumentParser
import Coordination
import Downloads
import Feedback
import Forms
import Foundation
import Mapping
import Transport
import WeatherAPI

/// The weather module's forecast, apart from the `forecast` command of the same name.
typealias WeatherForecast = Forecast

/// `parley-demo weather …`.
struct WeatherCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "weather",
        abstract: "Forecasts, cities, the radar image, reports and batches.",
        subcommands: [Forecast.self, Cities.self, Radar.self, Report.self, Batch.self]
    )

    /// `weather forecast CITY [--day N] [--mask …] [--container …]`.
    struct Forecast: DemoCommand {
        static let configuration = CommandConfiguration(
            abstract: "Show a city's three-day forecast (GET /weather?city=CITY), masked while it loads.")

        @OptionGroup var global: GlobalOptions

        @Argument(help: "The city, such as Toronto or 北京.")
        var city: String

        @Option(help: ArgumentHelp("Only this day, counting from 0 (today); the forecast has three.", valueName: "n"))
        var day: Int?

        @Option(help: "The loading mask: spinner, hud or none.")
        var mask = MaskChoice.spinner

        @Option(
            help: ArgumentHelp(
                "What the mask covers: screen, panel, row, button, refresh (a refresh header above the list of "
                    + "days) or log (a scrolling log of the request, its lines held while its panel is masked).",
                valueName: "container"))
        var container = ContainerChoice.panel

        func validate() throws {
            guard !city.trimmingCharacters(in: .whitespaces).isEmpty else {
                throw ValidationError("The city is empty; give one, such as Toronto.")
            }
            if let day, day < 0 { throw ValidationError("--day counts from 0 (today), got \(day).") }
        }

        func perform(in session: DemoSession) async throws {
            let region = container.container(city: city)
            let loading = mask.loadType(city: city, container: region)
            if let log = region as? ScrollingLog {
                let handle = session.screen.forecast(city: city).load(loading)
                // Held while the panel is masked, printed when its mask comes off.
                log.append(FeedbackSystem.catalog.text(DemoMessages.askedForForecast, ["city": city]))
                let forecast = try await handle.value
                log.append(
                    FeedbackSystem.catalog.text(
                        DemoMessages.receivedForecast,
                        ["location": forecast.location, "days": "\(forecast.days.count)"]))
                return try emit(forecast, in: session)
            }
            if let day {
                let forecastDay: WeatherForecast.Day
                do {
                    forecastDay = try await session.screen.forecastDay(city: city, index: day).load(loading).value
                } catch let error as MappingError where error.category == .pathNotFound {
                    // The server's forecast is shorter than the day asked for: the option is wrong.
                    throw UsageError(
                        "--day \(day): the forecast for \(city) has no such day; days count from 0 (today).")
                }
                try session.output.emit(text: Self.line(forecastDay), json: forecastDay)
            } else {
                let forecast = try await session.screen.forecast(city: city).load(loading).value
                try emit(forecast, in: session)
            }
        }

        /// The forecast, or the one day asked for, on standard output.
        private func emit(_ forecast: WeatherForecast, in session: DemoSession) throws {
            guard let day else { return try session.output.emit(text: Self.text(forecast), json: forecast) }
            guard forecast.days.indices.contains(day) else {
                throw UsageError("--day \(day): the forecast for \(city) has no such day; days count from 0 (today).")
            }
            try session.output.emit(text: Self.line(forecast.days[day]), json: forecast.days[day])
        }

        /// The forecast as a small table.
        static func text(_ forecast: WeatherForecast) -> String {
            let width = forecast.days.map { TextWidth.columns(of: $0.day) }.max() ?? 0
            let conditions = forecast.days.map { TextWidth.columns(of: $0.conditions) }.max() ?? 0
            let rows = forecast.days.map { day in
                "  \(ResultOutput.pad(day.day, to: width))  \(ResultOutput.pad(day.conditions, to: conditions))  "
                    + "\(day.temperature) °C"
            }
            return ([forecast.location] + rows).joined(separator: "\n")
        }

        /// One day on one line.
        static func line(_ day: WeatherForecast.Day) -> String {
            "\(day.day): \(day.conditions), \(day.temperature) °C"
        }
    }

    /// `weather cities [--all] [--cursor C] [--limit N]`.
    struct Cities: DemoCommand {
        static let configuration = CommandConfiguration(
            abstract: "List the cities the service knows, a page at a time (GET /weather/cities).")

        @OptionGroup var global: GlobalOptions

        @Flag(help: "Every page, one after the other, each printed as it arrives.")
        var all = false

        @Option(help: ArgumentHelp("Start at this page (the cursor a previous page printed).", valueName: "cursor"))
        var cursor: String?

        @Option(help: ArgumentHelp("Cities per page, 1 to 100.", valueName: "n"))
        var limit = 10

        func validate() throws {
            guard (1...100).contains(limit) else { throw ValidationError("--limit must be 1 to 100, got \(limit).") }
        }

        /// What `--json` prints: the cities, and the next page's cursor, `null` after the last.
        struct Result: Encodable {
            var items: [City]
            var cursor: String?

            private enum CodingKeys: String, CodingKey { case items, cursor }

            func encode(to encoder: any Encoder) throws {
                var container = encoder.container(keyedBy: CodingKeys.self)
                try container.encode(items, forKey: .items)
                try container.encode(cursor, forKey: .cursor)
            }
        }

        func perform(in session: DemoSession) async throws {
            var collected: [City] = []
            var next = cursor
            var number = 0
            repeat {
                number += 1
                let page = try await session.screen.cities(after: next, limit: limit)
                    .load(LoadType.default(container: ListRow(label: "page \(number)"))).value
                collected += page.items
                next = page.nextCursor
                if !session.output.json {
                    if all { try session.output.write("Page \(number):") }
                    try session.output.write(Self.text(page.items))
                }
            } while all && next != nil
            if session.output.json {
                try session.output.emit(text: "", json: Result(items: collected, cursor: next))
            } else if let next {
                try session.output.write("More: parley-demo weather cities --cursor \(next)   (or --all)")
            }
        }

        static func text(_ cities: [City]) -> String {
            let width = cities.map { TextWidth.columns(of: $0.name) }.max() ?? 0
            return cities.map { "  \(ResultOutput.pad($0.name, to: width))  \($0.country)" }.joined(separator: "\n")
        }
    }

    /// `weather radar CITY --output FILE [--size N]`.
    struct Radar: DemoCommand {
        static let configuration = CommandConfiguration(
            abstract: "Download a city's radar image with a progress bar; run it again after an interruption to resume."
        )

        @OptionGroup var global: GlobalOptions

        @Argument(help: "The city.")
        var city: String

        @Option(
            name: [.short, .long],
            help: ArgumentHelp(
                "The file to write; an existing file is replaced once the image is whole.", valueName: "file"))
        var output: String

        @Option(help: ArgumentHelp("The image's size in bytes, for the demo backend.", valueName: "bytes"))
        var size: Int?

        func validate() throws {
            if let size, size < 0 { throw ValidationError("--size must be 0 or more, got \(size).") }
            let folder = URL(fileURLWithPath: output).deletingLastPathComponent().path
            var isFolder: ObjCBool = false
            guard FileManager.default.fileExists(atPath: folder, isDirectory: &isFolder), isFolder.boolValue else {
                throw ValidationError("--output \(output): the folder \(folder) does not exist.")
            }
        }

        /// What `--json` prints.
        struct Result: Encodable {
            var file: String
            var bytes: Int64
            var resumedFrom: Int64
        }

        func perform(in session: DemoSession) async throws {
            let destination = URL(fileURLWithPath: output)
            session.noteOnInterruption(
                "The bytes received are kept in \(output).partial; run the same command again to resume.")
            let summary = try await session.screen.radar(city: city, size: size, to: destination)
                .progress(ProgressType.bar(label: destination.lastPathComponent)).value
            var text = "Saved \(summary.destination) (\(summary.byteCount) bytes"
            if summary.resumedFrom > 0 { text += ", resumed from \(summary.resumedFrom)" }
            try session.output.emit(
                text: text + ")",
                json: Result(file: summary.destination, bytes: summary.byteCount, resumedFrom: summary.resumedFrom))
        }
    }

    /// `weather report CITY --photo FILE [--note TEXT]`.
    struct Report: DemoCommand {
        static let configuration = CommandConfiguration(
            abstract: "Send a weather report with a photo (multipart, with a login token that is fetched and renewed "
                + "as needed).")

        @OptionGroup var global: GlobalOptions

        @Argument(help: "The city.")
        var city: String

        @Option(help: ArgumentHelp("The photo to send.", valueName: "file"))
        var photo: String

        @Option(help: ArgumentHelp("A note to go with it.", valueName: "text"))
        var note: String?

        func validate() throws {
            var isFolder: ObjCBool = false
            guard FileManager.default.fileExists(atPath: photo, isDirectory: &isFolder), !isFolder.boolValue,
                FileManager.default.isReadableFile(atPath: photo)
            else {
                throw ValidationError("--photo \(photo): no readable file there.")
            }
        }

        func perform(in session: DemoSession) async throws {
            var client = session.client
            WeatherLogin.install(on: &client)
            let screen = DemoScreen(clientConfiguration: client)
            let photoURL = URL(fileURLWithPath: photo)
            let sent = FeedbackSystem.catalog.text(DemoMessages.reportSent, ["city": city])
            let receipt = try await screen.report(city: city, note: note, photo: photoURL)
                .progress(ProgressType.bar(label: photoURL.lastPathComponent))
                .inform(Alert(successMessage: sent)).value
            try session.output.emit(
                text:
                    "Report \(receipt.id) received for \(receipt.city): \(receipt.bytes) bytes, sha256 \(receipt.sha256)",
                json: receipt)
        }
    }

    /// `weather batch CITY...`.
    struct Batch: DemoCommand {
        static let configuration = CommandConfiguration(
            abstract: "Fetch the forecasts of several cities at once, with a count of those done.")

        @OptionGroup var global: GlobalOptions

        @Argument(help: "The cities.")
        var cities: [String]

        @Option(help: ArgumentHelp("The most requests at a time.", valueName: "n"))
        var concurrency = 3

        func validate() throws {
            guard !cities.isEmpty else { throw ValidationError("Give at least one city.") }
            guard (1...64).contains(concurrency) else {
                throw ValidationError("--concurrency must be 1 to 64, got \(concurrency).")
            }
        }

        /// One city's line in `--json`.
        struct Outcome: Encodable {
            var city: String
            var forecast: WeatherForecast?
            var error: String?
            var code: String?
        }

        func perform(in session: DemoSession) async throws {
            let outcomes = try await session.screen.forecasts(for: cities, maximumConcurrent: concurrency)
                .progress(ProgressType.bar(label: "forecasts")).value
            let width = cities.map { TextWidth.columns(of: $0) }.max() ?? 0
            var lines: [String] = []
            var json: [Outcome] = []
            for (city, outcome) in zip(cities, outcomes) {
                switch outcome {
                case .success(let forecast):
                    let today = forecast.days.first.map { "\($0.conditions), \($0.temperature) °C" } ?? "no days"
                    lines.append("  \(ResultOutput.pad(city, to: width))  \(forecast.location): \(today)")
                    json.append(Outcome(city: city, forecast: forecast))
                case .failure(let error):
                    let message = Self.message(of: error)
                    lines.append("  \(ResultOutput.pad(city, to: width))  ✕ \(message)")
                    json.append(
                        Outcome(city: city, error: message, code: (error as? BusinessError).map { "\($0.code)" }))
                }
            }
            let failed = outcomes.filter { if case .failure = $0 { true } else { false } }.count
            lines.append("\(outcomes.count - failed) of \(outcomes.count) forecasts, \(failed) failed.")
            try session.output.emit(text: lines.joined(separator: "\n"), json: json)
            // The batch as a whole fails as its first failure does, so the exit status tells.
            for case .failure(let error) in outcomes {
                throw BatchFailure(failed: failed, total: outcomes.count, first: error)
            }
        }

        /// What a person reads about a failed member.
        static func message(of error: any Error) -> String {
            if let business = error as? BusinessError { return business.serverMessage ?? business.message }
            return FeedbackSystem.catalog.warning(for: error)?.text ?? String(describing: error)
        }
    }
}

/// Some members of a batch failed: the status is that of the first failure, and the warning
/// counts them (each member's failure is on its own line of the result).
struct BatchFailure: Error, Errorable, CustomStringConvertible {
    var failed: Int
    var total: Int
    var first: any Error
    var description: String { "\(failed) of \(total) forecasts failed; the first: \(first)" }
    var message: String? { "\(failed) of \(total) forecasts failed." }
    var isFailure: Bool { true }
}

/// The `--mask` choices.
enum MaskChoice: String, ExpressibleByArgument, CaseIterable, Sendable {
    case spinner, hud, none

    /// The load type for `container`.
    func loadType(city: String, container: any Containable) -> LoadType {
        switch self {
        case .spinner: .masked(SpinnerMask(), container: container)
        case .hud: .masked(HUDMask(text: "Loading the forecast for \(city)…"), container: container)
        case .none: .none
        }
    }
}

/// The `--container` choices.
enum ContainerChoice: String, ExpressibleByArgument, CaseIterable, Sendable {
    case screen, panel, row, button, refresh, log

    /// The container for `city`: for `log`, a scrolling log in the city's panel, where its mask goes.
    func container(city: String) -> any Containable {
        switch self {
        case .screen: Screen()
        case .panel: Panel(title: city)
        case .row: ListRow(label: city)
        case .button: ActionLine(label: "Refresh \(city)")
        case .refresh:
            RefreshHeader(label: FeedbackSystem.catalog.text(DemoMessages.refreshingForecast, ["city": city]))
        case .log: ScrollingLog(id: "forecast", in: Panel(title: city))
        }
    }
}
