import Hummingbird
import NIOCore

/// The per-request context of the mock server: Hummingbird's core storage plus the connection.
///
/// Routes use the channel for what a well-behaved server never does: `/drop` closes it in the
/// middle of a body, and redirects read the local address for their absolute `Location`.
struct MockRequestContext: RequestContext {
    var coreContext: CoreRequestContextStorage
    /// The connection the request arrived on.
    let channel: any Channel

    init(source: ApplicationRequestContextSource) {
        coreContext = CoreRequestContextStorage(source: source)
        channel = source.channel
    }
}
