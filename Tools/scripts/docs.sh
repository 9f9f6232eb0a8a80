#!/usr/bin/env bash
#
# Builds the DocC documentation of every library product with swift-docc-plugin, and fails
# on any warning docc reports: a ``Symbol`` link that resolves to nothing above all.
#
#   Tools/scripts/docs.sh              # what `make docs` runs
#
# The modules are the targets of the library products in Package.swift, read from
# `swift package dump-package`, so a new product is documented (and checked) without a
# change here. docc runs with --warnings-as-errors: unresolved links, unknown topics and
# malformed directives fail the build, each printed with the file and line it is on.
#
# The modules are built as combined documentation, each after the modules it depends on and
# against their archives, so a link may name a symbol of a module below its own with an
# absolute path: ``/Transport/TransportError`` from Downloads, Forms or TransportCurl.
#
# The plugin (swift-docc-plugin) is an ordinary dependency of Package.swift; no product uses
# it, so a package that depends on Parley never resolves it. It runs with every package trait
# on, as the gate's builds do, so that the optional products (ParleyObservability,
# ParleyServiceLifecycle) are documented and checked too, and with a scratch folder of its own,
# .build/docs, so the documentation neither rebuilds nor is rebuilt by the build the gate shares
# between `make build` and `swift test`.
#
# The archive, every module in one, is .build/docs/plugins/Swift-DocC/outputs/Parley.doccarchive.

set -euo pipefail

SWIFT="${SWIFT:-swift}"
PYTHON="${PYTHON:-python3}"

log() { printf 'docs: %s\n' "$*"; }
die() { printf 'docs: error: %s\n' "$*" >&2; exit 1; }

repo="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
cd "$repo"
scratch="$repo/.build/docs"

# The manifest as everyone else sees it: its products are what a user can import.
manifest="$("$SWIFT" package dump-package)" || die "cannot read Package.swift"
read -r -a modules <<<"$(printf '%s' "$manifest" | "$PYTHON" -c '
import json, sys
targets = []
for product in json.load(sys.stdin)["products"]:
    if "library" in product["type"]:
        targets += [name for name in product["targets"] if name not in targets]
print(" ".join(targets))
')"
((${#modules[@]} > 0)) || die "Package.swift declares no library product"

mkdir -p "$scratch"

target_args=()
for module in "${modules[@]}"; do
    target_args+=(--target "$module")
done

log "building the documentation of ${modules[*]}"
"$SWIFT" package --scratch-path "$scratch" --enable-all-traits \
    generate-documentation "${target_args[@]}" --enable-experimental-combined-documentation \
    --warnings-as-errors ||
    die "the documentation build failed: docc's warnings count as errors, see above"
log "ok: $scratch/plugins/Swift-DocC/outputs/Parley.doccarchive"
