#!/usr/bin/env python3
"""Compiles every Swift example of the documentation against the library as built.

Usage, from anywhere in the checkout, after `make build` (or through `make examples`):

    python3 Tools/scripts/check-examples.py             # README.md, CONTRIBUTING.md, docs/*.md
    python3 Tools/scripts/check-examples.py FILE.md...  # these pages only
    python3 Tools/scripts/check-examples.py --self-test # proves the check fails on a bad example

Every fenced block of a page whose language is `swift` is type-checked with `swiftc
-typecheck` against the modules of the root build (`.build/debug/Modules`, the build of
`make build`: nothing is compiled twice), in Swift 6 mode with warnings as errors and without
the package's name, so an example sees the public API only. A failure is reported at the
page's own line: `docs/FEATURES.md:120:5: error: …`.

The conventions a page follows, all of them in an HTML comment on the line just above the
fence (GitHub does not show it):

* A block is a program of its own, the file `main.swift` of a module: top-level code runs,
  and `try` and `await` may be used there. A block with `@main` is compiled as a library
  file instead.
* Foundation and the library's modules (`IMPLICIT_IMPORTS` below) are imported for every
  block, so that a fragment need not repeat them; an `import` the block writes (anywhere in
  it) is moved to the top. The products behind a package trait and the feature modules are
  imported by the block itself, or by its context.
* `<!-- example: group NAME -->`: the blocks of a page with the same group are one program,
  in the page's order (a protocol declared in one and used in the next).
* `<!-- example: skip REASON -->`: not compiled; the reason is required (a package manifest,
  code of a generated client).
* Lines after the first line of the comment, up to `-->`, are the block's hidden context,
  compiled before it: the values and types a fragment uses without showing them.

      <!-- example: group screens
      let json = Data()
      -->

Exit status: 0 when every example compiles, 1 when one does not, 2 when the build is missing.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
import tempfile
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
PAGES = ["README.md", "CONTRIBUTING.md", "docs/*.md"]
#: Imported by every example: Foundation and the library's products that need no trait.
IMPLICIT_IMPORTS = [
    "Foundation", "HTTPTypes", "Transport", "TransportCurl", "Forms", "Mapping", "Retry", "Feedback",
    "FeedbackConsole", "Caching", "Coordination", "Downloads",
]
FENCE = re.compile(r"^(?P<indent>[ \t]*)```(?P<info>[^`]*)$")
DIRECTIVE = re.compile(r"^\s*<!--\s*example:\s*(?P<options>.*?)\s*(?P<end>-->)?\s*$")
IMPORT = re.compile(r"^\s*(?:@\w+\s+)?(?:(?:public|package|internal|private|fileprivate)\s+)?import\s+\w")


@dataclass
class Source:
    """Lines of a program, each with the page and the line it came from."""
    lines: list[str] = field(default_factory=list)
    origins: list[tuple[str, int]] = field(default_factory=list)

    def add(self, text: str, page: str, line: int) -> None:
        self.lines.append(text)
        self.origins.append((page, line))


@dataclass
class Example:
    page: str
    line: int  # of the fence
    group: str | None
    context: list[tuple[int, str]]
    code: list[tuple[int, str]]


def parse(page: Path, name: str) -> tuple[list[Example], list[str]]:
    """The page's Swift blocks that are compiled, and the problems of its directives."""
    examples: list[Example] = []
    problems: list[str] = []
    lines = page.read_text().splitlines()
    index = 0
    directive: tuple[int, str, list[tuple[int, str]]] | None = None  # line, options, context
    while index < len(lines):
        text = lines[index]
        match = DIRECTIVE.match(text)
        if match:
            start = index + 1
            context: list[tuple[int, str]] = []
            if not match.group("end"):
                index += 1
                while index < len(lines) and lines[index].strip() != "-->":
                    context.append((index + 1, lines[index]))
                    index += 1
                if index == len(lines):
                    problems.append(f"{name}:{start}: the example comment is not closed by a line '-->'")
            directive = (start, match.group("options"), context)
            index += 1
            continue
        fence = FENCE.match(text)
        if fence:
            info = fence.group("info").strip()
            indent = len(fence.group("indent"))
            body: list[tuple[int, str]] = []
            fence_line = index + 1
            index += 1
            while index < len(lines) and not re.match(r"^\s*```\s*$", lines[index]):
                body.append((index + 1, lines[index][indent:] if lines[index][:indent].isspace() else lines[index]))
                index += 1
            index += 1
            options = ""
            context = []
            if directive is not None:
                if directive[0] != fence_line - 1 - len(directive[2]) - (1 if directive[2] else 0):
                    problems.append(f"{name}:{directive[0]}: an example comment must be right above its fence")
                options, context = directive[1], directive[2]
                directive = None
            if info.split(" ")[0] != "swift":
                if options:
                    problems.append(f"{name}:{fence_line}: an example comment above a block that is not Swift")
                continue
            words = options.split()
            if words[:1] == ["skip"]:
                if len(words) < 2:
                    problems.append(f"{name}:{fence_line}: `example: skip` needs a reason")
                continue
            group = None
            if words[:1] == ["group"] and len(words) == 2:
                group = words[1]
            elif words:
                problems.append(f"{name}:{fence_line}: unknown example option '{options}' "
                                "(use `skip REASON` or `group NAME`)")
            examples.append(Example(name, fence_line, group, context, body))
            continue
        if directive is not None and text.strip():
            problems.append(f"{name}:{directive[0]}: an example comment must be right above its fence")
            directive = None
        index += 1
    return examples, problems


def programs(examples: list[Example]) -> list[Source]:
    """One program per block, or per group of a page."""
    chunks: list[list[Example]] = []
    groups: dict[tuple[str, str], list[Example]] = {}
    for example in examples:
        if example.group is None:
            chunks.append([example])
        else:
            key = (example.page, example.group)
            if key not in groups:
                groups[key] = []
                chunks.append(groups[key])
            groups[key].append(example)
    result = []
    for chunk in chunks:
        imports: dict[str, tuple[str, int]] = {}
        body = Source()
        for example in chunk:
            for line, text in example.context + example.code:
                if IMPORT.match(text):
                    imports.setdefault(text.strip(), (example.page, line))
                else:
                    body.add(text, example.page, line)
        source = Source()
        first = (chunk[0].page, chunk[0].line)
        for module in IMPLICIT_IMPORTS:
            if f"import {module}" not in imports:
                source.add(f"import {module}", *first)
        for text, origin in imports.items():
            source.add(text, *origin)
        source.lines += body.lines
        source.origins += body.origins
        result.append(source)
    return result


def compiler_arguments(modules: Path) -> list[str]:
    """What `swiftc` needs to import the root build's modules, C ones included."""
    arguments = ["-swift-version", "6", "-warnings-as-errors", "-I", str(modules)]
    maps = sorted(ROOT.glob("Packages/C*/module.modulemap")) + sorted(modules.parent.glob("*.build/module.modulemap"))
    for module_map in maps:
        arguments += ["-Xcc", f"-fmodule-map-file={module_map}"]
    return arguments


def check(source: Source, index: int, arguments: list[str], scratch: Path) -> list[str]:
    """Type-checks one program; the compiler's messages, at the pages' lines."""
    folder = scratch / f"example{index}"
    folder.mkdir()
    library = any(re.match(r"^\s*@main\b", line) for line in source.lines)
    file = folder / "main.swift"
    file.write_text("\n".join(source.lines) + "\n")
    swiftc = os.environ.get("SWIFTC", "swiftc")
    command = [swiftc, "-typecheck", *arguments, "-module-name", f"Example{index}"]
    command += ["-parse-as-library"] if library else []
    completed = subprocess.run(command + [str(file)], capture_output=True, text=True, cwd=folder)
    if completed.returncode == 0:
        return []
    messages = []
    for text in (completed.stdout + completed.stderr).splitlines():
        match = re.match(rf"^{re.escape(str(file))}:(\d+):(\d+): (.*)$", text)
        if match:
            number = int(match.group(1))
            page, line = source.origins[number - 1] if 0 < number <= len(source.origins) else ("?", 0)
            messages.append(f"{page}:{line}:{match.group(2)}: {match.group(3)}")
        elif text.strip() and not text.startswith(str(folder)):
            messages.append("    " + text)
    origin = source.origins[-1] if source.origins else ("?", 0)
    return messages or [f"{origin[0]}: the example does not compile (swiftc exited with {completed.returncode})"]


def run(pages: list[Path], modules: Path, quiet: bool = False) -> int:
    if not (modules / "Transport.swiftmodule").exists():
        print(f"check-examples: no build in {modules}; run `make build` first", file=sys.stderr)
        return 2
    examples: list[Example] = []
    problems: list[str] = []
    for page in pages:
        name = str(page.relative_to(ROOT)) if page.is_relative_to(ROOT) else page.name
        found, wrong = parse(page, name)
        examples += found
        problems += wrong
    sources = programs(examples)
    arguments = compiler_arguments(modules)
    with tempfile.TemporaryDirectory(prefix="parley-examples-") as scratch:
        with ThreadPoolExecutor(max_workers=int(os.environ.get("EXAMPLES_JOBS", "2"))) as pool:
            results = list(pool.map(lambda item: check(item[1], item[0], arguments, Path(scratch)),
                                    enumerate(sources)))
    failures = [message for result in results for message in result]
    for message in problems + failures:
        print(message, file=sys.stderr)
    failed = sum(1 for result in results if result)
    if not quiet:
        print(f"check-examples: {len(examples)} Swift examples in {len(pages)} pages, {len(sources)} programs, "
              f"{failed} failing")
    return 1 if failed or problems else 0


def self_test(modules: Path) -> int:
    """A page with a good program and a bad one: the check must fail, at the bad line only."""
    page = """# Page

<!-- example: group one
let greeting = "hello"
-->
```swift
let request = try TransportRequest(method: .get, url: "https://example.com/\\(greeting)")
```

```swift
let wrong: Int = "not a number"
```

<!-- example: skip a fragment on purpose -->
```swift
this is not Swift
```
"""
    with tempfile.TemporaryDirectory(prefix="parley-examples-self-test-") as scratch:
        file = Path(scratch) / "page.md"
        file.write_text(page)
        import contextlib
        import io
        errors = io.StringIO()
        with contextlib.redirect_stderr(errors):
            status = run([file], modules, quiet=True)
    lines = [line for line in errors.getvalue().splitlines() if ": error: " in line]
    if status != 1 or not lines or any(not line.startswith("page.md:11:") for line in lines):
        print(f"check-examples self-test: expected one error at page.md:11, got status {status}:\n"
              + errors.getvalue(), file=sys.stderr)
        return 1
    print("check-examples self-test: a broken example fails at its line; good and skipped ones pass")
    return 0


def main(arguments: list[str]) -> int:
    modules = Path(os.environ.get("EXAMPLES_MODULES", ROOT / ".build/debug/Modules"))
    if arguments == ["--self-test"]:
        return self_test(modules)
    if arguments and arguments[0].startswith("-"):
        print(__doc__.split("\n\n")[1], file=sys.stderr)
        return 2
    pages = [Path(argument).resolve() for argument in arguments] or [
        path for pattern in PAGES for path in sorted(ROOT.glob(pattern))]
    return run(pages, modules)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
