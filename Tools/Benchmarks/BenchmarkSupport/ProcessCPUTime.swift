#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// The CPU time this process has consumed so far: user plus system, all threads, from `getrusage(RUSAGE_SELF)`.
///
/// A benchmark reads it before and after the timed window and reports the difference as `cpu_s`.
///
/// - Returns: Seconds, with the microsecond resolution of `struct rusage`.
public func processCPUSeconds() -> Double {
    var usage = rusage()
    #if canImport(Glibc)
        let who = __rusage_who_t(RUSAGE_SELF.rawValue)
    #else
        let who = RUSAGE_SELF
    #endif
    guard getrusage(who, &usage) == 0 else { return 0 }
    func seconds(_ time: timeval) -> Double {
        Double(time.tv_sec) + Double(time.tv_usec) / 1_000_000
    }
    return seconds(usage.ru_utime) + seconds(usage.ru_stime)
}
