# The Python package (bindings-python/, pyproject.toml): environment, wheel, tests, demo and
# benchmarks. Included from the root Makefile; also usable alone: make -f mk/python.mk python-test
#
#   python-env    .venv/ with the pinned tools of tests/python/requirements.txt
#   python-build  release wheel into target/wheels/, installed into .venv/ (--force-reinstall)
#   python-test   python-build and the debug `monapi` (for the API fuzzing), then pytest (with the
#                 stub check), mypy --strict, ruff
#   python-demo   examples/quickstart.py with .venv's python (MONAPI_* from the caller)
#   python-bench  bench/python/bench.py against the release-built emulator

CARGO ?= cargo
PYTHON ?= python3
# Cargo's target directory for the wheel's build (the root Makefile sets `target`, shared with
# the other release builds; alone, the fragment keeps its own so as not to wait on the lock).
PY_TARGET_DIR ?= target-py
PY_VENV ?= .venv
PY := $(PY_VENV)/bin/python
PY_REQUIREMENTS := tests/python/requirements.txt
PY_ENV_STAMP := $(PY_VENV)/.monapi-requirements
PY_WHEELS := target/wheels
PY_INSTALLED := $(PY_VENV)/.monapi-installed
# What the wheel is built from: a change rebuilds it for python-demo.
PY_SOURCES := $(shell find bindings-python core/src emulator/src -type f \( -name '*.rs' -o -name '*.py' -o -name '*.pyi' -o -name 'Cargo.toml' \) 2>/dev/null) pyproject.toml Cargo.toml
PY_LINTED := examples/quickstart.py tests/python bench/python bindings-python/python

.PHONY: python-env python-build python-test python-lint python-demo python-bench

python-env: $(PY_ENV_STAMP)

$(PY_ENV_STAMP): $(PY_REQUIREMENTS)
	test -x $(PY) || $(PYTHON) -m venv $(PY_VENV)
	$(PY) -m pip install --quiet --disable-pip-version-check -r $(PY_REQUIREMENTS)
	touch $@

# maturin runs cargo itself (it ignores CARGO) in CARGO_TARGET_DIR.
define py_build_wheel
	rm -f $(PY_WHEELS)/monapi-*.whl
	CARGO_TARGET_DIR=$(PY_TARGET_DIR) $(PY_VENV)/bin/maturin build --release --out $(PY_WHEELS)
	$(PY) -m pip install --quiet --disable-pip-version-check --force-reinstall --no-deps $(PY_WHEELS)/monapi-*.whl
	touch $(PY_INSTALLED)
endef

define py_lint
	$(PY_VENV)/bin/mypy --strict examples/quickstart.py tests/python bindings-python/python/monapi bench/python
	$(PY_VENV)/bin/ruff check $(PY_LINTED)
	$(PY_VENV)/bin/ruff format --check $(PY_LINTED)
endef

python-build: python-env
	$(py_build_wheel)

# The installed wheel, rebuilt only when its sources changed (for python-demo).
$(PY_INSTALLED): $(PY_SOURCES) | $(PY_ENV_STAMP)
	$(py_build_wheel)

python-test: python-build
	# The emulator as `monapi serve`, for the API fuzzing (test_openapi_fuzz.py).
	$(CARGO) build -p monapi-cli --bin monapi
	$(PY) -m pytest tests/python
	$(PY) tests/python/stubcheck.py
	$(py_lint)

python-lint: python-env
	$(py_lint)

python-demo: $(PY_INSTALLED)
	$(PY) examples/quickstart.py

python-bench: python-build
	$(PY) bench/python/bench.py
