# The documentation site (mkdocs.yml): its pages are docs/; every sample on them is a named
# region of a file that a suite runs (tests/python/test_docs.py, tests/node/docs.test.mjs).

.PHONY: docs

## docs: the documentation site into target/docs/ (mkdocs-material from .venv/, --strict: a broken
## link, anchor or included sample fails the build). First the TypeScript reference: TypeDoc's
## Markdown (bindings-node/typedoc.json) into docs/reference/typescript/, generated on every build
## and not committed; an export without documentation, or any other warning, fails it. Then the
## crates' rustdoc into target/doc/, which scripts/mkdocs_rustdoc.py puts under reference/rust/api/.
docs: python-env node-env
	$(RUSTDOC)
	$(NODE) node_modules/typedoc/bin/typedoc --options bindings-node/typedoc.json
	NO_MKDOCS_2_WARNING=1 $(PY_VENV)/bin/mkdocs build --strict --quiet
	@echo "the site: $(abspath target/docs)/index.html"
