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
# The plugin runs with PARLEY_DOCS=1, under which Package.swift declares the library alone
# and adds the plugin (the end of Package.swift says why). Under that manifest:
#
# - the build has a scratch folder of its own, .build/docs, so the documentation neither
#   rebuilds nor is rebuilt by the build the gate shares between `make build` and `swift test`,
#   and only the library targets and their two packages are compiled for it;
# - Package.resolved is put back as it was afterwards: resolving the smaller manifest would
#   drop the pins of every test-only package from it.
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
manifest="$(env -u PARLEY_DOCS "$SWIFT" package dump-package)" || die "cannot read Package.swift"
read -r -a modules <<<"$(printf '%s' "$manifest" | "$PYTHON" -c '
import json, sys
targets = []
for product in json.load(sys.stdin)["products"]:
    if "library" in product["type"]:
        targets += [name for name in product["targets"] if name not in targets]
print(" ".join(targets))
')"
((${#modules[@]} > 0)) || die "Package.swift declares no library product"

# Put Package.resolved back whatever the plugin does, or remove it if there was none.
mkdir -p "$scratch"
saved="$scratch/Package.resolved.saved"
if [[ -f Package.resolved ]]; then
    cp Package.resolved "$saved"
    trap 'mv -f "$saved" Package.resolved' EXIT
else
    trap 'rm -f Package.resolved' EXIT
fi

target_args=()
for module in "${modules[@]}"; do
    target_args+=(--target "$module")
done

log "building the documentation of ${modules[*]}"
PARLEY_DOCS=1 "$SWIFT" package --scratch-path "$scratch" \
    generate-documentation "${target_args[@]}" --enable-experimental-combined-documentation \
    --warnings-as-errors ||
    die "the documentation build failed: docc's warnings count as errors, see above"
log "ok: $scratch/plugins/Swift-DocC/outputs/Parley.doccarchive"
