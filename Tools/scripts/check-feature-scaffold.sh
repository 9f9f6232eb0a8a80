#!/usr/bin/env bash
# Proves `make feature` end to end: scaffolds a module, checks its layering and format, builds
# it with the gate's flags, runs its generated tests (against its own routes of the mock
# backend), removes it, and fails unless the checkout is then exactly as it was (`git status`
# and Package.swift as before). `make test` runs it after `make build` (`make feature-check`
# alone).
#
# It works in the checkout itself, with its build: only the new module, its tests and the
# link are built (the gate's next build links the test bundle again). A copy of the checkout
# cannot reuse the build: llbuild knows a source by its path, size, time and inode, so a copy,
# even mounted at the same path, recompiles every target of the root (11 minutes on two busy
# cores, against about one here). The module is removed whatever happens, on exit.
#
# Environment: SWIFT (swift), PYTHON (python3), ROOT_FLAGS (the gate's flags),
# FEATURE_CHECK_NAME (ScaffoldProbe: a name no module may have).
set -euo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
SWIFT=${SWIFT:-swift}
PYTHON=${PYTHON:-python3}
ROOT_FLAGS=${ROOT_FLAGS:---explicit-target-dependency-import-check error -Xswiftc -warnings-as-errors --enable-all-traits}
name=${FEATURE_CHECK_NAME:-ScaffoldProbe}
cd "$root"
say() { printf 'feature-check: %s\n' "$*"; }

if [[ -e "Packages/Features/$name" || -e "Tests/${name}Tests" ]]; then
    say "Packages/Features/$name or Tests/${name}Tests exists; set FEATURE_CHECK_NAME to a free name" >&2
    exit 1
fi
status_before=$(git status --porcelain --untracked-files=all)
manifest_before=$(sha256sum Package.swift)
logs=$(mktemp -d "${TMPDIR:-/tmp}/parley-feature-check.XXXXXX")
cleanup() {
    if [[ -e "Packages/Features/$name" ]]; then
        "$PYTHON" Tools/scripts/feature.py remove "$name" >/dev/null || true
    fi
    rm -rf "$logs"
}
trap cleanup EXIT

"$PYTHON" Tools/scripts/feature.py add "$name"
"$PYTHON" Tools/check-layering.py
"$SWIFT" format lint --strict --recursive "Packages/Features/$name" "Tests/${name}Tests"
say "building $name with the gate's flags"
# shellcheck disable=SC2086 # the flags are words
"$SWIFT" build --build-tests $ROOT_FLAGS >"$logs/build.log" 2>&1 || true
grep -E "error|warning: [^']|Build complete" "$logs/build.log" || true
if ! grep -q "Build complete" "$logs/build.log"; then
    cat "$logs/build.log" >&2
    say "the scaffolded $name does not build" >&2
    exit 1
fi
# shellcheck disable=SC2086
"$SWIFT" test --skip-build $ROOT_FLAGS --filter "^${name}Tests\\." 2>&1 | tee "$logs/test.log"
if ! grep -qE "Test run with [1-9][0-9]* tests? .*passed" "$logs/test.log"; then
    say "the scaffolded ${name}Tests ran no test, or not every one passed" >&2
    exit 1
fi
"$PYTHON" Tools/scripts/feature.py remove "$name"
if [[ $(git status --porcelain --untracked-files=all) != "$status_before" ]] ||
    [[ $(sha256sum Package.swift) != "$manifest_before" ]]; then
    git status --short >&2
    say "make remove-feature NAME=$name left the checkout changed" >&2
    exit 1
fi
say "$name scaffolded, built, tested and removed; the checkout is as it was"
