# The only entry points: demo, test, test-stress, build, lint, fmt, docs, bench, soak.
SHELL := bash
.SHELLFLAGS := -eu -o pipefail -c
CARGO ?= cargo
# rustdoc of the workspace, warnings as errors: checked by lint, copied into the site by docs
# (the same command, so that the second run has nothing to do)
RUSTDOC = RUSTDOCFLAGS="-D warnings" $(CARGO) doc --no-deps --workspace --quiet
# One target directory for every build here, so the release builds of the CLI and of the two
# bindings share their compiled dependencies (the fragments default to their own directories,
# which suits engineers building them side by side).
NODE_TARGET_DIR := target
PY_TARGET_DIR := target
# A clean clone builds our crates once: incremental compilation's caches (and its finer
# codegen units) would cost CPU for no later build to use. Developers keep it.
ifdef CI
export CARGO_INCREMENTAL := 0
endif
# The Node binding's build script runs again, and cargo compiles the binding again, whenever the
# folder napi-derive writes its type definitions into (NAPI_TYPE_DEF_TMP_FOLDER, which
# bindings-node/scripts/build.mjs passes to its builds) differs from the last build's: every cargo
# run of this Makefile gets the addon's folder, so that clippy, the test build and the addon's
# build reuse each other's build of the binding.
export NAPI_TYPE_DEF_TMP_FOLDER := $(abspath $(NODE_TARGET_DIR)/napi/type-def)

include mk/node.mk
include mk/python.mk
include mk/fuzz.mk
include mk/docs.mk

.PHONY: demo test test-stress tools clippy build lint fmt bench soak rust-build chromium rust-test rust-test-build suites suites-build workspace-hack rust-package set-version answers soak-test tables-bench store-bench store-s3-bench exporter-bench callgrind-bench prometheus java valgrind windows-target

## demo: install what is needed, build, run the quickstarts (Rust, Python, Node) against the bundled emulator
demo: build
	scripts/with-emulator.sh target/release/examples/quickstart
	scripts/with-emulator.sh $(MAKE) --no-print-directory python-demo
	scripts/with-emulator.sh $(NODE) examples/quickstart.mjs

## build: release builds of the CLI (which bundles the emulator), the Rust quickstart and both packages
build: rust-build python-build node-build

rust-build:
	$(CARGO) build --release -p monapi-cli --bin monapi
	$(CARGO) build --release -p monapi --example quickstart

## test: the tools (.venv/, node_modules/, Prometheus, chromium, Java) with clippy's check of the
## tree beside them, lint, the documentation site, the suites' builds, the soak's 5-second form,
## then every test suite side by side (Rust, Python, Node and the Python packaging checks) and the
## crates as users install them; it ends with a table of each phase's wall and CPU seconds
## (scripts/phase.sh), so that a regression shows in every run. The suites use debug builds, for
## the host, that reuse the test build's compiled dependencies (one feature set for every member:
## workspace-hack/); the manylinux wheel of the packaging tests and the packaged crates' install
## are the tree's two other builds.
PHASE := PHASES=$(abspath target/phases.txt) scripts/phase.sh
test:
	@rm -f target/phases.txt
	$(PHASE) setup $(MAKE) --no-print-directory -j2 --output-sync=target tools clippy
	$(PHASE) lint $(MAKE) --no-print-directory lint
	$(PHASE) docs $(MAKE) --no-print-directory docs
	$(PHASE) build $(MAKE) --no-print-directory suites-build
	$(PHASE) soak $(MAKE) --no-print-directory soak-test
	$(PHASE) suites env MONAPI_SITE_BUILT=1 $(MAKE) --no-print-directory suites
	$(PHASE) crates $(MAKE) --no-print-directory rust-package
	@$(PHASE) --report

## tools: what lint and the suites run, installed where missing: .venv/, node_modules/, Prometheus,
## chromium, Java, the Windows target. Those of apt-get one after the other, as it takes dpkg's
## lock. They mostly wait on downloads: make test checks the tree with clippy beside them, which
## needs none of them.
tools:
	$(MAKE) --no-print-directory python-env node-env
	$(MAKE) --no-print-directory prometheus
	$(MAKE) --no-print-directory chromium
	$(MAKE) --no-print-directory java
	$(MAKE) --no-print-directory windows-target

## suites-build: what the suites run, built once: the debug Node addon, the wheel installed in
## .venv/ with the debug `monapi`, and the Rust test build
suites-build: node-env python-env
	$(MAKE) --no-print-directory node-test-build python-test-build rust-test-build

## suites: the Rust, Python and Node suites and the Python packaging tests side by side, on
## suites-build's builds (the packaging tests build their own wheels). Most tests wait on the
## processes they drive, so together they keep both cores busy where one alone would leave one
## idle. Each suite's output is printed whole when it ends; every suite runs to its end, whichever
## fails (--keep-going: without it, make started no step after a failure, such as the packaging
## tests after their wheel's build).
suites: prometheus chromium java
	$(MAKE) --no-print-directory -j4 --keep-going --output-sync=target rust-test python-suite node-suite python-packaging-test

## test-stress: N runs (N=5) of the Rust, Python and Node suites, built once and never rebuilt,
## one run after the other (a run's suites side by side) with both cores busy beside them; each
## failing suite's log is kept in target/stress/ (scripts/stress.sh). A test that fails here is
## a bug to find, not to retry. The suites' commands are make test's.
N ?= 5
# (The commands go in single quotes: none of them has one.)
test-stress: prometheus java suites-build
	N=$(N) RUST_SUITE='$(RUST_SUITE)' PY_SUITE='$(PY_SUITE)' NODE_SUITE='$(NODE_SUITE)' scripts/stress.sh

# $(call apt_install,PACKAGE,COMMAND...): Debian's PACKAGE unless every COMMAND is there;
# apt-get as root, through sudo otherwise; the package index is updated only when it lacks it.
APT_SUDO := $(shell [ "$$(id -u)" = 0 ] || echo sudo)
APT_GET := $(APT_SUDO) env DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends
apt_install = $(foreach command,$(2),command -v $(command) >/dev/null &&) true || \
	{ $(APT_GET) $(1) || { $(APT_SUDO) apt-get update && $(APT_GET) $(1); }; }

## prometheus: Debian's prometheus package (prometheus and promtool), which the exporter's tests run
prometheus:
	$(call apt_install,prometheus,prometheus promtool)

## java: Debian's headless Java 17, on which pyspark runs Spark in local mode: the Python suite
## reads the store with it (tests/python/test_store_engines.py, examples/spark_store.py, the
## store's page); apt-get as for prometheus
java:
	$(call apt_install,openjdk-17-jre-headless,java)

## valgrind: Debian's valgrind, whose callgrind counts instructions (make callgrind-bench)
valgrind:
	$(call apt_install,valgrind,valgrind)

## chromium: Debian's chromium, which the documentation's browser test drives (tests/python/test_site.py,
## through playwright); apt-get as for prometheus. Where the distribution's package is no browser
## (Ubuntu's is a snap), playwright's own chromium instead (the GitHub workflow's case).
chromium: python-env
	{ $(call apt_install,chromium,chromium); } && \
	  chromium --version >/dev/null 2>&1 || $(PY_VENV)/bin/playwright install --with-deps chromium

## windows-target: what lint's check of the command for Windows needs: rustup's x86_64-pc-windows-gnu
## standard library (added when missing), and Debian's mingw-w64 C compiler, with which the build
## scripts of ring and zstd-sys compile their C for it; apt-get as for prometheus
WINDOWS_TARGET := x86_64-pc-windows-gnu
windows-target:
	rustup target list --installed | grep -qx $(WINDOWS_TARGET) || rustup target add $(WINDOWS_TARGET)
	$(call apt_install,gcc-mingw-w64-x86-64,x86_64-w64-mingw32-gcc)

## rust-test: every Rust test and doctest; a failing test binary does not stop the others
## (--no-fail-fast), and each names its failing tests. Left out, as they have no Rust test and
## their test builds would be for nothing: the Python binding (pytest tests it), the soak (checked
## by lint, run by soak-test) and workspace-hack; from the doctests, the Node binding too
## (doctest = false in both bindings: their documentation is for JavaScript and Python).
# The doctests' rustdoc would take make's jobserver from MAKEFLAGS or MFLAGS, which name
# descriptors make gives only to recursive makes: it warned, three times a run, that "the build
# environment is likely misconfigured", then used its own. Without them it uses its own, silently.
RUST_TEST := --workspace --exclude monapi-python --exclude monapi-soak --exclude workspace-hack
RUST_SUITE = $(CARGO) test $(RUST_TEST) --all-targets --no-fail-fast && env -u MAKEFLAGS -u MFLAGS $(CARGO) test $(RUST_TEST) --exclude monapi-node --doc --no-fail-fast
rust-test: prometheus
	$(RUST_SUITE)

rust-test-build:
	$(CARGO) test $(RUST_TEST) --all-targets --no-run

## rust-package: cargo package of the three publishable crates, then cargo install of the packaged
## CLI, whose monapi must work (scripts/check-crates.sh)
rust-package:
	CARGO="$(CARGO)" scripts/check-crates.sh

## lint: formatting, clippy and rustdoc over the workspace (bindings included, with the benchmark-only
## code of the Python binding, which is never in a shipped wheel), warnings are errors; the core
## also without its arrow feature, which then pulls in no arrow crate; no import circle in any
## crate (scripts/check-imports.py); no binding source file over 600 lines (scripts/check-lengths.py);
## workspace-hack/ current (scripts/check-features.py); actionlint on the workflows; the command
## compiles for Windows (cargo check for x86_64-pc-windows-gnu: no unix-only API outside cfg(unix))
lint: python-env windows-target clippy
	$(CARGO) fmt --all -- --check
	$(CARGO) clippy -p monapi --lib -- -D warnings
	# (the workspace-hack pruned: published, it is the registry's empty stub)
	deps=$$($(CARGO) tree -p monapi -e normal --prefix none --prune workspace-hack) && ! grep -q '^arrow' <<< "$$deps"
	$(RUSTDOC)
	# No file of a crate uses another that uses it back (ARCHITECTURE.md, invariants).
	$(PY) scripts/check-imports.py core emulator cli bindings-python bindings-node bench/soak
	# No binding source file over 600 lines (ARCHITECTURE.md, invariants).
	$(PY) scripts/check-lengths.py
	# One feature set for every dependency whichever members a build takes (workspace-hack/).
	$(PY) scripts/check-features.py
	$(PY_PATH) $(PY_VENV)/bin/actionlint
	# The command compiles for Windows: checked (no code generated), so it costs type checking.
	$(CARGO) check -p monapi-cli --target $(WINDOWS_TARGET)

## clippy: clippy over the workspace, every target, with the benchmark-only code of the Python
## binding; warnings are errors (part of lint)
clippy:
	$(CARGO) clippy --workspace --all-targets --features monapi-python/bench-bridge -- -D warnings

## workspace-hack: regenerate workspace-hack/ with cargo-hakari (installed with cargo when missing)
## after a dependency or its features change, and make every member depend on it; commit it
## (the lint fails while it is stale: scripts/check-features.py)
HAKARI_VERSION := 0.9.39
workspace-hack:
	$(CARGO) hakari --version >/dev/null 2>&1 || $(CARGO) install cargo-hakari --locked --version $(HAKARI_VERSION)
	$(CARGO) hakari generate
	$(CARGO) hakari manage-deps --yes

## set-version: VERSION=X.Y.Z sets the one version of the crates, the wheel and the npm packages (scripts/set-version.sh)
set-version: node-env
	CARGO="$(CARGO)" NODE="$(NODE)" NPM="$(NPM)" scripts/set-version.sh $(VERSION)

## answers: write the answers' shapes declared once in core/answers.toml as the Python TypedDicts
## (bindings-python/python/monapi/_answers.py) and the TypeScript types (bindings-node/ts/lib/answers.ts);
## commit them (the Python suite fails when they differ: scripts/gen-answers.py --check)
answers:
	$(PYTHON) scripts/gen-answers.py

## reference: write the docs' generated reference pages (docs/reference/configuration.md, errors.md, cli.md)
## from the code: the core's declarations of the settings and the error codes, the command's clap tree;
## commit them (the Rust suite fails when they differ: the reference tests of cli/src/reference/)
.PHONY: reference
reference:
	MONAPI_WRITE_REFERENCE=1 $(CARGO) test -p monapi-cli --lib reference

## fmt: format the code
fmt:
	$(CARGO) fmt --all

## bench: the Python and Node benchmarks against the release-built emulator, and the tables'
bench: python-bench node-bench tables-bench store-bench store-s3-bench exporter-bench callgrind-bench

## callgrind-bench: a small call's instructions with telemetry off (against the commit before
## telemetry, built in a git worktree) and on, counted by callgrind (add BENCH_ARGS=--record to
## update bench/RESULTS.md)
callgrind-bench: valgrind python-env
	$(CARGO) build -p monapi-cli --bin monapi
	CARGO="$(CARGO)" $(PY) bench/callgrind/run.py $(BENCH_ARGS)

## tables-bench: building a table against serde_json::Value (Rust), then monapi export against
## requests + pandas + to_parquet (120 tasks x 7 days, release emulator), then client.tables in
## Python against the usual pandas and polars pipelines (bench/python/tables_bench.py)
tables-bench: python-build
	$(CARGO) bench -p monapi --features arrow --bench tables
	$(CARGO) build --release -p monapi-cli --bin monapi
	$(PY) bench/python/export_bench.py --monapi target/release/monapi
	$(PY) bench/python/tables_bench.py --monapi target/release/monapi

## store-bench: the local store, 120 tasks x 30 days with 20 ms of latency, on loopback and on
## the wide-area profile: cold, warm, no store, one day later, monapi sync's peak RSS, the layout
store-bench: python-build
	$(CARGO) build --release -p monapi-cli --bin monapi
	$(PY) bench/python/store_bench.py --serve target/release/monapi --profile loopback
	$(PY) bench/python/store_bench.py --serve target/release/monapi --profile wan

## store-s3-bench: the store in a bucket (moto's S3 server on loopback) against the store on disk,
## 120 tasks x 30 days: the storage requests of a cold sync, a warm sync and a read, the times on disk
store-s3-bench: python-build
	$(CARGO) build --release -p monapi-cli --bin monapi
	$(PY) bench/python/store_s3_bench.py --serve target/release/monapi

## exporter-bench: monapi exporter over 1,000 site tasks of 6 points with 20 ms of latency, on loopback
## and on the wide-area profile: its first refresh, a refresh of the unsettled days, RSS, scrapes
exporter-bench: python-env
	$(CARGO) build --release -p monapi-cli --bin monapi
	$(PY) bench/python/exporter_bench.py --serve target/release/monapi --profile loopback
	$(PY) bench/python/exporter_bench.py --serve target/release/monapi --profile wan

## soak: the release emulator under 256 connections of mixed traffic, then 1,000 concurrent calls at a time from each client (Rust, Python, Node); each phase 45 s of warm-up and 60 s measured, memory sampled (figures in bench/RESULTS.md)
soak: $(PY_INSTALLED) node-build
	$(CARGO) build --release -p monapi-cli --bin monapi
	$(CARGO) build --release -p monapi-soak
	target/release/soak --monapi target/release/monapi

## soak-test: the soak's 5-second form with the debug builds of the emulator, the Rust client and the
## Node addon: no error in any phase (memory is not judged: the warm-up alone takes longer). The
## binaries reuse the test build (built alone they have its features too: workspace-hack/).
soak-test: NODE_PROFILE := debug
soak-test: $(PY_INSTALLED) node-build
	$(CARGO) build -p monapi-cli --bin monapi -p monapi-soak --bin soak
	target/debug/soak --seconds 5 --warmup 0 --monapi target/debug/monapi
