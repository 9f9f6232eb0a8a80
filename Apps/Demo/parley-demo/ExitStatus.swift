import ArgumentParser
import Forms
import HTTPTypes
import Mapping
import Transport

/// The exit statuses of parley-demo, and which failure gets which.
enum ExitStatus: Int32 {
    /// Success.
    case success = 0
    /// The server answered with a business error: an envelope code other than 200.
    case business = 1
    /// The command line was wrong: an unknown option, an invalid URL, header or value.
    case usage = 2
    /// The network or the HTTP status failed, after the retries.
    case network = 3
    /// The answer arrived but does not decode into what was asked for.
    case undecodable = 4
    /// Ctrl-C (SIGINT).
    case interrupted = 130
    /// SIGTERM.
    case terminated = 143

    /// The status of a command that failed with `error`.
    init(for error: any Error) {
        var error = (error as? RequestFailure)?.underlying ?? error
        if let tour = error as? TourIncomplete { error = tour.first }
        if let batch = error as? BatchFailure { error = batch.first }
        switch error {
        case let error as BusinessError:
            // An envelope that came with an HTTP error status (a 503 after the retries) is an
            // HTTP failure first.
            self = (error.status?.code ?? 200) >= 400 ? .network : .business
        case is ValidationError, is UsageError:
            self = .usage
        case let error as FormError:
            self = error.category == .invalidParameters || error.category == .invalidURL ? .usage : .network
        case let error as TransportError:
            switch error.category {
            case .invalidURL, .invalidHeader: self = .usage
            case .invalidBody where !error.mayHaveReachedServer: self = .usage
            default: self = .network
            }
        case let error as MappingError:
            self = error.category == .unacceptableStatus ? .network : .undecodable
        default:
            self = .network
        }
    }
}

/// A mistake on the command line found after parsing, such as a header without a colon.
struct UsageError: Error, CustomStringConvertible {
    /// What is wrong and how to write it.
    var message: String
    var description: String { message }

    init(_ message: String) {
        self.message = message
    }
}
