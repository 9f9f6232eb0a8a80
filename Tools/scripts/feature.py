#!/usr/bin/env python3
"""Adds a feature module to Parley, or removes one: the recipe of docs/FEATURES.md, written out.

Usage, from anywhere in the checkout (or through make):

    python3 Tools/scripts/feature.py add News       # make feature NAME=News
    python3 Tools/scripts/feature.py remove News    # make remove-feature NAME=News
    python3 Tools/scripts/feature.py --self-test    # add and remove in a scratch copy (make layering)

`add` writes, and `remove` deletes again, exactly these:

    Packages/Features/News/NewsForm.swift            the endpoints, as a form
    Packages/Features/News/NewsRequestable.swift     the feature protocol any type adopts
    Packages/Features/News/NewsItem.swift            the model, decoded from the envelope
    Packages/Features/News/NewsLink.swift            the feature's link in the client's interception chain
    Packages/Features/News/News.docc/News.md         the module's documentation
    Tests/NewsTests/NewsRequestableTests.swift       tests with the doubles and the mock server
    Tools/MockServer/MockBackend/Resources/Features/news.json   the mock backend's route
    Package.swift                                    one line in the features table

`make test` passes right after `add`; after `remove` the checkout is as before `add`. The self-test
below checks the files and the manifest; `make feature-check` (Tools/scripts/check-feature-scaffold.sh,
part of `make test`) goes end to end: it builds what `add` wrote and runs its tests.
Exit status: 0 on success, 1 when the name is taken or unknown, 2 for a bad command line.
"""

from __future__ import annotations

import re
import shutil
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
MANIFEST = ROOT / "Package.swift"
ROUTES = ROOT / "Tools/MockServer/MockBackend/Resources/Features"


def use_root(root: Path) -> None:
    """Points the script at another checkout (the self-test's scratch copy)."""
    global ROOT, MANIFEST, ROUTES
    ROOT = root
    MANIFEST = root / "Package.swift"
    ROUTES = root / "Tools/MockServer/MockBackend/Resources/Features"
TABLE_START = "let features: [(name: String, dependencies: [Target.Dependency])] = ["
RESERVED = {
    "Transport", "TransportCurl", "TransportTesting", "Forms", "Mapping", "Retry", "Feedback",
    "FeedbackConsole", "FeedbackTesting", "Caching", "Coordination", "Downloads", "CCurl", "CZlib",
    "CLibCrypto", "Foundation", "Testing", "TestSupport", "ServerTestSupport", "MockBackend",
    # Modules of the packages Parley and its tools build with.
    "Logging", "HTTPTypes", "HTTPTypesFoundation", "ArgumentParser", "Hummingbird", "NIOCore",
    "NIOPosix", "MultipartKit", "Synchronization", "Dispatch", "Glibc",
}
#: The first path segments the mock backend's own routes use: a canned route there would
#: never be reached, because the backend's routes win.
BUILT_IN_ROUTES = {
    "echo", "status", "redirect-to", "redirect", "relative-redirect", "bytes", "stream-bytes", "stall",
    "delay", "gzip", "deflate", "bad-encoding", "large-headers", "headers", "response-headers",
    "cookies", "upload", "multipart", "drop", "flaky", "weather", "idempotent", "auth", "cache",
    "systime", "sysversion", "faults",
}


def check_name(name: str) -> None:
    """Exits with status 2 unless `name` can be a feature module's name."""
    if not re.fullmatch(r"[A-Z][A-Za-z0-9]{1,40}", name):
        fail(f"'{name}' is not a module name: use UpperCamelCase letters and digits, such as News", 2)


def fail(message: str, status: int = 1) -> None:
    print(f"feature: {message}", file=sys.stderr)
    sys.exit(status)


def paths(name: str) -> dict[str, Path]:
    return {
        "module": ROOT / "Packages/Features" / name,
        "tests": ROOT / "Tests" / f"{name}Tests",
        "route": ROUTES / f"{name.lower()}.json",
    }


def route_path(name: str) -> str:
    """`News` is served at `/news`, `WeatherAlerts` at `/weather-alerts`."""
    return "/" + re.sub(r"(?<!^)(?=[A-Z])", "-", name).lower()


def entry_pattern(name: str) -> re.Pattern[str]:
    """The feature's entry in the table: one line, or several when the formatter wrapped it."""
    quoted = re.escape(f'"{name}"')
    return re.compile(rf'^[ \t]*\(\s*{quoted},.*?\]\s*\),[ \t]*\n', re.MULTILINE | re.DOTALL)


def listed(name: str) -> bool:
    return entry_pattern(name).search(MANIFEST.read_text()) is not None


def add(name: str) -> None:
    check_name(name)
    if name in RESERVED or name.endswith("Tests"):
        fail(f"'{name}' is taken by Parley itself; choose another name")
    if route_path(name).lstrip("/").split("/")[0].lower() in BUILT_IN_ROUTES:
        fail(f"the mock route {route_path(name)} belongs to the mock backend already; choose another name")
    where = paths(name)
    taken = [str(path.relative_to(ROOT)) for path in where.values() if path.exists()]
    if taken or listed(name):
        fail(f"{name} exists already ({', '.join(taken) or 'Package.swift'}); remove it first with "
             f"`make remove-feature NAME={name}`")
    manifest = MANIFEST.read_text()
    if TABLE_START not in manifest:
        fail("Package.swift has no features table; see docs/FEATURES.md")

    path = route_path(name)
    files = {
        where["module"] / f"{name}Form.swift": FORM,
        where["module"] / f"{name}Requestable.swift": REQUESTABLE,
        where["module"] / f"{name}Item.swift": MODEL,
        where["module"] / f"{name}Link.swift": LINK,
        where["module"] / f"{name}.docc" / f"{name}.md": DOCS,
        where["tests"] / f"{name}RequestableTests.swift": TESTS,
        where["route"]: ROUTE,
    }
    for file, template in files.items():
        file.parent.mkdir(parents=True, exist_ok=True)
        file.write_text(template.replace("__NAME__", name).replace("__PATH__", path)
                        .replace("__LOWER__", name[0].lower() + name[1:]).replace("__FILE__", where["route"].name))
    # The house format, so that `make lint` passes on what was written.
    swift = shutil.which("swift")
    if swift and FORMATS:
        sources = [str(file) for file in files if file.suffix == ".swift"]
        subprocess.run([swift, "format", "format", "--in-place", *sources], cwd=ROOT, check=False)
    line = f'    ("{name}", ["Forms", "Mapping", "Transport"]),\n'
    start = manifest.index(TABLE_START)
    end = manifest.index("\n]\n", start)
    MANIFEST.write_text(manifest[:end + 1] + line + manifest[end + 1:])
    print(f"feature: added {name}: Packages/Features/{name}, Tests/{name}Tests, the mock route {path} "
          f"and a line in Package.swift. Next: make test, then docs/FEATURES.md.")


def remove(name: str) -> None:
    check_name(name)
    where = paths(name)
    if not where["route"].exists():
        # Only what the scaffold made is removed: its canned route is its mark. A module written
        # by hand is taken out by hand.
        listed_only = listed(name) or where["module"].exists()
        fail(f"{name} was not made by `make feature` (it has no {where['route'].relative_to(ROOT)}); "
             f"remove it by hand" if listed_only else f"there is no feature {name}")
    for path in where.values():
        if path.is_dir():
            shutil.rmtree(path)
        elif path.exists():
            path.unlink()
    if ROUTES.exists() and not any(ROUTES.iterdir()):
        ROUTES.rmdir()
    manifest = MANIFEST.read_text()
    MANIFEST.write_text(entry_pattern(name).sub("", manifest, count=1))
    print(f"feature: removed {name}")


def self_test() -> None:
    """Adds and removes a feature in a scratch copy of the manifest; fails unless `add` writes
    every file with no placeholder left and one manifest line, and `remove` restores the
    manifest byte for byte and leaves no file behind."""
    global FORMATS
    import contextlib
    import io
    import tempfile
    original_root = ROOT
    quiet = io.StringIO()
    with tempfile.TemporaryDirectory() as scratch, contextlib.redirect_stdout(quiet), contextlib.redirect_stderr(quiet):
        root = Path(scratch)
        shutil.copy(original_root / "Package.swift", root / "Package.swift")
        before = (root / "Package.swift").read_text()
        use_root(root)
        FORMATS = False
        add("Gazette")
        written = [path for path in root.rglob("*") if path.is_file() and path.name != "Package.swift"]
        problems = []
        if len(written) != 7:
            problems.append(f"add wrote {len(written)} files, not 7: {written}")
        for path in written:
            text = path.read_text()
            if "__" in text:
                problems.append(f"{path.name} keeps a placeholder")
        manifest = (root / "Package.swift").read_text()
        if manifest.count('("Gazette", ') != 1 or len(manifest) <= len(before):
            problems.append("add did not put exactly one line in the features table")
        try:
            add("Gazette")
            problems.append("a second add of the same name succeeded")
        except SystemExit:
            pass
        for bad in ("", "../..", "Packages"):
            try:
                remove(bad)
                problems.append(f"remove accepted the name {bad!r}")
            except SystemExit:
                pass
        if not (root / "Packages/Features/Gazette").exists():
            problems.append("a refused remove deleted the feature")
        remove("Gazette")
        if (root / "Package.swift").read_text() != before:
            problems.append("remove did not restore Package.swift byte for byte")
        left = [path for path in root.rglob("*") if path.is_file() and path.name != "Package.swift"]
        if left:
            problems.append(f"remove left {left}")
        use_root(original_root)
    if problems:
        for problem in problems:
            print(f"feature self-test: {problem}", file=sys.stderr)
        sys.exit(1)
    print("feature self-test: add and remove leave the checkout as it was")


#: Whether `add` runs swift-format on what it wrote (not in the self-test).
FORMATS = True


# MARK: - Templates

FORM = '''import Forms

/// The __NAME__ endpoints, as forms: where each request goes and what it carries.
///
/// Internal: ``__NAME__Requestable`` is the feature's public face.
enum __NAME__Form: RequestFormable {
    /// `GET __PATH__`: the latest items.
    case latest
    /// `GET __PATH__/{id}`: one item.
    case item(id: Int)

    var path: String {
        switch self {
        case .latest: "__PATH__"
        case .item(let id): "__PATH__/\(id)"
        }
    }

    /// Puts the feature's link first in the client's middleware, for the feature's requests only.
    func configure(_ client: inout ClientConfiguration) {
        client.middleware.insert(__NAME__Link(), at: 0)
    }
}
'''

LINK = '''import Transport

/// What every request of the __NAME__ feature carries, as a link of the client's one
/// interception chain (docs/ARCHITECTURE.md, "The interception chain"): here a header naming
/// the feature, so that the server's logs tell its requests apart.
///
/// ``__NAME__Form``'s `configure(_:)` puts it first in the client's middleware: it runs for every
/// attempt, inside the retries and outside authentication and the cache. Replace its body with
/// the feature's own cross-cutting concern (a header, a measurement, a rule); a concern that
/// must see the logical request once, not each attempt, is a `Plugin` instead.
struct __NAME__Link: TransportMiddleware {
    func intercept(_ request: TransportRequest, next: Next) async throws -> TransportResponse {
        var request = request
        try request.setHeader("X-Feature", "__LOWER__")
        return try await next(request)
    }
}
'''

REQUESTABLE = '''public import Forms
import Mapping
public import Transport

/// The __NAME__ feature, for any type that adopts it.
///
/// ```swift
/// struct __NAME__Screen: __NAME__Requestable {}
/// let items = try await __NAME__Screen().latest().value
/// ```
///
/// Answers come in the backend's envelope, `{"code", "message", "data"}`; a code other than 200
/// fails the handle with Mapping's `BusinessError` and the server's message.
public protocol __NAME__Requestable: Requestable {}

extension __NAME__Requestable {
    /// The latest items: `GET __PATH__`, decoded from the envelope's data.
    ///
    /// - Parameter options: What this call decides over the client; none by default.
    /// - Returns: A handle for the items.
    public func latest(options: CallOptions = CallOptions()) -> DataRequest<[__NAME__Item]> {
        request(__NAME__Form.latest, options: options).decodeEnvelope([__NAME__Item].self)
    }

    /// One item: `GET __PATH__/{id}`, decoded from the envelope's data.
    ///
    /// - Parameters:
    ///   - id: The item's identifier.
    ///   - options: What this call decides over the client; none by default.
    /// - Returns: A handle for the item. An id the server does not know fails it with Mapping's
    ///   `BusinessError` and the server's message.
    public func item(id: Int, options: CallOptions = CallOptions()) -> DataRequest<__NAME__Item> {
        request(__NAME__Form.item(id: id), options: options).decodeEnvelope(__NAME__Item.self)
    }
}
'''

MODEL = '''/// One item of the __NAME__ feature, as the server sends it: `{"id": 1, "title": "…"}`.
public struct __NAME__Item: Codable, Sendable, Hashable {
    /// The item's identifier.
    public var id: Int
    /// Its title.
    public var title: String

    /// Creates an item.
    ///
    /// - Parameters:
    ///   - id: The identifier.
    ///   - title: The title.
    public init(id: Int, title: String) {
        self.id = id
        self.title = title
    }
}
'''

DOCS = '''# ``__NAME__``

The __NAME__ feature.

## Overview

__NAME__ is layer 6, a feature module. It imports Transport, Forms and Mapping, and never the
engine or the console: the application chooses those once, and any type that adopts
``__NAME__Requestable`` sends its requests.

```swift
import __NAME__

struct __NAME__Screen: __NAME__Requestable {}
let items = try await __NAME__Screen().latest().value
```

## Topics

### Sending

- ``__NAME__Requestable``

### Models

- ``__NAME__Item``
'''

TESTS = '''import Feedback
import FeedbackTesting
import Forms
import Foundation
import HTTPTypes
import Mapping
import MockBackend
// `client.retry` is Retry's `RetryPolicy`: setting its members needs the module imported
// (the package builds with MemberImportVisibility).
import Retry
import ServerTestSupport
import Testing
import Transport
import TransportTesting
import __NAME__

/// __NAME__ with the test doubles (a stub transport, a recording presenter), and against the
/// feature's own routes of the mock backend (`Resources/Features/__FILE__`).
@Suite struct __NAME__RequestableTests {
    /// A screen of the app that shows the items.
    struct __NAME__Screen: __NAME__Requestable, Containable, Loadable {
        let clientConfiguration: ClientConfiguration?
        var presenter: any FeedbackPresenter = RecordingPresenter()
        var containerId: String { "screen:__LOWER__" }
    }

    static func screen(answering json: String, presenter: RecordingPresenter) -> (__NAME__Screen, StubTransport) {
        let transport = StubTransport(always: .init(body: Data(json.utf8)))
        var client = ClientConfiguration(transport: transport, baseURL: "https://api.example.com")
        client.retry.maximumRetries = 0
        return (__NAME__Screen(clientConfiguration: client, presenter: presenter), transport)
    }

    @Test func decodesTheLatestItemsFromTheEnvelope() async throws {
        let recorder = RecordingPresenter()
        let (screen, transport) = Self.screen(
            answering: #"{"code":200,"message":"ok","data":[{"id":1,"title":"First"}]}"#, presenter: recorder)

        let items = try await screen.latest().load(screen).value

        #expect(items == [__NAME__Item(id: 1, title: "First")])
        #expect(transport.requests.map(\\.url) == ["https://api.example.com__PATH__"])
        // The feature's link ran in the client's chain.
        #expect(transport.requests.first?.head.headerFields[HTTPField.Name("X-Feature")!] == "__LOWER__")
        #expect(recorder.maskOutcomes(on: screen) == [.succeeded])
    }

    @Test func failsWithTheServersMessageOnABusinessCode() async throws {
        let (screen, _) = Self.screen(
            answering: #"{"code":503,"message":"Down for maintenance","data":null}"#, presenter: RecordingPresenter())

        let result = await screen.latest().result

        guard case .failure(let error as BusinessError) = result else {
            Issue.record("expected a business error, got \\(result)")
            return
        }
        #expect(error.serverMessage == "Down for maintenance")
    }

    @Test func readsTheMockBackendsRoute() async throws {
        try await withServerAndTransport { server, transport in
            let screen = __NAME__Screen(clientConfiguration: ClientConfiguration(transport: transport, baseURL: server.baseURL))

            let items = try await screen.latest().value

            #expect(items.map(\.id) == [1, 2])
        }
    }

    @Test func readsAnItemAndTheServersMessageForAnUnknownID() async throws {
        try await withServerAndTransport { server, transport in
            var client = ClientConfiguration(transport: transport, baseURL: server.baseURL)
            client.retry.maximumRetries = 0
            let screen = __NAME__Screen(clientConfiguration: client)

            let item = try await screen.item(id: 1).value
            let unknown = await screen.item(id: 99).result

            #expect(item == __NAME__Item(id: 1, title: "The first __NAME__ item"))
            guard case .failure(let error as BusinessError) = unknown else {
                Issue.record("expected a business error, got \(unknown)")
                return
            }
            #expect(error.code == 404)
            #expect(error.serverMessage == "No __NAME__ item 99")
        }
    }
}
'''

ROUTE = '''{
  "routes": [
    {
      "method": "GET",
      "path": "__PATH__",
      "data": [
        {"id": 1, "title": "The first __NAME__ item"},
        {"id": 2, "title": "The second __NAME__ item"}
      ]
    },
    {"method": "GET", "path": "__PATH__/1", "data": {"id": 1, "title": "The first __NAME__ item"}},
    {"method": "GET", "path": "__PATH__/2", "data": {"id": 2, "title": "The second __NAME__ item"}},
    {"method": "GET", "path": "__PATH__/{id}", "code": 404, "message": "No __NAME__ item {id}", "data": null}
  ]
}
'''


def main(arguments: list[str]) -> None:
    if arguments == ["--self-test"]:
        self_test()
        return
    if len(arguments) != 2 or arguments[0] not in ("add", "remove"):
        fail("usage: feature.py add|remove NAME (make feature NAME=News, make remove-feature NAME=News)", 2)
    action, name = arguments
    add(name) if action == "add" else remove(name)


if __name__ == "__main__":
    main(sys.argv[1:])
