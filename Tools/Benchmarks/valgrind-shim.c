// Keeps a Swift program with an async main alive under Debian 12's valgrind (3.19): preload it
// into the program valgrind runs.
//
//   . Tools/Benchmarks/valgrind-shim.sh && shim=$(build_valgrind_shim "$work")
//   LD_PRELOAD="$shim" valgrind --tool=callgrind PROGRAM ...
//
// Before it lets a thread block in rt_sigsuspend, valgrind 3.19 removes its own signal
// (VG_SIGVGKILL, which it uses to stop threads) from the mask the program passed, in place: it
// writes into the program's memory. libdispatch's dispatch_main() ends the main thread in
// sigsuspend() on a mask that is a `static const` (read-only memory), and the Swift runtime calls
// dispatch_main() once the task of an async main suspends, so valgrind faults on the write and
// dies with SIGSEGV. This sigsuspend passes the kernel a copy on the stack instead; it behaves the
// same in every other way.

#define _GNU_SOURCE
#include <signal.h>
#include <sys/syscall.h>
#include <unistd.h>

int sigsuspend(const sigset_t *mask) {
    sigset_t copy = *mask;
    return (int)syscall(SYS_rt_sigsuspend, &copy, _NSIG / 8);
}
