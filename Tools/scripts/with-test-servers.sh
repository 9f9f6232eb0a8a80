#!/usr/bin/env bash
#
# Runs one command with the test servers up, then stops them, whatever the command did.
#
#   Tools/scripts/with-test-servers.sh swift test --filter RedirectTests
#
# The command sees the PARLEY_* variables of .test-servers/env (see test-servers.sh) and
# PARLEY_REQUIRE_SERVERS=1, so a test that needs a server fails rather than skips when
# that server is missing. The exit status is the command's.

set -euo pipefail

(($# > 0)) || { echo "usage: $0 COMMAND [ARGUMENT...]" >&2; exit 2; }

servers="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)/test-servers.sh"
repo="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"

trap 'bash "$servers" stop' EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

bash "$servers" start

set -a
# shellcheck source=/dev/null
. "$repo/.test-servers/env"
set +a
export PARLEY_REQUIRE_SERVERS=1

status=0
"$@" || status=$?
exit "$status"
