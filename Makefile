# Parley: the commands a contributor and CI run. `make test` is the gate.
#
#   make setup          install what building and testing need (Debian packages, PyPI)
#   make build          build everything, warnings as errors, imports checked
#   make layering       check the manifest against the layer table
#   make test           setup, layering, lint, build, then the tests against loopback servers
#   make lint           swift format lint --strict
#   make format         rewrite the sources in the house format
#   make bench          compare Parley with its peers (BENCH_ARGS=--quick for a smoke run)
#   make clean-servers  stop test servers left running

SHELL := bash
.SHELLFLAGS := -euo pipefail -c
.DEFAULT_GOAL := help
# Each step needs the one before it, even under `make -j`.
.NOTPARALLEL:

SWIFT ?= swift
PYTHON ?= python3
# A file may use only the modules its target depends on itself, so a layer cannot be
# crossed through a transitive import. The same flags for build and test share one build.
SWIFT_FLAGS ?= --explicit-target-dependency-import-check error
LINT_PATHS := Package.swift $(wildcard Packages Tools Tests Apps)

.PHONY: help setup build layering test lint format bench clean-servers

help:
	@sed -n 's/^#   make/  make/p' $(firstword $(MAKEFILE_LIST))

setup:
	bash Tools/scripts/setup.sh

build:
	$(SWIFT) build $(SWIFT_FLAGS)

layering:
	$(PYTHON) Tools/check-layering.py --self-test
	$(PYTHON) Tools/check-layering.py

# The servers are stopped by with-test-servers.sh whatever the tests do; its exit status
# is that of `swift test`.
test: setup layering lint build
	bash Tools/scripts/with-test-servers.sh $(SWIFT) test $(SWIFT_FLAGS)

lint:
	$(SWIFT) format lint --strict --recursive $(LINT_PATHS)

format:
	$(SWIFT) format format --in-place --recursive $(LINT_PATHS)

bench:
	$(PYTHON) Tools/Benchmarks/compare.py $(BENCH_ARGS)

clean-servers:
	bash Tools/scripts/test-servers.sh stop
