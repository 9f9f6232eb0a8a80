#!/usr/bin/env bash
#
# Builds Tests/Consumer, a package that depends on Parley as a user's does (a git URL and a
# version), sends one request with it, and fails when it resolved any package that Parley's
# library products do not need.
#
#   Tools/scripts/check-consumer.sh            # needs PARLEY_HTTPBIN_URL (with-test-servers.sh sets it)
#
# The checkout as it is, uncommitted changes included, is copied into a fresh repository named
# `parley`, committed and tagged 0.1.0; the consumer reaches it through a file:// URL, so
# SwiftPM resolves it exactly as it resolves a remote package. Everything is made in a
# temporary folder and removed afterwards.

set -euo pipefail

# The packages a user of Forms, Mapping and TransportCurl resolves: Parley, and the two
# packages its library needs. Keep README.md ("Adding Parley to a package") in step.
expected="parley swift-http-types swift-log"

log() { printf 'consumer: %s\n' "$*"; }
die() { printf 'consumer: error: %s\n' "$*" >&2; exit 1; }

repo="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
: "${PARLEY_HTTPBIN_URL:?is not set: run this through Tools/scripts/with-test-servers.sh}"

work="$(mktemp -d "${TMPDIR:-/tmp}/parley-consumer.XXXXXX")"
trap 'rm -rf "$work"' EXIT

# The repository a user would clone: the tracked and new (not ignored) files of the checkout.
log "tagging a copy of $repo as 0.1.0"
mkdir "$work/parley"
# (A tracked file deleted in the checkout is left out, as a commit of it would leave it out.)
(
    cd "$repo"
    git ls-files -z --cached --others --exclude-standard |
        while IFS= read -r -d '' file; do [[ -e $file ]] && printf '%s\0' "$file"; done |
        tar --null -T - -cf -
) | tar -xf - -C "$work/parley"
git -C "$work/parley" init -q
git -C "$work/parley" add -A
git -C "$work/parley" -c user.name=consumer -c user.email=consumer@localhost commit -q -m "Parley"
git -C "$work/parley" tag 0.1.0

cp -R "$repo/Tests/Consumer" "$work/consumer"
rm -rf "$work/consumer/.build" "$work/consumer/Package.resolved"
export PARLEY_GIT_URL="file://$work/parley"

log "building the consumer"
swift build --package-path "$work/consumer" 2>&1 | tail -n 3

resolved="$(swift package --package-path "$work/consumer" show-dependencies --format json |
    python3 -c '
import json, sys
def walk(node, seen):
    for child in node.get("dependencies", []):
        seen.add(child["identity"])
        walk(child, seen)
    return seen
print(" ".join(sorted(walk(json.load(sys.stdin), set()))))
')"
log "resolved: $resolved"
if [[ $resolved != "$expected" ]]; then
    die "the consumer resolved [$resolved], but Parley's library products need only [$expected]. A package was added to the root Package.swift that a user would now fetch and build: move what only tools or tests need into a nested package (Tools/, Apps/), or, if the library really needs it, add it here and to README.md."
fi

log "sending one request to $PARLEY_HTTPBIN_URL"
"$(swift build --package-path "$work/consumer" --show-bin-path)/parley-consumer" "$PARLEY_HTTPBIN_URL" ||
    die "the consumer's request failed"
log "ok: a package that depends on Parley by URL and version builds, sends a request and resolves only [$expected]"
