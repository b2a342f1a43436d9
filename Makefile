PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed

.PHONY: demo test lint docs bench bench-mix bench-live bench-shards bench-snapshot bench-deadlock bench-routes conformance clean

$(STAMP): pyproject.toml
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -e '.[dev]'
	touch $(STAMP)

demo: $(STAMP)
	@# Exit 1 means "findings": the point of the demo, not a failure of make.
	$(BIN)/python -m netcfg demo inventories/lab || test $$? -eq 1

# Two test processes a core: many tests wait on SSH sessions, daemons, deadlines and a browser, and
# one a core left a third of the CPU idle (make test went from about 4 to 3 minutes on 2 cores).
# At most 16: each holds a Chromium, an SSH lab or a Slurm, and memory, not cores, runs out first.
TEST_WORKERS ?= $(shell n=$$(( $$(nproc) * 2 )); echo $$(( n > 16 ? 16 : n )))

# Bytecode is written even where the environment says not to (PYTHONDONTWRITEBYTECODE): without it
# every netcfg command a test starts compiles netcfg again, and every worker rewrites the asserts of
# every test module again (on a loaded 2-core machine pytest took 476 s without, 411 s with).
test: $(STAMP)
	$(BIN)/ruff check netcfg tests bench
	$(BIN)/ruff format --check netcfg tests bench
	env -u PYTHONDONTWRITEBYTECODE $(BIN)/python -m pytest -n $(TEST_WORKERS)

lint: $(STAMP)
	$(BIN)/ruff check netcfg tests bench
	$(BIN)/ruff format --check netcfg tests bench

DOCS_STAMP := $(VENV)/.installed-docs

$(DOCS_STAMP): $(STAMP)
	$(BIN)/python -m pip install --quiet -e '.[docs]'
	touch $(DOCS_STAMP)

# The MkDocs site in site/ (gitignored). Strict: a broken link, a missing page or a rule without
# its reference entry fails the build. Nothing is fetched at build time.
docs: $(DOCS_STAMP)
	NO_MKDOCS_2_WARNING=1 PYTHONDONTWRITEBYTECODE=1 $(BIN)/python -m mkdocs build --strict --site-dir site

bench: $(STAMP)
	$(BIN)/python bench/offline.py

bench-deadlock: $(STAMP)
	$(BIN)/python bench/deadlock.py
	$(BIN)/python bench/deadlock.py --fabric valleys

bench-routes: $(STAMP)
	$(BIN)/python bench/routes.py

bench-mix: $(STAMP)
	$(BIN)/python bench/offline.py --mix

bench-live: $(STAMP)
	$(BIN)/python bench/live.py

bench-shards: $(STAMP)
	$(BIN)/python bench/shards.py

bench-snapshot: $(STAMP)
	$(BIN)/python bench/snapshot.py --floor

conformance: $(STAMP)
	@test -d ../shared/corpus || { echo "no ../shared/corpus here: conformance not run"; exit 0; }; \
	NETCFG_CONFORMANCE=1 $(BIN)/python -m pytest tests/conformance -q

clean:
	rm -rf $(VENV) out snapshots reports site
