/// Which way a transfer's bytes go.
public enum TransferDirection: String, Sendable, Hashable {
    /// A request body going out.
    case upload
    /// A response body coming in.
    case download
}
