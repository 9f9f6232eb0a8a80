# Parley: the commands a contributor and CI run. `make test` is the gate.
#
#   make demo           install what building needs, build parley-demo, and run its guided tour
#                       against the backend it embeds (DEMO_ARGS='weather forecast 北京' runs
#                       another command)
#   make feature NAME=X scaffold a feature module X: its folder, its line in Package.swift, a
#                       form, the feature protocol, tests with the doubles, a mock route
#   make remove-feature NAME=X  remove what `make feature NAME=X` added
#   make test-one FILTER=X  build as the gate does (incrementally) and run the tests matching X
#                       with the test servers up: the quick loop while working on a suite
#   make setup          install what building and testing need (Debian packages, PyPI)
#   make build          build the library (every trait on) and the tools, warnings as errors,
#                       imports checked
#   make tools          build the tools alone (Tools/All: parley-demo, parley-fetch, parley-bench,
#                       parley-soak, parley-mock-server) into .build/tools/debug
#   make layering       check the manifest against the layer table
#   make examples       compile every Swift example of README.md, CONTRIBUTING.md and docs/ against
#                       the build (after `make build`)
#   make feature-check  scaffold a module, build it with the gate's flags, run its tests, remove
#                       it, and check the checkout is as it was (after `make build`)
#   make docs           build every library product's DocC docs; a broken ``Symbol`` link fails
#                       (swift-docc-plugin, docc's warnings as errors)
#   make test           setup, layering, lint, build, examples, docs, the tests against loopback
#                       servers, then the consumer check (a package that depends on Parley by
#                       URL and version)
#   make consumer       the consumer check alone
#   make openapi-example  build Examples/WeatherOpenAPI (swift-openapi-generator's plugin) and
#                       call each of its operations through Parley against a mock server
#   make sanitize       every suite, with the test servers up, under ThreadSanitizer, then
#                       AddressSanitizer (leaks checked), each in a build of its own; fails on any
#                       report (SANITIZE_SUITES='RetryTests FormsTests' for some)
#   make fuzz           build the parsers' fuzz targets (Tests/Fuzz) with libFuzzer and ASan, run
#                       each for FUZZ_SECONDS (120); fails on a crash, a broken invariant, a hang or
#                       a sanitizer report (FUZZ_TARGETS='content-range envelope' runs some)
#   make lint           swift format lint --strict
#   make format         rewrite the sources in the house format
#   make bench          compare Parley with its peers (BENCH_ARGS=--quick for a smoke run)
#   make bench-counts   count allocations and instructions per request; fails above the ceilings
#                       in Tools/Benchmarks/ceilings.json (COUNTS_ARGS='--repeat 3' for the spread)
#   make soak           100,000 requests and 200 downloads through forms, retries and downloads against
#                       a mock server faulting a tenth of its answers; fails on a request lost, hung or
#                       applied twice, or on growth (SOAK_ARGS='--seed 7 --duration 3600' for others)
#   make clean-servers  stop test servers left running

SHELL := bash
.SHELLFLAGS := -euo pipefail -c
.DEFAULT_GOAL := help
# Each step needs the one before it, even under `make -j`.
.NOTPARALLEL:

SWIFT ?= swift
PYTHON ?= python3
# A file may use only the modules its target depends on itself, so a layer cannot be
# crossed through a transitive import. Warnings are errors here, in the gate, and not in the
# manifests: a dependency's unsafe flags break the builds of packages that depend on it.
# The same flags for build and test share one build.
SWIFT_FLAGS ?= --explicit-target-dependency-import-check error -Xswiftc -warnings-as-errors
# The library's own builds turn on every package trait (Observability, ServiceLifecycle), so
# that the optional products are built and tested; a plain `swift build` leaves them off.
ROOT_FLAGS := $(SWIFT_FLAGS) --enable-all-traits
# The tools depend on the library by path and the library never on them (Package.swift says
# why): Tools/All builds them together, in a build folder of their own, and the tests that run
# them find them through PARLEY_TOOLS_BIN.
TOOLS_SCRATCH ?= .build/tools
TOOLS_BUILD = $(SWIFT) build --package-path Tools/All --scratch-path '$(abspath $(TOOLS_SCRATCH))' $(SWIFT_FLAGS)
TOOLS_BIN = $(abspath $(TOOLS_SCRATCH))/debug
# The benchmarks' own package: its peers (and AsyncHTTPClient's BoringSSL) are built by
# `make bench` only.
BENCH_PACKAGE := Tools/Benchmarks
LINT_PATHS := Package.swift $(wildcard Packages Tools Tests Apps Examples)

.PHONY: help demo feature remove-feature test-one setup build tools layering examples feature-check docs test consumer openapi-example sanitize lint format bench bench-counts soak clean-servers

help:
	@sed -n 's/^#   make/  make/p' $(firstword $(MAKEFILE_LIST))

# The demo needs the build's packages only, not the test servers'. It builds in the tools'
# build with the gate's flags, so that `make test` and `make demo` share one build.
demo:
	bash Tools/scripts/setup.sh --build
	$(TOOLS_BUILD) --product parley-demo
	'$(TOOLS_BIN)/parley-demo' $(or $(DEMO_ARGS),tour)

feature:
	$(PYTHON) Tools/scripts/feature.py add '$(NAME)'

remove-feature:
	$(PYTHON) Tools/scripts/feature.py remove '$(NAME)'

# The build of `build` (the root alone; `make tools` once for the tests that run a tool), so
# that switching between this and the gate rebuilds nothing, then the tests whose names match
# FILTER (`swift test --filter`), with the test servers up as the gate starts them.
test-one:
	@[[ -n '$(FILTER)' ]] || { echo "make test-one: name the tests, e.g. make test-one FILTER=NewsTests" >&2; exit 2; }
	$(SWIFT) build --build-tests $(ROOT_FLAGS)
	PARLEY_TOOLS_BIN='$(TOOLS_BIN)' bash Tools/scripts/with-test-servers.sh \
		$(SWIFT) test --skip-build $(ROOT_FLAGS) --filter '$(FILTER)'

setup:
	bash Tools/scripts/setup.sh

build: tools
	$(SWIFT) build --build-tests $(ROOT_FLAGS)

tools:
	$(TOOLS_BUILD)

layering:
	$(PYTHON) Tools/check-layering.py --self-test
	$(PYTHON) Tools/check-layering.py
	$(PYTHON) Tools/scripts/feature.py --self-test

# Type-checks the documentation's Swift blocks against the modules `build` made, in seconds;
# the self-test first proves that a broken block fails (Tools/scripts/check-examples.py).
examples:
	$(PYTHON) Tools/scripts/check-examples.py --self-test
	$(PYTHON) Tools/scripts/check-examples.py

# `make feature` end to end, in the build of `build` (Tools/scripts/check-feature-scaffold.sh
# says why not in a copy). The last step of `make test`: the new module's canned routes change
# the mock backend's resources, which recompiles every test target that imports it (minutes on
# two cores), so it runs once everything else has passed, and the next build recompiles them.
feature-check:
	SWIFT='$(SWIFT)' PYTHON='$(PYTHON)' ROOT_FLAGS='$(ROOT_FLAGS)' bash Tools/scripts/check-feature-scaffold.sh

# In a scratch folder of its own (.build/docs), so that it leaves the build above alone.
docs:
	SWIFT='$(SWIFT)' PYTHON='$(PYTHON)' bash Tools/scripts/docs.sh

# The servers are stopped by with-test-servers.sh whatever the tests do; the exit status is
# that of `swift test`, or of the consumer check when the tests pass. The documentation is
# built after the library and before the tests: a broken link fails in seconds, not after them,
# as do the documentation's examples, which use the library's build.
# The tests that run the tools (DemoTests, SoakTests, some TransportCurlTests) find them in
# PARLEY_TOOLS_BIN, built by `build`. The OpenAPI example follows (its first build compiles the
# generator's plugin: about 6 minutes, then seconds), and a short fuzz run of every parser
# (FUZZ_SHORT_SECONDS each, see `fuzz`) comes last.
test: setup layering lint build examples docs
	PARLEY_TOOLS_BIN='$(TOOLS_BIN)' bash Tools/scripts/with-test-servers.sh bash -c \
		'$(SWIFT) test $(ROOT_FLAGS) && bash Tools/scripts/check-consumer.sh'
	PARLEY_TOOLS_BIN='$(TOOLS_BIN)' SWIFT='$(SWIFT)' SWIFT_FLAGS='$(SWIFT_FLAGS)' bash Tools/scripts/openapi-example.sh
	FUZZ_SECONDS=$(FUZZ_SHORT_SECONDS) SWIFT='$(SWIFT)' SWIFT_FLAGS='$(SWIFT_FLAGS)' bash Tools/scripts/fuzz.sh
	$(MAKE) feature-check

consumer: setup
	bash Tools/scripts/with-test-servers.sh bash Tools/scripts/check-consumer.sh

openapi-example: setup tools
	PARLEY_TOOLS_BIN='$(TOOLS_BIN)' SWIFT='$(SWIFT)' SWIFT_FLAGS='$(SWIFT_FLAGS)' bash Tools/scripts/openapi-example.sh

# Each sanitizer builds everything (tests, tools and the children the tests run: parley-fetch,
# parley-demo, parley-mock-server, parley-bench, all with the same sanitizer) in scratch
# folders of its own, .build/sanitize-thread and .build/sanitize-address for the library and
# its tests, with -tools after each for Tools/All (SANITIZE_SCRATCH sets the prefix), and runs every test target, one after another, with the test servers up as
# `make test` does (PARLEY_REQUIRE_SERVERS=1: a missing server fails);
# SANITIZE_SUITES='RetryTests FormsTests' runs some of them only. A report fails the run twice
# over: the test process exits with the sanitizer's status (a child built with a sanitizer
# exits with it too, so the tests that run parley-fetch fail on its reports), and the log is
# searched for a report (indented too: a test that shows a child's output indents it). Every
# target runs whatever the others find; the logs are
# $(SANITIZE_SCRATCH)-{thread,address}/sanitize-<target>.log, and sanitize.log all of them.
# Under AddressSanitizer the leak checker stays on, less the toolchain's own leaks, allowed by
# name:
#   libXCTest.so               allocations of XCTest's runner, in every test process
#   readBytesFromFile          FoundationEssentials' `String(contentsOf:)`
#   Foundation7ProcessC3run    swift-corelibs-foundation's `Process.run()`
#   formWeakReference          the side table of an object with a weak reference (the console
#                              presenter's timer) that lives until exit: the object points at it
#                              through an encoded pointer LeakSanitizer cannot read
#                              (llvm/llvm-project#56751)
# and one memory error of the toolchain's, allowed by name under AddressSanitizer too:
#   findMaximumOpenFromProcSelfFD  `Process.run()` lists /proc/self/fd and copies each entry's
#                                  name as 256 bytes, reading past the end of the directory
#                                  buffer when the last entry ends near it (the DemoTests hit it)
# and, under ThreadSanitizer, one race of SwiftNIO's that it cannot see ordered:
#   NIOPooledRecvBufferAllocator  the mock server's event loop reuses a receive buffer once its
#                                 last reference (a route's, on another thread) is released;
#                                 the release and the uniqueness check are atomics of the
#                                 uninstrumented Swift runtime, so TSan sees no order
# It is not part of `make test`: from a clean clone, over an hour on two busy cores, most of it
# the two builds; about a quarter of an hour once they are made (docs/RELIABILITY.md).
SANITIZE_SCRATCH ?= .build/sanitize
# One `swift test` per test target, so that a target's tests share the machine with each other
# only: all of them at once under a sanitizer's slowdown starve the waits of the slower ones.
SANITIZE_ALL_SUITES := CachingTests CoordinationTests DownloadsTests FeedbackConsoleTests \
	FeedbackTests FormsTests MappingTests RetryTests SystemAPITests TransportCurlTests \
	TransportTests WeatherAPITests DemoTests ParleyObservabilityTests ParleyServiceLifecycleTests
SANITIZE_SUITES ?=
SANITIZE_LEAKS_ALLOWED := libXCTest.so readBytesFromFile Foundation7ProcessC3run formWeakReference
SANITIZE_ERRORS_ALLOWED := findMaximumOpenFromProcSelfFD
SANITIZE_RACES_ALLOWED := NIOPooledRecvBufferAllocator
sanitize: setup
	failed=; \
	for sanitizer in thread address; do \
		scratch=$(SANITIZE_SCRATCH)-$$sanitizer; \
		$(SWIFT) build --build-tests $(ROOT_FLAGS) --sanitize=$$sanitizer --scratch-path $$scratch; \
		$(SWIFT) build --package-path Tools/All $(SWIFT_FLAGS) --sanitize=$$sanitizer \
			--scratch-path "$$(pwd)/$$scratch-tools"; \
		allowed=$$(cd $$scratch && pwd)/leaks-allowed.txt; \
		printf 'leak:%s\n' $(SANITIZE_LEAKS_ALLOWED) >$$allowed; \
		errors=$$(cd $$scratch && pwd)/errors-allowed.txt; \
		printf 'interceptor_via_fun:*%s*\n' $(SANITIZE_ERRORS_ALLOWED) >$$errors; \
		races=$$(cd $$scratch && pwd)/races-allowed.txt; \
		printf 'race:%s\n' $(SANITIZE_RACES_ALLOWED) >$$races; \
		: >$$scratch/sanitize.log; \
		for suite in $(or $(SANITIZE_SUITES),$(SANITIZE_ALL_SUITES)); do \
			status=0; \
			LSAN_OPTIONS=suppressions=$$allowed ASAN_OPTIONS=suppressions=$$errors TSAN_OPTIONS=suppressions=$$races \
				PARLEY_TOOLS_BIN="$$(pwd)/$$scratch-tools/debug" bash Tools/scripts/with-test-servers.sh \
				$(SWIFT) test --skip-build $(ROOT_FLAGS) --sanitize=$$sanitizer --scratch-path $$scratch \
				--filter "^$$suite\\." 2>&1 | tee $$scratch/sanitize-$$suite.log || status=$$?; \
			cat $$scratch/sanitize-$$suite.log >>$$scratch/sanitize.log; \
			if ((status != 0)); then \
				echo "make sanitize: $$suite under the $$sanitizer sanitizer exited with $$status" >&2; \
				failed+=" $$sanitizer:$$suite"; \
			fi; \
			if grep -qE '^[[:space:]]*(WARNING: ThreadSanitizer|==[0-9]+==ERROR: (Address|Leak)Sanitizer)' \
				$$scratch/sanitize-$$suite.log; then \
				echo "make sanitize: $$sanitizer sanitizer reports in $$scratch/sanitize-$$suite.log" >&2; \
				failed+=" $$sanitizer:$$suite"; \
			fi; \
		done; \
	done; \
	[[ -z "$$failed" ]] || { echo "make sanitize: failed under:$$failed" >&2; exit 1; }

# Each target runs for FUZZ_SECONDS in turn, in a build of its own (.build/fuzz); `make test`
# runs every target for FUZZ_SHORT_SECONDS after the tests. Tools/scripts/fuzz.sh says where
# the corpora, the failing inputs and the logs go.
FUZZ_SECONDS ?= 120
FUZZ_SHORT_SECONDS ?= 5
.PHONY: fuzz
fuzz:
	FUZZ_SECONDS=$(FUZZ_SECONDS) SWIFT='$(SWIFT)' SWIFT_FLAGS='$(SWIFT_FLAGS)' bash Tools/scripts/fuzz.sh

lint:
	$(SWIFT) format lint --strict --recursive $(LINT_PATHS)

format:
	$(SWIFT) format format --in-place --recursive $(LINT_PATHS)

bench:
	$(SWIFT) test --package-path $(BENCH_PACKAGE)
	$(PYTHON) Tools/Benchmarks/compare.py $(BENCH_ARGS)
	$(PYTHON) Tools/Benchmarks/counts.py $(COUNTS_ARGS)

# Counts that do not move with the machine's load: heap allocations (a preloaded counting malloc)
# and instructions (valgrind's callgrind) per request of parley-bench and of the libcurl baseline.
# counts.py builds nothing, so the two binaries are built here first (compare.py has built them
# when `make bench` runs it). Fails when a count of Parley's is above its ceiling.
bench-counts:
	$(SWIFT) build -c release --package-path $(BENCH_PACKAGE) --product parley-bench
	$(SWIFT) build -c release --package-path $(BENCH_PACKAGE) --product parley-bench-curl
	$(PYTHON) Tools/Benchmarks/counts.py $(COUNTS_ARGS)

# The soak's own checks decide: it exits 1 naming each one that failed (docs/RELIABILITY.md).
# Built in the tools' build with the gate's flags, so it shares the build of `make test`, whose
# SoakTests run a short version; it starts the mock server and parley-fetch built beside it.
soak:
	$(TOOLS_BUILD)
	'$(TOOLS_BIN)/parley-soak' $(SOAK_ARGS)

clean-servers:
	bash Tools/scripts/test-servers.sh stop
