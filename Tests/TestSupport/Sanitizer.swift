import Glibc

/// The sanitizer this test process was built with, if any: `make sanitize` builds the tests
/// and the tools they run with ThreadSanitizer, then AddressSanitizer.
package enum Sanitizer {
    /// `"thread"` or `"address"` under `make sanitize`, `nil` in a plain build.
    ///
    /// Found by the runtime's entry points in the process. A test that measures a child's
    /// memory checks its bound only without a sanitizer: under one, the peak is mostly the
    /// sanitizer's own (shadow memory, AddressSanitizer's quarantine of freed blocks).
    package static let active: String? = {
        let process = dlopen(nil, RTLD_NOW)
        defer { if let process { dlclose(process) } }
        if dlsym(process, "__tsan_init") != nil { return "thread" }
        if dlsym(process, "__asan_init") != nil { return "address" }
        return nil
    }()
}
