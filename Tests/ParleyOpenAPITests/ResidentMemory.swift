import Foundation

/// The resident set of this process, from `/proc/self/statm`, in bytes; 0 where it cannot be read.
///
/// The streaming tests sample it while hundreds of MiB go through a body: a transport that
/// collected the body would hold all of it at once.
func residentBytes() -> Int {
    guard let text = try? String(contentsOfFile: "/proc/self/statm", encoding: .utf8) else { return 0 }
    let fields = text.split(separator: " ")
    guard fields.count > 1, let pages = Int(fields[1]) else { return 0 }
    return pages * Int(sysconf(Int32(_SC_PAGESIZE)))
}
