#!/usr/bin/env bash
#
# Runs one command with the test servers up, then stops them, whatever the command did.
#
#   Tools/scripts/with-test-servers.sh swift test --filter RedirectTests
#
# The command sees the PARLEY_* variables of .test-servers/env (see test-servers.sh) and
# PARLEY_REQUIRE_SERVERS=1, so a test that needs a server fails rather than skips when
# that server is missing. The exit status is the command's.
#
# A Swift program that crashes under the command (the test process, or a tool a test runs)
# writes its backtrace to a file in .build/crash-logs instead of the middle of the output,
# with symbols but no line lookups, which take minutes for a debug test binary. When the
# command fails, each crash's first lines, the crashed thread among them, are printed last,
# after the servers stop, where the end of a long log still shows them.

set -euo pipefail

(($# > 0)) || { echo "usage: $0 COMMAND [ARGUMENT...]" >&2; exit 2; }

servers="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)/test-servers.sh"
repo="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"

crash_logs="$repo/.build/crash-logs"
rm -rf "$crash_logs"
mkdir -p "$crash_logs"
export SWIFT_BACKTRACE="enable=yes,interactive=no,color=no,symbolicate=fast,output-to=$crash_logs"

status=0
finish() {
    bash "$servers" stop
    if ((status != 0)); then
        local log
        for log in "$crash_logs"/*; do
            [[ -f "$log" ]] || continue
            echo "with-test-servers: a crash, in full in $log:"
            # The heading, then the crashed thread's frames up to the next thread or the registers.
            awk 'on && ((/^Thread / && !/crashed:$/) || /^Registers:/) { exit }
                 /^Thread .*crashed:$/ { on = 1 }
                 NR <= 3 || on { print }' "$log" | head -n 40
        done
    fi
}
trap finish EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

bash "$servers" start

set -a
# shellcheck source=/dev/null
. "$repo/.test-servers/env"
set +a
export PARLEY_REQUIRE_SERVERS=1

"$@" || status=$?
exit "$status"
