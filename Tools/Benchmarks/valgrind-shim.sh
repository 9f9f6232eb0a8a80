# Shared by the benchmark scripts that run a Swift program under valgrind (source it, do not run
# it):
#
#   . "$(dirname "${BASH_SOURCE[0]}")/valgrind-shim.sh"
#   shim=$(build_valgrind_shim "$work")
#   LD_PRELOAD="$shim" valgrind --tool=callgrind PROGRAM ...
#
# build_valgrind_shim DIR compiles valgrind-shim.c, beside this file, into DIR/valgrind-shim.so
# with cc and prints its path; it fails if cc does. valgrind-shim.c says why Debian 12's valgrind
# needs it to run a Swift program with an async main.

build_valgrind_shim() {
    local source
    source="$(dirname "${BASH_SOURCE[0]}")/valgrind-shim.c"
    cc -shared -fPIC -O2 -o "$1/valgrind-shim.so" "$source" && echo "$1/valgrind-shim.so"
}
