public import ArgumentParser

/// What each benchmark request does.
///
/// Every peer implements the three modes the same way, so their `RESULT` lines compare like with like.
public enum BenchmarkMode: String, CaseIterable, Sendable, ExpressibleByArgument {
    /// `GET` the URL and collect the response body in memory.
    case get
    /// `GET` the URL and stream the body to `--out`, chunk by chunk, never holding it whole.
    case download
    /// `POST` the file `--in`, streamed from disk, and collect the response body in memory.
    case upload
}
