# Node package `monapi` (napi-rs): the native addon and its JS layer in bindings-node/, the
# suite in tests/node/, the quickstart, the benchmark. Included from the root Makefile, which
# sets SHELL := bash with -eu -o pipefail and CARGO ?= cargo (also defaulted here, so that
# `make -f mk/node.mk ...` works alone). Needs npm, cargo and node >= 20.18.1 on 20.x (CI runs
# 20), or >= 22.13: the dev tools require it (@napi-rs/cli 3: ^20.17 || ^22.13 || >= 23.5;
# undici 7, for the bench: >= 20.18.1). They are devDependencies with typescript and
# @types/node (package-lock.json). The package itself supports node >= 18 (`engines`).
#
# Rust builds use their own target directory ($(NODE_TARGET_DIR)) so that they never wait on
# the cargo lock of the other builds; the root Makefile sets the shared one, `target`. The debug
# addon (the suite's) is cargo's build for the host, which reuses `cargo test`'s dependencies
# there (bindings-node/scripts/build.mjs).

CARGO ?= cargo
NODE ?= node
NPM ?= npm
NODE_TARGET_DIR ?= target-node
NODE_STAMP := node_modules/.package-lock.json
NODE_ENV_VARS := CARGO="$(CARGO)" CARGO_TARGET_DIR="$(NODE_TARGET_DIR)"
# The addon's profile: release for node-build alone (the package, the demo, the bench), debug for
# the suite (node-test): what it checks does not depend on the profile, and a release build
# costs minutes.
NODE_PROFILE ?= release

.PHONY: node-env node-build node-dts node-typecheck node-test node-suite node-test-build node-demo node-bench node-lint

## node-env: install the dev tools (npm ci) when node_modules is missing or older than package-lock.json
node-env: $(NODE_STAMP)

$(NODE_STAMP): package-lock.json
	$(NPM) ci --no-audit --no-fund
	touch $@

## node-build: release build (NODE_PROFILE=debug: debug) of the addon by cargo into bindings-node/ (the release one reuses the dependencies the command's release build compiled) (regenerates native.d.ts/native.js in $(NODE_TARGET_DIR)/napi), then the TypeScript layer (bindings-node/ts/) compiled by tsc into bindings-node/index.js, index.d.ts and lib/
node-build: node-env
	$(NODE_ENV_VARS) $(NODE) bindings-node/scripts/build.mjs $(if $(filter debug,$(NODE_PROFILE)),--debug)

## node-dts: node-build, then copy the regenerated native.d.ts/native.js into bindings-node/ (commit them)
node-dts: node-env
	$(NODE_ENV_VARS) $(NODE) bindings-node/scripts/build.mjs --accept

NODE_TSC = $(NODE) node_modules/typescript/bin/tsc -p tests/node/tsconfig.json

## node-typecheck: tsc --noEmit over the tests, the examples (.mjs and .ts) and the bench, against the
## built package's declarations (after node-build)
node-typecheck: node-env
	$(NODE_TSC)

## node-test: build, type-check, then the node:test suite (operations, errors, tokens, drift check, npm pack install check).
## The type check runs in the recipe, after the build it reads, also under make -j.
node-test: NODE_PROFILE := debug
node-test: node-build
	$(MAKE) --no-print-directory node-suite

# The suite on what node-build built; make test and make test-stress run it so. Two test files at
# a time (node's default here is one per core but one): most of a file's time is spent waiting on
# the emulators and commands it drives. The spec reporter names each failing test at the end.
NODE_SUITE = $(NODE_ENV_VARS) $(NODE) --test --test-concurrency=2 --test-reporter=spec tests/node/*.test.mjs

## node-suite: the type check and the suite, without building (after node-test-build)
node-suite: node-env
	$(NODE_TSC)
	$(NODE_SUITE)

## node-test-build: the suite's build alone (the debug addon for the host, reusing the test build, and the TypeScript layer)
node-test-build: NODE_PROFILE := debug
node-test-build: node-build

## node-demo: run examples/quickstart.mjs (the MONAPI_* variables come from the caller)
node-demo: node-build
	$(NODE) examples/quickstart.mjs

## node-bench: monapi vs fetch vs undici.request, then client.tables vs undici.request + JSON.parse + JS, against the
## release-built emulator (add BENCH_ARGS=--record to update bench/RESULTS.md); then bench/node/network.mjs on
## loopback and on the wide-area profile (50 Mbit/s, 40 ms)
node-bench: node-build
	$(NODE) --expose-gc bench/node/bench.mjs $(BENCH_ARGS)
	$(NODE) --expose-gc bench/node/tables.mjs $(BENCH_ARGS)
	$(NODE) --expose-gc bench/node/network.mjs --profile loopback
	$(NODE) --expose-gc bench/node/network.mjs --profile wan

## node-lint: rustfmt and clippy (warnings are errors) for the binding crate
node-lint:
	$(CARGO) fmt -p monapi-node -- --check
	$(NODE_ENV_VARS) $(CARGO) clippy -p monapi-node --all-targets -- -D warnings
