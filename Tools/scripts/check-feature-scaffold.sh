#!/usr/bin/env bash
# Proves `make feature` end to end, in a scratch copy of the checkout: scaffolds a module,
# checks its layering and format, builds it with the gate's flags, runs its generated tests
# (against its own routes of the mock backend), removes it, and fails unless the copy is then
# exactly as it was (`git status` clean). `make test` runs it after `make build`
# (`make feature-check` alone).
#
# The copy reuses the checkout's build: SwiftPM keys what it has built by absolute paths, so a
# copy elsewhere would rebuild everything (about 8 minutes). In a mount namespace of its own
# (unshare; root, or user namespaces), the copy is mounted over the checkout's path and the
# checkout's .build over the copy's, so only the new module, its tests and the link are built.
# The checkout itself is never written; its next build links the test bundle again.
#
# Environment: SWIFT (swift), PYTHON (python3), ROOT_FLAGS (the gate's flags),
# FEATURE_CHECK_NAME (ScaffoldProbe: a name no module may have).
set -euo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
SWIFT=${SWIFT:-swift}
PYTHON=${PYTHON:-python3}
ROOT_FLAGS=${ROOT_FLAGS:---explicit-target-dependency-import-check error -Xswiftc -warnings-as-errors --enable-all-traits}
name=${FEATURE_CHECK_NAME:-ScaffoldProbe}

if [[ ${1:-} == --inside ]]; then
    # In the namespace: $root shows the copy, with the checkout's build in it.
    scratch=$2
    mount --bind "$root/.build" "$scratch/copy/.build"
    mount --rbind "$scratch/copy" "$root"
    cd "$root"
    say() { printf 'feature-check: %s\n' "$*"; }
    "$PYTHON" Tools/scripts/feature.py add "$name"
    "$PYTHON" Tools/check-layering.py
    "$SWIFT" format lint --strict --recursive "Packages/Features/$name" "Tests/${name}Tests"
    say "building $name with the gate's flags"
    # shellcheck disable=SC2086 # the flags are words
    "$SWIFT" build --build-tests $ROOT_FLAGS 2>&1 | tee "$scratch/build.log" | grep -E "error|warning:|Build complete" || true
    if ! grep -q "Build complete" "$scratch/build.log"; then
        cat "$scratch/build.log" >&2
        say "the scaffolded $name does not build" >&2
        exit 1
    fi
    # shellcheck disable=SC2086
    "$SWIFT" test --skip-build $ROOT_FLAGS --filter "^${name}Tests\\." 2>&1 | tee "$scratch/test.log"
    if ! grep -qE "Test run with [1-9][0-9]* tests? .*passed" "$scratch/test.log"; then
        say "the scaffolded ${name}Tests ran no test, or not every one passed" >&2
        exit 1
    fi
    "$PYTHON" Tools/scripts/feature.py remove "$name"
    left=$(git status --porcelain --untracked-files=all)
    if [[ -n $left ]]; then
        printf '%s\n' "$left" >&2
        say "make remove-feature NAME=$name left the copy changed" >&2
        exit 1
    fi
    say "$name scaffolded, built, tested and removed; the copy is as it was"
    exit 0
fi

if [[ -e "$root/Packages/Features/$name" ]]; then
    echo "feature-check: Packages/Features/$name exists; set FEATURE_CHECK_NAME to a free name" >&2
    exit 1
fi
if [[ ! -d "$root/.build" ]]; then
    echo "feature-check: no build in $root/.build; run make build first" >&2
    exit 2
fi
unshare=(unshare --mount --propagation private)
((EUID == 0)) || unshare=(unshare --map-root-user --mount --propagation private)
if ! "${unshare[@]}" true 2>/dev/null; then
    echo "feature-check: needs a mount namespace (${unshare[*]}): run as root, or allow user namespaces" >&2
    exit 2
fi

scratch=$(mktemp -d "${TMPDIR:-/tmp}/parley-feature-check.XXXXXX")
trap 'rm -rf "$scratch"' EXIT
# The copy: the files git sees (tracked, and untracked but not ignored), as they are now,
# with their times, so that nothing already built looks changed.
mkdir "$scratch/copy"
(cd "$root" && git ls-files -z --cached --others --exclude-standard |
    while IFS= read -r -d '' file; do [[ -e $file ]] && printf '%s\0' "$file"; done |
    tar --null -T - -cf -) | tar -xpf - -C "$scratch/copy"
mkdir -p "$scratch/copy/.build"
# Ignored, but what the build resolved: without it the copy would resolve its dependencies anew.
if [[ -f "$root/Package.resolved" ]]; then cp -p "$root/Package.resolved" "$scratch/copy/"; fi
git -C "$scratch/copy" init -q
git -C "$scratch/copy" add -A
git -C "$scratch/copy" -c user.name=check -c user.email=check@localhost commit -qm copy

"${unshare[@]}" env SWIFT="$SWIFT" PYTHON="$PYTHON" ROOT_FLAGS="$ROOT_FLAGS" FEATURE_CHECK_NAME="$name" \
    bash "$root/Tools/scripts/check-feature-scaffold.sh" --inside "$scratch"
