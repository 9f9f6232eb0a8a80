#!/usr/bin/env python3
"""Fails when a target of Package.swift depends on something its layer may not use.

Usage, from anywhere in the checkout:

    python3 Tools/check-layering.py               # check the manifest
    python3 Tools/check-layering.py --self-test   # prove the check can fail

The manifest is read with `swift package dump-package`. Every dependency edge of every
target is compared with the layer table below (the table of docs/ARCHITECTURE.md), and
each forbidden edge is printed on a line of its own:

    SystemAPI (layer 4) must not depend on TransportCurl (layer 3)

A target that is not in the table is an error too, unless its path is under Apps/,
Tools/ or Tests/, or it is a feature module under Packages/Features/. Test targets may
depend on anything. Exit status: 0 when no edge is forbidden, 1 otherwise, 2 when the
manifest cannot be read.
"""

from __future__ import annotations

import json
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

# MARK: - The layer table

#: Layer of each named target. Targets under Packages/Features/ are layer 4 and targets
#: under Apps/ or Tools/ are layer 5 without being listed.
LAYERS: dict[str, int] = {
    # 0 System: wrappers of system libraries.
    "CCurl": 0,
    "CLibCrypto": 0,
    "CZlib": 0,
    # 1 Abstractions.
    "Transport": 1,
    # 2 Capabilities.
    "Caching": 2,
    "Coordination": 2,
    "Downloads": 2,
    "Forms": 2,
    "Mapping": 2,
    "Retry": 2,
    "Feedback": 2,
    # 3 Implementations and test doubles.
    "TransportCurl": 3,
    "FeedbackConsole": 3,
    "TransportTesting": 3,
    "FeedbackTesting": 3,
    # 4 Features.
    "SystemAPI": 4,
    "WeatherAPI": 4,
}

FEATURES_PATH = "Packages/Features/"
APP_AND_TOOL_PATHS = ("Apps/", "Tools/")
TEST_PATHS = ("Tests/",)

#: Layers of the targets each layer may depend on.
ALLOWED_LAYERS: dict[int, set[int]] = {
    0: set(),
    1: set(),
    2: {1},
    3: {0, 1, 2},
    4: {1, 2},
}

#: Edges between two targets allowed beyond ALLOWED_LAYERS.
ALLOWED_EDGES: set[tuple[str, str]] = {
    ("Feedback", "Mapping"),
    # A client's call can ask for the cached answer first, then the network's.
    ("Forms", "Caching"),
    # Clients retry their requests, and downloads their attempts, under one policy.
    ("Forms", "Retry"),
    ("Downloads", "Retry"),
    # Download forms hand their transfers to the crash-safe downloads.
    ("Forms", "Downloads"),
    # Compressing stored responses is part of the cache's job.
    ("Caching", "CZlib"),
    # Verifying a download's SHA-256 is part of Downloads' job.
    ("Downloads", "CLibCrypto"),
}

#: Products of other packages (by product name) each layer may use.
COMMON_PRODUCTS = {"HTTPTypes", "HTTPTypesFoundation", "Logging"}
ALLOWED_PRODUCTS: dict[int, set[str]] = {
    0: set(),
    1: COMMON_PRODUCTS,
    2: COMMON_PRODUCTS,
    3: COMMON_PRODUCTS,
    4: COMMON_PRODUCTS,
}

ANYTHING = 5  # Apps, tools and tests may depend on anything.


# MARK: - The check


@dataclass(frozen=True)
class Target:
    name: str
    kind: str
    path: str
    dependencies: tuple[tuple[str, str, str | None], ...]  # (kind, name, package)


def targets_of(manifest: dict) -> list[Target]:
    """The targets of a `swift package dump-package` document."""
    targets = []
    for entry in manifest.get("targets", []):
        kind = entry.get("type", "regular")
        path = entry.get("path") or f"{'Tests' if kind == 'test' else 'Sources'}/{entry['name']}"
        dependencies = []
        for dependency in entry.get("dependencies", []):
            # Each is one of {"byName": [name, condition]}, {"target": [name, condition]},
            # {"product": [name, package, moduleAliases, condition]}.
            (form, values), = dependency.items()
            if form == "product":
                dependencies.append(("product", values[0], values[1]))
            else:
                dependencies.append((form, values[0], None))
        targets.append(Target(entry["name"], kind, path.rstrip("/") + "/", tuple(dependencies)))
    return targets


def layer_of(target: Target) -> int | None:
    if target.kind == "test" or target.path.startswith(TEST_PATHS):
        return ANYTHING
    if target.name in LAYERS:
        return LAYERS[target.name]
    if target.path.startswith(FEATURES_PATH):
        return 4
    if target.path.startswith(APP_AND_TOOL_PATHS):
        return ANYTHING
    return None


def problems_in(manifest: dict) -> tuple[int, list[str]]:
    """The number of targets checked, and one message per forbidden edge or unknown target."""
    targets = targets_of(manifest)
    by_name = {target.name: target for target in targets}
    problems = []
    for target in targets:
        layer = layer_of(target)
        if layer is None:
            problems.append(
                f"unknown target {target.name} ({target.path.rstrip('/')}): add it to the layer table "
                f"in Tools/check-layering.py and docs/ARCHITECTURE.md"
            )
            continue
        if layer == ANYTHING:
            continue
        for form, name, package in target.dependencies:
            dependency = by_name.get(name) if form != "product" else None
            if dependency is None:
                # A product of another package (a `byName` that is no target here is one too).
                if name not in ALLOWED_PRODUCTS[layer]:
                    source = f" (package {package})" if package else ""
                    problems.append(
                        f"{target.name} (layer {layer}) must not depend on product {name}{source}; "
                        f"layer {layer} may use: {', '.join(sorted(ALLOWED_PRODUCTS[layer])) or 'none'}"
                    )
                continue
            dependency_layer = layer_of(dependency)
            if dependency_layer is None:
                continue  # Reported as unknown on its own.
            if dependency_layer in ALLOWED_LAYERS[layer] or (target.name, dependency.name) in ALLOWED_EDGES:
                continue
            shown = "an app, tool or test" if dependency_layer == ANYTHING else f"layer {dependency_layer}"
            problems.append(f"{target.name} (layer {layer}) must not depend on {dependency.name} ({shown})")
    return len(targets), problems


def dump_package(root: Path) -> dict:
    try:
        result = subprocess.run(
            ["swift", "package", "dump-package"],
            cwd=root,
            check=True,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
    except FileNotFoundError:
        sys.exit("layering: error: `swift` is not on PATH")
    except subprocess.CalledProcessError as error:
        sys.stderr.write(error.stderr)
        sys.stderr.write("layering: error: `swift package dump-package` failed\n")
        sys.exit(2)
    return json.loads(result.stdout)


def check(manifest: dict) -> int:
    count, problems = problems_in(manifest)
    for problem in problems:
        print(problem)
    if problems:
        print(f"layering: {len(problems)} forbidden edge(s) or unknown target(s) in {count} targets")
        return 1
    print(f"layering: {count} targets checked, no forbidden edge")
    return 0


# MARK: - Self-test


def _target(name: str, path: str, *dependencies: str, kind: str = "regular") -> dict:
    """A target as dump-package prints it. A dependency "pkg:Product" is a product."""
    entries = []
    for dependency in dependencies:
        if ":" in dependency:
            package, product = dependency.split(":")
            entries.append({"product": [product, package, None, None]})
        else:
            entries.append({"byName": [dependency, None]})
    return {"name": name, "path": path, "type": kind, "dependencies": entries}


def self_test() -> int:
    """Feeds synthetic manifests to the check and asserts what it finds."""
    good = {
        "targets": [
            _target("CCurl", "Packages/CCurl", kind="system"),
            _target("CLibCrypto", "Packages/CLibCrypto", kind="system"),
            _target("CZlib", "Packages/CZlib", kind="system"),
            _target("Transport", "Packages/Transport", "swift-http-types:HTTPTypes", "swift-log:Logging"),
            _target("Downloads", "Packages/Downloads", "CLibCrypto", "Transport"),
            _target("Mapping", "Packages/Mapping", "Transport"),
            _target("Feedback", "Packages/Feedback", "Mapping", "Transport"),
            _target("Forms", "Packages/Forms", "Downloads", "Transport"),
            _target("TransportCurl", "Packages/TransportCurl", "CCurl", "Transport", "swift-log:Logging"),
            _target("WeatherAPI", "Packages/Features/WeatherAPI", "Forms", "Mapping"),
            _target("ParcelAPI", "Packages/Features/ParcelAPI", "Forms", "Mapping"),
            _target("parley-demo", "Apps/Demo", "TransportCurl", "WeatherAPI", "swift-argument-parser:ArgumentParser"),
            _target("WeatherAPITests", "Tests/WeatherAPITests", "WeatherAPI", "TransportCurl", kind="test"),
        ]
    }
    # The good manifest with some targets replaced and some added.
    changes = [
        _target("SystemAPI", "Packages/Features/SystemAPI", "TransportCurl", "Forms"),
        _target("Retry", "Packages/Retry", "Feedback", "CZlib"),
        _target("Mapping2", "Packages/Mapping2"),
        _target("Feedback", "Packages/Feedback", "FeedbackConsole", "swift-nio:NIOCore"),
        _target("FeedbackConsole", "Packages/FeedbackConsole", "Feedback", "parley-demo"),
        _target("Transport", "Packages/Transport", "Forms"),
        _target("Mapping", "Packages/Mapping", "Downloads", "CZlib", "Transport"),
    ]
    bad_targets = {target["name"]: target for target in good["targets"]}
    bad_targets.update({target["name"]: target for target in changes})
    bad = {"targets": list(bad_targets.values())}
    expected = [
        "SystemAPI (layer 4) must not depend on TransportCurl (layer 3)",
        "Retry (layer 2) must not depend on Feedback (layer 2)",
        "Retry (layer 2) must not depend on CZlib (layer 0)",
        "unknown target Mapping2 (Packages/Mapping2): add it to the layer table",
        "Feedback (layer 2) must not depend on FeedbackConsole (layer 3)",
        "Feedback (layer 2) must not depend on product NIOCore (package swift-nio)",
        "FeedbackConsole (layer 3) must not depend on parley-demo (an app, tool or test)",
        "Transport (layer 1) must not depend on Forms (layer 2)",
        "Mapping (layer 2) must not depend on Downloads (layer 2)",
        "Mapping (layer 2) must not depend on CZlib (layer 0)",
    ]
    failures = []

    count, problems = problems_in(good)
    if problems:
        failures.append(f"a valid manifest was rejected: {problems}")
    if count != len(good["targets"]):
        failures.append(f"checked {count} targets of {len(good['targets'])}")

    _, problems = problems_in(bad)
    for message in expected:
        if not any(problem.startswith(message) for problem in problems):
            failures.append(f"not reported: {message}")
    if len(problems) != len(expected):
        failures.append(f"expected {len(expected)} problems, got {len(problems)}: {problems}")

    for failure in failures:
        print(f"layering self-test: {failure}")
    if failures:
        return 1
    print(f"layering self-test: a bad manifest fails with the {len(expected)} expected messages; a good one passes")
    return 0


def main(arguments: list[str]) -> int:
    if arguments == ["--self-test"]:
        return self_test()
    if arguments:
        print("usage: python3 Tools/check-layering.py [--self-test]", file=sys.stderr)
        return 2
    root = Path(__file__).resolve().parent.parent
    return check(dump_package(root))


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
