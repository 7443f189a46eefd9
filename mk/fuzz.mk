# The fuzz targets of the core's decoders (fuzz/: a crate and workspace of its own, built into
# fuzz/target with cargo-fuzz and libFuzzer; each target's body is a function of
# `monapi::fuzz`). Included from the root Makefile. make test runs their short form without
# libFuzzer: core/tests/it/fuzz.rs feeds the same functions the seeds and seeded mutations of
# them, in the test build (a sanitizer build of the dependency tree costs minutes more).
#
#   fuzz-env     cargo-fuzz, installed with cargo when it is missing
#   fuzz-smoke   builds every target, then runs each for FUZZ_SMOKE_SECONDS (20 s) from its seeds
#                (fuzz/seeds/<target>, committed) and what earlier runs kept (fuzz/corpus/<target>);
#                fails on any crash, whose input libFuzzer writes to fuzz/artifacts/<target>/
#   fuzz-run     one target (FUZZ_TARGET) for FUZZ_SECONDS (600 s), on one core, niced
#
# cargo-fuzz needs a nightly compiler for -Zsanitizer; RUSTC_BOOTSTRAP=1 lets the stable one take
# the nightly flags. The targets build with debug assertions: an overflow panics, as in the tests.

SHELL := bash
.SHELLFLAGS := -eu -o pipefail -c
CARGO ?= cargo
CARGO_FUZZ_VERSION ?= 0.13.2
FUZZ_TARGETS := answers tables arriving store
FUZZ_SMOKE_SECONDS ?= 20
FUZZ_SECONDS ?= 600
FUZZ_TARGET ?= answers
FUZZ := cd fuzz && RUSTC_BOOTSTRAP=1 CARGO_TARGET_DIR=target $(FUZZ_NICE) $(CARGO) fuzz
# fuzz-run leaves the other core to everyone else.
FUZZ_NICE :=
FUZZ_FLAGS := --debug-assertions

.PHONY: fuzz-env fuzz-build fuzz-smoke fuzz-run

fuzz-env:
	$(CARGO) fuzz --version >/dev/null 2>&1 || $(CARGO) install cargo-fuzz --locked --version $(CARGO_FUZZ_VERSION)

fuzz-build: fuzz-env
	$(FUZZ) build $(FUZZ_FLAGS)

fuzz-smoke: fuzz-build
	for target in $(FUZZ_TARGETS); do \
	  mkdir -p fuzz/corpus/$$target; \
	  $(FUZZ) run $(FUZZ_FLAGS) $$target corpus/$$target seeds/$$target -- \
	    -max_total_time=$(FUZZ_SMOKE_SECONDS) -print_final_stats=1; \
	done

fuzz-run: FUZZ_NICE := nice -n 10
fuzz-run: fuzz-build
	mkdir -p fuzz/corpus/$(FUZZ_TARGET)
	$(FUZZ) run $(FUZZ_FLAGS) $(FUZZ_TARGET) corpus/$(FUZZ_TARGET) seeds/$(FUZZ_TARGET) -- \
	  -max_total_time=$(FUZZ_SECONDS) -print_final_stats=1
