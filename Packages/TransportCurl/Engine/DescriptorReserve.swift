import CCurl

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// The file descriptors the engine leaves to the rest of the process: the top of the range
/// `RLIMIT_NOFILE` allows, which no socket of the engine may take.
///
/// A process that has no descriptor left does not only fail its next `open(2)`: on Linux,
/// Swift's global executor runs on libdispatch, whose worker-pool monitor opens
/// `/proc/<tid>/stat` once a second while work is queued, and crashes the process (a trap,
/// "registered worker exited prematurely") when that open fails. So an engine that let
/// libcurl take every descriptor would turn "too many requests at once" into a crash, now and
/// then, of whatever process it runs in.
///
/// libcurl opens its sockets through the engine (`CURLOPT_OPENSOCKETFUNCTION`): a socket the
/// system numbers in the reserve is closed again at once, and the transfer fails with an
/// ``/Transport/ErrorCategory/outOfDescriptors`` error that says so. A new descriptor takes
/// the lowest free number, so a socket numbered below the reserve leaves every number in it
/// as it was: the engine never holds one there, whatever the number of transports, and the
/// reserve is free unless the rest of the process fills it. The limit is read for each new
/// connection (a call per connection, none per request on a kept-alive one), so a limit the
/// process raises takes effect at once.
enum DescriptorReserve {
    /// How many descriptors at the top of `limit` the engine leaves free: a thirty-second of
    /// the limit, at least 32, and never more than half of it.
    static func size(forLimit limit: Int) -> Int {
        min(max(32, limit / 32), limit / 2)
    }

    /// Whether the engine may keep a socket numbered `descriptor` under `limit` (`nil`: no
    /// limit, or none could be read).
    static func allows(_ descriptor: Int32, limit: Int?) -> Bool {
        guard let limit else { return true }
        return Int(descriptor) < limit - size(forLimit: limit)
    }
}

/// `CURLOPT_OPENSOCKETFUNCTION`: opens the socket libcurl asks for, close-on-exec, unless the
/// system numbers it in the ``DescriptorReserve``; then it records the limit on the handle
/// (`CURLOPT_OPENSOCKETDATA`, an unretained ``CurlEasyHandle``, which outlives libcurl's use
/// of it) for the transfer's error, and refuses. Called on the loop thread.
let curlOpenSocketCallback: curl_opensocket_callback = { context, _, address in
    guard let address else { return parley_socket_bad }
    let descriptor = socket(
        address.pointee.family, address.pointee.socktype | Int32(SOCK_CLOEXEC.rawValue), address.pointee.protocol)
    guard descriptor >= 0 else { return parley_socket_bad }
    let limit = CurlErrorMapping.descriptorLimit()
    guard DescriptorReserve.allows(descriptor, limit: limit) else {
        close(descriptor)
        if let context, let limit {
            Unmanaged<CurlEasyHandle>.fromOpaque(context).takeUnretainedValue().refusedAtDescriptorLimit = limit
        }
        return parley_socket_bad
    }
    return descriptor
}
