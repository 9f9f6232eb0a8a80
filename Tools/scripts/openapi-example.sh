#!/usr/bin/env bash
#
# Builds the nested package Examples/WeatherOpenAPI (a client made by swift-openapi-generator's
# build plugin, sending through ParleyOpenAPI) and runs its executable once against a mock
# server of its own: every operation of its openapi.yaml, checked against what the mock backend
# answers. `make test` runs it after the tests.
#
#   Tools/scripts/openapi-example.sh
#
# The example builds in its own folder (Examples/WeatherOpenAPI/.build) with the gate's import
# check but not its warnings-as-errors: Swift 6.3 warns of the unused public imports of the
# generated files, which the generator silences from Swift 6.4 on. The mock server is the tools'
# (`make tools`: PARLEY_TOOLS_BIN, .build/tools/debug by default), built there when missing. The first build
# compiles the generator and its dependencies (swift-openapi-generator, OpenAPIKit, Yams, the
# argument parser, swift-collections) for the plugin: about 6 minutes on two busy cores; later
# builds take seconds. The server is stopped by its process id whatever happens.

set -euo pipefail

log() { printf 'openapi-example: %s\n' "$*"; }
die() { printf 'openapi-example: error: %s\n' "$*" >&2; exit 1; }

repo="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
swift="${SWIFT:-swift}"
# Word splitting intended: the flags are several words.
# shellcheck disable=SC2206
flags=(${SWIFT_FLAGS:-})
example="$repo/Examples/WeatherOpenAPI"

example_flags=(--explicit-target-dependency-import-check error)

log "building Examples/WeatherOpenAPI"
"$swift" build --package-path "$example" "${example_flags[@]}" --product weather-openapi
binary="$("$swift" build --package-path "$example" "${example_flags[@]}" --show-bin-path)/weather-openapi"

tools_bin="${PARLEY_TOOLS_BIN:-$repo/.build/tools/debug}"
server_binary="$tools_bin/parley-mock-server"
if [[ ! -x $server_binary ]]; then
    log "building the mock server"
    "$swift" build --package-path "$repo/Tools/All" --scratch-path "$(dirname "$tools_bin")" "${flags[@]}" \
        --product parley-mock-server
fi

work="$(mktemp -d "${TMPDIR:-/tmp}/parley-openapi-example.XXXXXX")"
server_pid=
cleanup() {
    if [[ -n $server_pid ]]; then
        kill "$server_pid" 2>/dev/null || true
        wait "$server_pid" 2>/dev/null || true
    fi
    rm -rf "$work"
}
trap cleanup EXIT

"$server_binary" --host 127.0.0.1 --port 0 >"$work/server.out" &
server_pid=$!
for _ in $(seq 1 300); do
    grep -q '^listening on ' "$work/server.out" && break
    kill -0 "$server_pid" 2>/dev/null || die "the mock server exited before listening"
    sleep 0.1
done
base_url="$(sed -n 's/^listening on //p' "$work/server.out")"
[[ -n $base_url ]] || die "the mock server did not print its address within 30 seconds"

log "calling every operation against $base_url"
"$binary" "$base_url" || die "an operation of the example failed (see above)"
log "ok: every operation of Examples/WeatherOpenAPI answered through Parley"
