# The only entry points: demo, test, build, lint, fmt, bench.
SHELL := bash
.SHELLFLAGS := -eu -o pipefail -c
CARGO ?= cargo

.PHONY: demo test build lint fmt bench rust-test

## demo: build everything and run the quickstarts against the bundled emulator
demo: build
	scripts/with-emulator.sh target/release/examples/quickstart

## build: release builds of the CLI (which bundles the emulator) and the Rust quickstart
build:
	$(CARGO) build --release -p monapi-cli -p monapi --example quickstart

## test: lint, then every test suite
test: lint rust-test

rust-test:
	$(CARGO) test --workspace --all-targets
	$(CARGO) test --workspace --doc

## lint: formatting and clippy, warnings are errors
lint:
	$(CARGO) fmt --all -- --check
	$(CARGO) clippy --workspace --all-targets -- -D warnings

## fmt: format the code
fmt:
	$(CARGO) fmt --all
