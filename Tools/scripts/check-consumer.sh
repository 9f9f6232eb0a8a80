#!/usr/bin/env bash
#
# Builds Tests/Consumer, a package that depends on Parley as a user's does (a git URL and a
# version), sends one request with it, and fails when it resolved any package that Parley's
# library products do not need. Then the same for Tests/ConsumerObservability, which turns on
# the package trait `Observability` and uses ParleyObservability: it may resolve the two
# packages of that product, and nothing else. Then Tests/ConsumerOpenAPI, which turns on the trait
# `OpenAPI` and uses ParleyOpenAPI: it may add swift-openapi-runtime, and nothing else. Then
# Tests/ConsumerServiceLifecycle, with the trait `ServiceLifecycle` and ParleyServiceLifecycle:
# swift-service-lifecycle and its two dependencies, and nothing else. Then Tests/ConsumerProtobuf,
# with the trait `Protobuf` and ParleyProtobuf: swift-protobuf, and nothing else.
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
# What the trait `Observability` adds: swift-metrics and swift-distributed-tracing (whose
# releases since 1.7 hold the service context themselves, without swift-service-context).
expected_observability="parley swift-distributed-tracing swift-http-types swift-log swift-metrics"
# What the trait `OpenAPI` adds: swift-openapi-runtime, whose only dependency is swift-http-types.
expected_openapi="parley swift-http-types swift-log swift-openapi-runtime"
# What the trait `ServiceLifecycle` adds: swift-service-lifecycle, and the packages it depends
# on itself (swift-async-algorithms, which brings swift-collections).
expected_service_lifecycle="parley swift-async-algorithms swift-collections swift-http-types swift-log swift-service-lifecycle"
# What the trait `Protobuf` adds: swift-protobuf, which depends on nothing.
expected_protobuf="parley swift-http-types swift-log swift-protobuf"

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

# Builds the consumer package in $1, compares what it resolved with $2, and runs its binary $3
# against httpbin; $4 says what a surplus package means.
check() {
    local name=$1 wanted=$2 binary=$3 advice=$4
    cp -R "$repo/Tests/$name" "$work/$name"
    rm -rf "$work/$name/.build" "$work/$name/Package.resolved"

    log "building Tests/$name"
    swift build --package-path "$work/$name" 2>&1 | tail -n 3

    local resolved
    resolved="$(swift package --package-path "$work/$name" show-dependencies --format json |
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
    if [[ $resolved != "$wanted" ]]; then
        die "Tests/$name resolved [$resolved], but needs only [$wanted]. $advice"
    fi

    log "sending one request to $PARLEY_HTTPBIN_URL"
    "$(swift build --package-path "$work/$name" --show-bin-path)/$binary" "$PARLEY_HTTPBIN_URL" ||
        die "the request of Tests/$name failed"
    log "ok: Tests/$name builds, sends a request and resolves only [$wanted]"
}

export PARLEY_GIT_URL="file://$work/parley"
check Consumer "$expected" parley-consumer \
    "A package was added to the root Package.swift that a user would now fetch and build: move what only tools or tests need into a nested package (Tools/, Apps/), put what an optional product needs behind a trait (as Observability), or, if the library really needs it, add it here and to README.md."
check ConsumerObservability "$expected_observability" parley-observability-consumer \
    "The trait Observability brings a package that ParleyObservability does not need: keep it out of the product's dependencies, or add it here and to README.md."
check ConsumerOpenAPI "$expected_openapi" parley-openapi-consumer \
    "The trait OpenAPI brings a package that ParleyOpenAPI does not need: keep it out of the product's dependencies, or add it here and to README.md."
check ConsumerServiceLifecycle "$expected_service_lifecycle" parley-service-lifecycle-consumer \
    "The trait ServiceLifecycle brings a package that ParleyServiceLifecycle does not need: keep it out of the product's dependencies, or add it here and to README.md."
check ConsumerProtobuf "$expected_protobuf" parley-protobuf-consumer \
    "The trait Protobuf brings a package that ParleyProtobuf does not need: keep it out of the product's dependencies, or add it here and to README.md."
