# The Python package (bindings-python/, pyproject.toml): environment, wheel, sdist, tests, demo
# and benchmarks. Included from the root Makefile; also usable alone: make -f mk/python.mk python-test
#
#   python-env    .venv/ with the pinned tools of tests/python/requirements.txt
#   python-build  the wheel users get, into target/dist/, installed into .venv/ (--force-reinstall):
#                 abi3 (CPython >= 3.11), manylinux2014 (glibc >= 2.17), built by maturin --zig
#                 (zig from the ziglang wheel: no container, no other toolchain)
#   python-dist   the wheel users get and the sdist (maturin sdist) into target/dist/, not installed
#                 (the packaging tests install them into fresh venvs)
#   python-musl   the musllinux_1_2 x86_64 wheel into target/dist/musllinux/ (rustup adds the musl
#                 std; zig links against musl). Not part of make test: there is no musl CPython
#                 here to install it into (the release workflow tests it on Alpine)
#   python-test   python-test-build, then python-suite and python-packaging-test
#   python-suite  pytest without the packaging tests, the stub check, mypy
#                 --strict, ruff, on the installed build (make test runs it beside the Node and
#                 Rust suites)
#   python-packaging-test  python-dist, then the packaging tests; needs node_modules too
#                 (node-env): they run scripts/set-version.sh, which asks napi-rs's CLI for the
#                 npm platforms. Its wheels are debug builds (PY_PROFILE=dev, and the same for
#                 the packaging tests' pip builds): what the suite checks does not depend on the
#                 profile, and release builds cost minutes; the wheel users get is python-build's
#   python-test-build  the wheel the suite installs: for the host (not manylinux), the dev
#                 profile, in the target directory of `cargo test`, whose compiled dependencies it
#                 reuses (one feature set for every member: workspace-hack/); and the debug
#                 `monapi` (`monapi serve`, for the API fuzzing)
#   python-demo   examples/quickstart.py with .venv's python (MONAPI_* from the caller), then the
#                 notebook examples/analysis.ipynb, its plots as PNG files in examples/output/
#   python-bench  bench/python/bench.py against the release-built emulator, bench/python/network.py
#                 on loopback and on the wide-area profile (50 Mbit/s, 40 ms), then the A/B of
#                 the asyncio bridge (bench/python/bridge.py) against `monapi serve`; the wheel
#                 it installs has the cargo feature bench-bridge (hidden A/B functions)

CARGO ?= cargo
PYTHON ?= python3
# Cargo's target directory for the wheel's build (the root Makefile sets `target`, shared with
# the other release builds; alone, the fragment keeps its own so as not to wait on the lock).
PY_TARGET_DIR ?= target-py
# ... and of the manylinux wheel's (python-packaging-test gives it a directory of its own and
# a lower priority).
PY_WHEEL_TARGET_DIR = $(PY_TARGET_DIR)
PY_NICE =
PY_VENV ?= .venv
PY := $(PY_VENV)/bin/python
PY_REQUIREMENTS := tests/python/requirements.txt
PY_REQUIREMENTS_SUITE := tests/python/requirements-suite.txt
PY_ENV_STAMP := $(PY_VENV)/.monapi-requirements
PY_UV := uv==0.13.9
PY_DIST := target/dist
# maturin finds zig (python -m ziglang) and auditwheel's checks through the venv on PATH.
PY_PATH := PATH="$(abspath $(PY_VENV))/bin:$$PATH"
PY_INSTALLED := $(PY_VENV)/.monapi-installed
# Cargo profile of the wheel: release for the wheel users get, dev for the suite (python-test).
PY_PROFILE ?= release
# What the wheel is built from: a change rebuilds it for python-demo.
PY_SOURCES := $(shell find bindings-python core/src emulator/src -type f \( -name '*.rs' -o -name '*.py' -o -name '*.pyi' -o -name 'Cargo.toml' \) 2>/dev/null) pyproject.toml Cargo.toml
PY_LINTED := examples/quickstart.py examples/typed_results.py examples/dask_reports.py examples/dask_sync.py examples/spark_store.py tests/python bench/python bench/callgrind bindings-python/python scripts/check-imports.py scripts/check-lengths.py scripts/check-features.py scripts/gen-answers.py scripts/gen-stub-docs.py docs/samples/python scripts/mkdocs_sphinx_roles.py scripts/mkdocs_rustdoc.py

# node-env (npm ci), for python-test; the root Makefile has already included node.mk.
ifndef NODE_STAMP
include $(dir $(lastword $(MAKEFILE_LIST)))node.mk
endif

# Executes a notebook in a kernel (nbclient), as Jupyter would (make demo: the analysis one).
define PY_RUN_NOTEBOOK
import sys, nbformat, nbclient
notebook = nbformat.read(sys.argv[1], as_version=4)
nbclient.NotebookClient(notebook, kernel_name="python3", timeout=600).execute()
endef
export PY_RUN_NOTEBOOK

.PHONY: python-env python-build python-dist python-musl python-test python-test-build python-suite python-packaging-test python-lint python-demo python-bench

python-env: $(PY_ENV_STAMP)

# uv installs the pinned tools (pip took over a minute for them, uv seconds); pip installs uv.
# From uv's cache alone first (--offline), online only when the cache lacks something: behind a
# proxy that strips the registry's cache headers, uv finds every cached answer stale, so each new
# venv downloaded pyspark's sdist again and built it twice (about 25 CPU seconds and 2.8 GB more
# of uv's cache each time).
PY_UV_INSTALL = $(PY_VENV)/bin/uv pip install --quiet --python $(PY) -r $(PY_REQUIREMENTS)
$(PY_ENV_STAMP): $(PY_REQUIREMENTS) $(PY_REQUIREMENTS_SUITE)
	test -x $(PY) || $(PYTHON) -m venv $(PY_VENV)
	$(PY) -m pip install --quiet --disable-pip-version-check $(PY_UV)
	$(PY_UV_INSTALL) --offline 2>/dev/null || $(PY_UV_INSTALL)
	touch $@

# The wheel users get. maturin runs cargo itself (it ignores CARGO) in CARGO_TARGET_DIR. With --zig
# it builds for the explicit target x86_64-unknown-linux-gnu (glibc 2.17), so in
# $(PY_TARGET_DIR)/x86_64-unknown-linux-gnu, a tree of its own (zig is its linker, which every
# unit's fingerprint holds: no other build could share it). The bench calls it with $(1), more
# maturin arguments (a cargo feature), and $(2), another output directory.
# python-packaging-test builds it with the dev profile (PY_PROFILE) in a target directory of its
# own, for the packaging tests only.
define py_build_wheel
	rm -f $(or $(2),$(PY_DIST))/monapi-*.whl
	$(PY_PATH) CARGO_TARGET_DIR=$(PY_WHEEL_TARGET_DIR) $(PY_NICE) $(PY_VENV)/bin/maturin build --profile $(PY_PROFILE) --zig --compatibility manylinux2014 $(1) --out $(or $(2),$(PY_DIST))
endef

# Installs the wheel found in directory $(1) into .venv/.
define py_install_wheel
	$(PY) -m pip install --quiet --disable-pip-version-check --force-reinstall --no-deps $(1)/monapi-*.whl
	touch $(PY_INSTALLED)
endef

define py_lint
	$(PY_VENV)/bin/mypy --strict examples/quickstart.py examples/typed_results.py examples/dask_sync.py examples/spark_store.py tests/python bindings-python/python/monapi bench/python bench/callgrind scripts/check-imports.py scripts/check-lengths.py scripts/check-features.py scripts/gen-answers.py scripts/gen-stub-docs.py scripts/mkdocs_sphinx_roles.py scripts/mkdocs_rustdoc.py
	$(PY_VENV)/bin/ruff check $(PY_LINTED)
	$(PY_VENV)/bin/ruff format --check $(PY_LINTED)
endef

python-build: python-env
	$(py_build_wheel)
	$(call py_install_wheel,$(PY_DIST))

# The installed wheel, rebuilt only when its sources changed (for python-demo).
$(PY_INSTALLED): $(PY_SOURCES) | $(PY_ENV_STAMP)
	$(py_build_wheel)
	$(call py_install_wheel,$(PY_DIST))

python-dist: python-env
	$(py_build_wheel)
	rm -f $(PY_DIST)/monapi-*.tar.gz
	$(PY_VENV)/bin/maturin sdist --out $(PY_DIST)

python-musl: python-env
	rustup target add x86_64-unknown-linux-musl
	rm -f $(PY_DIST)/musllinux/monapi-*.whl
	$(PY_PATH) CARGO_TARGET_DIR=$(PY_TARGET_DIR) $(PY_VENV)/bin/maturin build --profile $(PY_PROFILE) --zig --target x86_64-unknown-linux-musl --compatibility musllinux_1_2 --out $(PY_DIST)/musllinux

# The suite's wheel: maturin without --zig builds for the host into $(PY_TARGET_DIR)/debug, where
# `cargo test --workspace` left the dependencies; `--compatibility linux` tags it for this
# machine only (the manylinux checks are python-dist's wheel's).
python-test-build: python-env
	rm -f $(PY_DIST)/host/monapi-*.whl
	$(PY_PATH) CARGO_TARGET_DIR=$(PY_TARGET_DIR) $(PY_VENV)/bin/maturin build --profile dev --compatibility linux --out $(PY_DIST)/host
	$(call py_install_wheel,$(PY_DIST)/host)
	$(CARGO) build -p monapi-cli --bin monapi

# The suite without its packaging tests, on what python-test-build installed; make test and make
# test-stress run it so (make python-test builds first).
PY_SUITE = CARGO_TARGET_DIR=$(abspath $(PY_TARGET_DIR)) $(PY) -m pytest tests/python --ignore=tests/python/test_packaging.py

python-suite: python-env
	$(PY_SUITE)
	$(PY) tests/python/stubcheck.py
	$(py_lint)

# The packaging tests (tests/python/test_packaging.py) install target/dist's wheel and sdist into
# fresh venvs; their pip builds share $(PY_TARGET_DIR) through CARGO_TARGET_DIR, with the profile
# of the suite's wheel (MATURIN_PEP517_ARGS). The manylinux wheel is built in a target directory
# of its own (PY_WHEEL_TARGET_DIR): a build with --zig shares no compiled crate with the host's
# builds (its proc-macros and build scripts too are compiled again), and in the shared directory
# it would hold cargo's lock on the host's builds for minutes, beside the suites. It runs at a
# lower priority (PY_NICE): make test runs it beside the suites, which come first; the build
# takes the CPU they leave while they wait on their processes.
python-packaging-test: PY_PROFILE := dev
python-packaging-test: PY_WHEEL_TARGET_DIR := $(PY_TARGET_DIR)/manylinux
python-packaging-test: PY_NICE := nice -n 10
python-packaging-test: python-dist node-env
	CARGO_TARGET_DIR=$(abspath $(PY_TARGET_DIR)) MATURIN_PEP517_ARGS="--profile $(PY_PROFILE)" $(PY) -m pytest tests/python/test_packaging.py

python-test: python-test-build
	$(MAKE) --no-print-directory python-suite python-packaging-test

python-lint: python-env
	$(py_lint)

python-demo: $(PY_INSTALLED)
	$(PY) examples/quickstart.py
	MONAPI_PLOTS=$(abspath examples/output) $(PY) -c "$$PY_RUN_NOTEBOOK" examples/analysis.ipynb
	@echo "plots: $(abspath examples/output)/*.png"

# The bench wheel (in its own directory, never among the wheels users get) carries the feature
# bench-bridge: python-demo rebuilds the shipped one.
python-bench: python-env
	$(call py_build_wheel,--features bench-bridge,$(PY_DIST)/bench)
	$(call py_install_wheel,$(PY_DIST)/bench)
	rm -f $(PY_INSTALLED)
	CARGO_TARGET_DIR=$(PY_TARGET_DIR) $(CARGO) build --release -p monapi-cli --bin monapi
	$(PY) bench/python/bench.py
	$(PY) bench/python/network.py --serve $(PY_TARGET_DIR)/release/monapi --profile loopback
	$(PY) bench/python/network.py --serve $(PY_TARGET_DIR)/release/monapi --profile wan
	$(PY) bench/python/bridge.py --serve $(PY_TARGET_DIR)/release/monapi
