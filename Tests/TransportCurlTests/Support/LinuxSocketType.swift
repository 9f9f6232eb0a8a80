/// The socket types and flags of Linux's `socket(2)` (`<bits/socket_type.h>`, the same on x86_64
/// and aarch64), as numbers.
///
/// Glibc's `SOCK_STREAM`, `SOCK_NONBLOCK` and `SOCK_CLOEXEC` come from a header that several C
/// modules of the build include (libcurl's, OpenSSL's, SwiftNIO's shims), and which module Swift
/// credits with it changes from one build to the next: in a file that imports Glibc alone, the
/// names are sometimes not found. Numbers do not depend on that.
enum LinuxSocketType {
    /// `SOCK_STREAM`.
    static let stream: Int32 = 1
    /// `SOCK_NONBLOCK`, the same bit as `O_NONBLOCK`.
    static let nonBlocking: Int32 = 0o4000
    /// `SOCK_CLOEXEC`, the same bit as `O_CLOEXEC`.
    static let closeOnExec: Int32 = 0o2000000
}
