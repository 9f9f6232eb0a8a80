#!/usr/bin/env python3
"""Fails when a target of Package.swift depends on something its layer may not use, or when a
document's layer table is not the one this script generates.

Usage, from anywhere in the checkout:

    python3 Tools/check-layering.py                  # check the manifest and the documents
    python3 Tools/check-layering.py --self-test      # prove the check can fail
    python3 Tools/check-layering.py --table [NAME]   # print a generated table (rules, edges, modules)
    python3 Tools/check-layering.py --write-docs     # rewrite the documents' generated tables

The layer table below is the one source of the layers. The manifest is read with
`swift package dump-package`; every dependency edge of every target is compared with the
table, and each forbidden edge is printed on a line of its own:

    SystemAPI (layer 6) must not depend on TransportCurl (layer 5)

A target that is not in the table is an error too, unless its path is under Apps/, Tools/ or
Tests/, or it is a feature module under Packages/Features/. Test targets may depend on anything.

The documents hold the tables between markers, which `--write-docs` fills in:

    <!-- layers:begin rules -->
    ...
    <!-- layers:end -->

`rules` is the layer table (what each layer holds and may depend on) with the edges allowed
beyond it and their reasons, `modules` the dependencies each library module declares in
`Package.swift`. The check fails when a block differs from what this script generates, when
one of DOCUMENTS has no block, and when a document says a module "is layer N", "sits in layer
N", writes "Module (layer N)", or has a table row `| `Module` | N Name |` (README's module
map) with the wrong layer. Exit status: 0 when nothing is wrong, 1 otherwise, 2 when the
manifest cannot be read.
"""

from __future__ import annotations

import difflib
import json
import re
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

# MARK: - The layer table

#: Layer of each named target. Targets under Packages/Features/ are FEATURES without being
#: listed, and targets under Apps/, Tools/ or Tests/ are ANYTHING.
LAYERS: dict[str, int] = {
    # 0 System: wrappers of system libraries.
    "CCurl": 0,
    "CLibCrypto": 0,
    "CZlib": 0,
    # 1 Abstractions.
    "Transport": 1,
    # 2 Capabilities: each on Transport alone.
    "Caching": 2,
    "Coordination": 2,
    "Feedback": 2,
    "Mapping": 2,
    "Retry": 2,
    # 3 Composed capabilities: a capability built on another.
    "Downloads": 3,
    "ParleyObservability": 3,
    "ParleyOpenAPI": 3,
    "ServerSentEvents": 3,
    # 4 Client: forms sent with the capabilities a client adopts.
    "Forms": 4,
    "ParleyProtobuf": 4,
    # 5 Implementations and test doubles.
    "TransportCurl": 5,
    "FeedbackConsole": 5,
    "TransportTesting": 5,
    "FeedbackTesting": 5,
    "ParleyServiceLifecycle": 5,
    # 6 Features.
    "SystemAPI": 6,
    "WeatherAPI": 6,
}

FEATURES = 6
ANYTHING = 7  # Apps, tools and tests may depend on anything.

#: Each layer's name and what it holds, for the generated tables.
LAYER_NAMES: dict[int, tuple[str, str]] = {
    0: ("System", "The C libraries, each behind a module map with typed shims."),
    1: ("Abstractions", "The vocabulary every module shares: requests, responses, the transport protocol, "
        "middleware, the request handles, typed errors."),
    2: ("Capabilities", "One concern each, built on Transport alone."),
    3: ("Composed capabilities", "A capability built on another one."),
    4: ("Client", "Endpoints as forms, sent with the capabilities a client adopts."),
    5: ("Implementations", "The engine, the console and the test doubles: what a composition root or a test "
        "chooses."),
    6: ("Features", "Business APIs: never the engine, the console or a test double."),
    7: ("Apps and tools", "Composition roots, tools and tests, each app or tool a package of its own."),
}

FEATURES_PATH = "Packages/Features/"
APP_AND_TOOL_PATHS = ("Apps/", "Tools/")
TEST_PATHS = ("Tests/",)

#: Layers of the targets each layer may depend on.
ALLOWED_LAYERS: dict[int, set[int]] = {
    0: set(),
    1: set(),
    2: {1},
    3: {1, 2},
    4: {1, 2, 3},
    5: {0, 1, 2},
    6: {1, 2, 3, 4},
}

#: Edges between two targets allowed beyond ALLOWED_LAYERS, each with its reason; the
#: generated tables print the reasons. An edge between two modules of one layer is named here
#: too: ParleyProtobuf's on Forms.
NAMED_EDGES: dict[tuple[str, str], str] = {
    ("Caching", "CZlib"): "Compressing stored responses is part of the cache's job.",
    ("Downloads", "CLibCrypto"): "Verifying a download's SHA-256 is part of its job.",
    ("ParleyServiceLifecycle", "TransportCurl"): "It runs the engine as a service: its graceful shutdown is the engine's.",
    ("ParleyProtobuf", "Forms"): "Its message forms are Forms' forms, sent by Forms' `Requestable`.",
}

#: Products of other packages one module may use beyond its layer's, each with its reason; the
#: generated tables print the reasons.
NAMED_PRODUCTS: dict[tuple[str, str], str] = {
    ("ParleyObservability", "Metrics"): "Its metrics are swift-metrics' (behind the package trait `Observability`).",
    ("ParleyObservability", "Tracing"): "Its spans and propagation are swift-distributed-tracing's (behind the package "
    "trait `Observability`).",
    ("ParleyOpenAPI", "OpenAPIRuntime"): "It is swift-openapi-runtime's `ClientTransport` (behind the package trait "
    "`OpenAPI`).",
    ("ParleyProtobuf", "SwiftProtobuf"): "Its messages are swift-protobuf's (behind the package trait `Protobuf`).",
    ("ParleyServiceLifecycle", "ServiceLifecycle"): "Its `Service` is swift-service-lifecycle's (behind the package "
    "trait `ServiceLifecycle`).",
}

#: Products of other packages (by product name) each layer may use.
COMMON_PRODUCTS = {"HTTPTypes", "HTTPTypesFoundation", "Logging"}
ALLOWED_PRODUCTS: dict[int, set[str]] = {
    0: set(),
    1: COMMON_PRODUCTS,
    2: COMMON_PRODUCTS,
    3: COMMON_PRODUCTS,
    4: COMMON_PRODUCTS,
    5: COMMON_PRODUCTS,
    6: COMMON_PRODUCTS,
}

#: The documents that hold generated tables, from the root of the checkout; each needs at
#: least one block.
DOCUMENTS = ("CONTRIBUTING.md", "docs/ARCHITECTURE.md")

#: Where else a module's layer is named, in prose or in a table row of its own (README's
#: module map, whose "depend on it when" column no script could write): the guides and every
#: DocC catalog.
PROSE_GLOBS = ("README.md", "docs/*.md", "Packages/**/*.docc/*.md", "Tools/**/*.docc/*.md", "Apps/**/*.docc/*.md")


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
        return FEATURES
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
                f"in Tools/check-layering.py, then run it with --write-docs"
            )
            continue
        if layer == ANYTHING:
            continue
        for form, name, package in target.dependencies:
            dependency = by_name.get(name) if form != "product" else None
            if dependency is None:
                # A product of another package (a `byName` that is no target here is one too).
                if name not in ALLOWED_PRODUCTS[layer] and (target.name, name) not in NAMED_PRODUCTS:
                    source = f" (package {package})" if package else ""
                    problems.append(
                        f"{target.name} (layer {layer}) must not depend on product {name}{source}; "
                        f"layer {layer} may use: {', '.join(sorted(ALLOWED_PRODUCTS[layer])) or 'none'}"
                    )
                continue
            dependency_layer = layer_of(dependency)
            if dependency_layer is None:
                continue  # Reported as unknown on its own.
            if dependency_layer in ALLOWED_LAYERS[layer] or (target.name, dependency.name) in NAMED_EDGES:
                continue
            shown = "an app, tool or test" if dependency_layer == ANYTHING else f"layer {dependency_layer}"
            problems.append(f"{target.name} (layer {layer}) must not depend on {dependency.name} ({shown})")
    return len(targets), problems


# MARK: - The generated tables


def layer_title(layer: int) -> str:
    return f"{layer} {LAYER_NAMES[layer][0]}"


def span(layers: set[int]) -> str:
    """`layer 1`, `layers 1–4`, `layers 0–2, 4`: runs of consecutive layers joined."""
    runs: list[list[int]] = []
    for layer in sorted(layers):
        if runs and layer == runs[-1][-1] + 1:
            runs[-1].append(layer)
        else:
            runs.append([layer])
    parts = [f"{run[0]}–{run[-1]}" if len(run) > 1 else f"{run[0]}" for run in runs]
    return ("layer " if len(layers) == 1 else "layers ") + ", ".join(parts)


def code(names) -> str:
    return ", ".join(f"`{name}`" for name in names)


def rules_table() -> str:
    """What each layer holds and may depend on, then the edges allowed beyond the layers."""
    lines = [
        "| Layer | Modules | What the layer holds | May depend on |",
        "|---|---|---|---|",
    ]
    for layer in sorted(LAYER_NAMES):
        modules = [name for name, value in LAYERS.items() if value == layer]
        if layer == FEATURES:
            modules_text = code(modules) + ", every module under `Packages/Features/`"
        elif layer == ANYTHING:
            modules_text = "everything under `Apps/` and `Tools/` (packages of their own) and `Tests/`"
        else:
            modules_text = code(modules)
        if layer == ANYTHING:
            allowed = "anything"
        else:
            parts = []
            if ALLOWED_LAYERS[layer]:
                parts.append(span(ALLOWED_LAYERS[layer]))
            edges = [(source, target) for source, target in NAMED_EDGES if LAYERS.get(source) == layer]
            if edges:
                parts.append(", ".join(f"`{source}` → `{target}`" for source, target in sorted(edges)))
            products = [(source, product) for source, product in NAMED_PRODUCTS if LAYERS.get(source) == layer]
            if products:
                parts.append(", ".join(f"`{source}` → `{product}`" for source, product in sorted(products)))
            if layer == 0:
                parts.append("system libraries")
            else:
                parts.append("Foundation, " + code(sorted(ALLOWED_PRODUCTS[layer])))
            allowed = "; ".join(parts)
        lines.append(f"| {layer_title(layer)} | {modules_text} | {LAYER_NAMES[layer][1]} | {allowed} |")
    lines += [
        "",
        "Edges allowed beyond the layers, each with its reason:",
        "",
        "| Edge | Layers | Why |",
        "|---|---|---|",
    ]
    for (source, target), reason in sorted(NAMED_EDGES.items()):
        lines.append(f"| `{source}` → `{target}` | {LAYERS[source]} → {LAYERS[target]} | {reason} |")
    lines += [
        "",
        "Products of other packages allowed beyond the layers, each with its reason:",
        "",
        "| Edge | Layer | Why |",
        "|---|---|---|",
    ]
    for (source, product), reason in sorted(NAMED_PRODUCTS.items()):
        lines.append(f"| `{source}` → `{product}` | {LAYERS[source]} | {reason} |")
    return "\n".join(lines)


def modules_table(manifest: dict) -> str:
    """Each module of the layer table with the dependencies `Package.swift` declares for it.

    A feature a team adds (`make feature`) is left out, so that adding or removing one leaves
    the documents current: its line in the manifest's features table says what it imports."""
    targets = [target for target in targets_of(manifest) if target.name in LAYERS]
    targets.sort(key=lambda target: (layer_of(target), target.name))
    lines = [
        "| Layer | Module | Depends on (in `Package.swift`) |",
        "|---|---|---|",
    ]
    for target in targets:
        names = sorted((name for _, name, _ in target.dependencies), key=lambda name: (name not in LAYERS, name))
        lines.append(f"| {layer_title(layer_of(target))} | `{target.name}` | {code(names) or 'system libraries'} |")
    return "\n".join(lines)


TABLES = ("rules", "modules")
BLOCK = re.compile(
    r"(?P<begin><!-- layers:begin(?: (?P<name>[a-z]+))? -->\n)(?P<body>.*?)(?P<end><!-- layers:end -->)", re.S
)
STRAY_MARKER = re.compile(r"<!-- layers:(?:begin|end)")
NOTICE = "<!-- Generated by `python3 Tools/check-layering.py --write-docs`; edit the script, not this table. -->"


def table(name: str, manifest: dict) -> str:
    body = rules_table() if name == "rules" else modules_table(manifest)
    return f"{NOTICE}\n\n{body}\n\n"


def rewritten(text: str, manifest: dict) -> tuple[str, list[str]]:
    """`text` with every block filled in, and the problems that stop that (unknown or unclosed blocks)."""
    problems = []

    def fill(match: re.Match) -> str:
        name = match.group("name") or "rules"
        if name not in TABLES:
            problems.append(f"a layers block names table `{name}`; the tables are {', '.join(TABLES)}")
            return match.group(0)
        return match.group("begin") + table(name, manifest) + match.group("end")

    result = BLOCK.sub(fill, text)
    if len(STRAY_MARKER.findall(text)) != 2 * len(BLOCK.findall(text)):
        problems.append("a `<!-- layers:begin -->` without its `<!-- layers:end -->`, or the reverse")
    return result, problems


def document_problems(documents: dict[str, str], manifest: dict) -> list[str]:
    """One message per document whose generated tables are missing or out of date."""
    problems = []
    for path, text in documents.items():
        if not BLOCK.search(text):
            problems.append(f"{path}: no generated layer table (`<!-- layers:begin -->` … `<!-- layers:end -->`)")
            continue
        expected, block_problems = rewritten(text, manifest)
        problems += [f"{path}: {problem}" for problem in block_problems]
        if expected != text:
            diff = difflib.unified_diff(text.splitlines(), expected.splitlines(), path, "generated", n=0, lineterm="")
            shown = [line for line in diff if line[:1] in "+-" and line[:3] not in ("+++", "---")][:6]
            problems.append(
                f"{path}: the layer table differs from Tools/check-layering.py's; run "
                f"`python3 Tools/check-layering.py --write-docs`. First differences:\n    "
                + "\n    ".join(shown)
            )
    return problems


#: "Forms is layer 4", "Forms sits in layer 4", "Forms (layer 4)", with or without backquotes.
LAYER_MENTION = re.compile(r"`?\b([A-Z][A-Za-z]+)`? (?:is layer|sits in layer|\(layer) (\d+)")
#: A table row whose first cell lists modules and whose second is a layer: README's module map,
#: `| `Forms` | 4 Client | ... |`.
LAYER_ROW = re.compile(r"^\| ((?:`[A-Za-z]+`(?:, )?)+) \| (\d+) ([A-Za-z ]+?) \|")


def prose_problems(texts: dict[str, str], manifest: dict) -> list[str]:
    """One message per sentence or table row that gives a module the wrong layer."""
    known = {target.name: layer_of(target) for target in targets_of(manifest)}
    problems = []
    for path, text in texts.items():
        for number, line in enumerate(text.splitlines(), start=1):
            for match in LAYER_MENTION.finditer(line):
                module, said = match.group(1), int(match.group(2))
                actual = known.get(module)
                if actual is None and path.startswith(APP_AND_TOOL_PATHS):
                    actual = ANYTHING  # A tool's own module, in a package of its own.
                if actual is not None and actual != said:
                    problems.append(f"{path}:{number}: says {module} is layer {said}; it is layer {actual}")
            row = LAYER_ROW.match(line)
            if row:
                said = f"{row.group(2)} {row.group(3)}"
                for module in re.findall(r"`([A-Za-z]+)`", row.group(1)):
                    actual = known.get(module)
                    if actual is not None and said != layer_title(actual):
                        problems.append(f"{path}:{number}: puts {module} in layer {said}; it is in {layer_title(actual)}")
    return problems


# MARK: - Running


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


def read_documents(root: Path) -> dict[str, str]:
    return {path: (root / path).read_text(encoding="utf-8") for path in DOCUMENTS}


def read_prose(root: Path) -> dict[str, str]:
    paths = {path for pattern in PROSE_GLOBS for path in root.glob(pattern)}
    paths = {path for path in paths if ".build" not in path.parts}
    texts = {str(path.relative_to(root)): path.read_text(encoding="utf-8") for path in sorted(paths)}
    texts.update(read_documents(root))
    return texts


def check(manifest: dict, documents: dict[str, str], prose: dict[str, str]) -> int:
    count, problems = problems_in(manifest)
    problems += document_problems(documents, manifest)
    problems += prose_problems(prose, manifest)
    for problem in problems:
        print(problem)
    if problems:
        print(f"layering: {len(problems)} problem(s) in {count} targets and {len(documents)} documents")
        return 1
    print(f"layering: {count} targets checked, no forbidden edge; the documents' layer tables are current")
    return 0


def write_documents(root: Path, manifest: dict) -> int:
    status = 0
    for path, text in read_documents(root).items():
        result, problems = rewritten(text, manifest)
        for problem in problems:
            print(f"{path}: {problem}")
            status = 1
        if not BLOCK.search(text):
            print(f"{path}: no `<!-- layers:begin -->` … `<!-- layers:end -->` block to fill in")
            status = 1
        if result != text:
            (root / path).write_text(result, encoding="utf-8")
            print(f"layering: rewrote the layer tables of {path}")
    return status


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
    """Feeds synthetic manifests and documents to the check and asserts what it finds."""
    good = {
        "targets": [
            _target("CCurl", "Packages/CCurl", kind="system"),
            _target("CLibCrypto", "Packages/CLibCrypto", kind="system"),
            _target("CZlib", "Packages/CZlib", kind="system"),
            _target("Transport", "Packages/Transport", "swift-http-types:HTTPTypes", "swift-log:Logging"),
            _target("Retry", "Packages/Retry", "Transport"),
            _target("Downloads", "Packages/Downloads", "CLibCrypto", "Retry", "Transport"),
            _target("Mapping", "Packages/Mapping", "Transport"),
            _target("Feedback", "Packages/Feedback", "Transport"),
            _target("Forms", "Packages/Forms", "Downloads", "Retry", "Transport"),
            _target(
                "ParleyObservability", "Packages/ParleyObservability", "Retry", "Transport", "swift-metrics:Metrics",
                "swift-distributed-tracing:Tracing",
            ),
            _target("TransportCurl", "Packages/TransportCurl", "CCurl", "Transport", "swift-log:Logging"),
            _target("WeatherAPI", "Packages/Features/WeatherAPI", "Downloads", "Forms", "Mapping"),
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
        _target("Feedback", "Packages/Feedback", "FeedbackConsole", "Mapping", "swift-nio:NIOCore"),
        _target("FeedbackConsole", "Packages/FeedbackConsole", "Feedback", "Forms", "parley-demo"),
        _target("Transport", "Packages/Transport", "Forms"),
        _target("Mapping", "Packages/Mapping", "Downloads", "CZlib", "Transport"),
        _target("Downloads", "Packages/Downloads", "Forms", "Transport"),
        _target("ParleyObservability", "Packages/ParleyObservability", "Transport", "swift-nio:NIOCore"),
        _target("Coordination", "Packages/Coordination", "Transport", "swift-metrics:Metrics"),
    ]
    bad_targets = {target["name"]: target for target in good["targets"]}
    bad_targets.update({target["name"]: target for target in changes})
    bad = {"targets": list(bad_targets.values())}
    expected = [
        "SystemAPI (layer 6) must not depend on TransportCurl (layer 5)",
        "Retry (layer 2) must not depend on Feedback (layer 2)",
        "Retry (layer 2) must not depend on CZlib (layer 0)",
        "unknown target Mapping2 (Packages/Mapping2): add it to the layer table",
        "Feedback (layer 2) must not depend on FeedbackConsole (layer 5)",
        "Feedback (layer 2) must not depend on Mapping (layer 2)",
        "Feedback (layer 2) must not depend on product NIOCore (package swift-nio)",
        "FeedbackConsole (layer 5) must not depend on Forms (layer 4)",
        "FeedbackConsole (layer 5) must not depend on parley-demo (an app, tool or test)",
        "Transport (layer 1) must not depend on Forms (layer 4)",
        "Mapping (layer 2) must not depend on Downloads (layer 3)",
        "Mapping (layer 2) must not depend on CZlib (layer 0)",
        "Downloads (layer 3) must not depend on Forms (layer 4)",
        "ParleyObservability (layer 3) must not depend on product NIOCore (package swift-nio)",
        "Coordination (layer 2) must not depend on product Metrics (package swift-metrics)",
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

    failures += _self_test_documents(good)
    failures += _self_test_prose(good)

    for failure in failures:
        print(f"layering self-test: {failure}")
    if failures:
        return 1
    print(
        f"layering self-test: a bad manifest fails with the {len(expected)} expected messages, stale, missing "
        f"and unclosed tables and wrong layer numbers in prose fail; a good manifest and current documents pass"
    )
    return 0


def _self_test_documents(manifest: dict) -> list[str]:
    failures = []
    empty = "# Guide\n\n<!-- layers:begin -->\n<!-- layers:end -->\n\nText.\n\n<!-- layers:begin modules -->\n<!-- layers:end -->\n"
    current, problems = rewritten(empty, manifest)
    if problems:
        failures.append(f"filling in the blocks failed: {problems}")
    for expected_text in ("| 3 Composed capabilities | `Downloads` |", "| `Caching` → `CZlib` | 2 → 0 |",
                          "| 4 Client | `Forms` | `Downloads`, `Retry`, `Transport` |", "\nText.\n"):
        if expected_text not in current:
            failures.append(f"the generated document lacks {expected_text!r}")
    if rewritten(current, manifest)[0] != current:
        failures.append("filling in the blocks twice changed the document")
    if document_problems({"guide.md": current}, manifest):
        failures.append(f"a current document was rejected: {document_problems({'guide.md': current}, manifest)}")

    # A table edited by hand, a document without a table, a block left open, and a block
    # naming no known table.
    edited = current.replace("| 4 Client |", "| 2 Capabilities |", 1)
    moved = {
        "targets": [
            _target("Forms", "Packages/Forms", "Downloads", "Transport") if target["name"] == "Forms" else target
            for target in manifest["targets"]
        ]
    }
    cases = {
        "edited.md": (edited, "the layer table differs"),
        "bare.md": ("# Guide\n", "no generated layer table"),
        "open.md": (current + "<!-- layers:begin -->\n", "without its"),
        "unknown.md": (current + "<!-- layers:begin colours -->\n<!-- layers:end -->\n", "names table `colours`"),
    }
    for path, (text, message) in cases.items():
        problems = document_problems({path: text}, manifest)
        if not any(problem.startswith(path) and message in problem for problem in problems):
            failures.append(f"{path} not reported with {message!r}: {problems}")
    # The modules table of a manifest where Forms lost an edge, checked against the one with it;
    # a feature that is not in the layer table (ParcelAPI) changes nothing.
    modules_only = "<!-- layers:begin modules -->\n<!-- layers:end -->\n"
    stale = rewritten(modules_only, moved)[0]
    if not any("differs" in problem for problem in document_problems({"m.md": stale}, manifest)):
        failures.append("a modules table missing an edge of the manifest was accepted")
    without_parcel = {"targets": [target for target in manifest["targets"] if target["name"] != "ParcelAPI"]}
    if document_problems({"m.md": rewritten(modules_only, without_parcel)[0]}, manifest):
        failures.append("a feature outside the layer table changed the modules table")
    return failures


def _self_test_prose(manifest: dict) -> list[str]:
    texts = {
        "Packages/Forms/Forms.docc/Forms.md": "Forms is layer 4, the client.\nIt uses `Retry` (layer 2).\n",
        "Packages/Downloads/Downloads.docc/Downloads.md": "Downloads is layer 2, a capability.\n",
        "docs/GUIDE.md": "Forms (layer 2) turns forms into requests; `TransportCurl` sits in layer 5.\n",
        "Tools/MockServer/MockBackend.docc/MockBackend.md": "MockBackend sits in layer 5 (apps and tools).\n",
        "README.md": "WeatherAPI is layer 6. A layer 2 module; Unknown (layer 9).\n"
        "| `Forms` | 4 Client | you send forms |\n| `Mapping`, `Downloads` | 2 Capabilities | you decode |\n"
        "| `Retry` | 2 Client | you retry |\n| `parley-demo` | 7 Apps and tools | you try it |\n",
    }
    expected = {
        "README.md:3: puts Downloads in layer 2 Capabilities; it is in 3 Composed capabilities",
        "README.md:4: puts Retry in layer 2 Client; it is in 2 Capabilities",
        "Packages/Downloads/Downloads.docc/Downloads.md:1: says Downloads is layer 2; it is layer 3",
        "docs/GUIDE.md:1: says Forms is layer 2; it is layer 4",
        "Tools/MockServer/MockBackend.docc/MockBackend.md:1: says MockBackend is layer 5; it is layer 7",
    }
    problems = set(prose_problems(texts, manifest))
    return [] if problems == expected else [f"prose check: expected {sorted(expected)}, got {sorted(problems)}"]


def main(arguments: list[str]) -> int:
    root = Path(__file__).resolve().parent.parent
    if arguments == ["--self-test"]:
        return self_test()
    if arguments[:1] == ["--table"] and len(arguments) <= 2:
        name = arguments[1] if len(arguments) == 2 else "rules"
        if name not in TABLES:
            print(f"layering: no table `{name}`; the tables are {', '.join(TABLES)}", file=sys.stderr)
            return 2
        print(rules_table() if name == "rules" else modules_table(dump_package(root)))
        return 0
    if arguments == ["--write-docs"]:
        return write_documents(root, dump_package(root))
    if arguments:
        print(
            "usage: python3 Tools/check-layering.py [--self-test | --table [rules|modules] | --write-docs]",
            file=sys.stderr,
        )
        return 2
    return check(dump_package(root), read_documents(root), read_prose(root))


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
