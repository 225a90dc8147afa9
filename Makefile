# fstheory: every target installs what it needs into .venv first (fresh machine, no other step).
PYTHON ?= python3
VENV   := .venv
PY     := $(VENV)/bin/python
STAMP  := $(VENV)/.installed
DIGITS ?= 30

.PHONY: install test test-fast reproduce-tables verify bench bench-venv reproduce-simulation reproduce-selection reproduce-atlas reproduce-atlas-3d reproduce-atlas-libraries clean references

# Peer libraries for the selector's comparisons live in their own environment, never in
# fstheory's dependencies (scripts/bench_peers.txt). A peer that fails to install is skipped and
# the benchmarks say "peer not installed"; if the environment cannot be built at all they run
# in .venv without peers.
BENCH_VENV  := .venv-bench
BENCH_STAMP := $(BENCH_VENV)/.installed
BENCH_PY     = $$( [ -f $(BENCH_STAMP) ] && echo $(BENCH_VENV)/bin/python || echo $(PY) )

$(STAMP): pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --upgrade pip
	$(PY) -m pip install --quiet -e '.[test]'
	touch $(STAMP)

install: $(STAMP)

# 2 worker processes (CI has 2 cores); tests/conftest.py puts each module, and the modules
# sharing in-process values, in one group (one worker), the longest groups first.
# Bytecode is cached even where PYTHONDONTWRITEBYTECODE is set: without it each worker and each
# console script the tests start compiles the package and rewrites the test modules' asserts
# again (collection 7.8 s of CPU per process instead of 3.7 s).
TEST_ENV := PYTHONDONTWRITEBYTECODE=

test: $(STAMP)
	$(VENV)/bin/ruff check .
	$(TEST_ENV) $(PY) -m pytest tests -n 2 --dist loadgroup --durations=15

# The edit loop: everything but the tests marked slow (under a minute on 2 cores).
test-fast: $(STAMP)
	$(VENV)/bin/ruff check .
	$(TEST_ENV) $(PY) -m pytest tests -n 2 --dist loadgroup -m "not slow" --durations=10

# The tables, then verification.md from the same process's values (as `fstheory verify` would
# write it, without computing them again).
reproduce-tables: $(STAMP)
	$(VENV)/bin/fstheory tables --out reports --digits $(DIGITS) --jobs 2 --verify

verify: $(STAMP)
	$(VENV)/bin/fstheory verify --out reports

reproduce-simulation: $(STAMP)
	$(VENV)/bin/fstheory simulate-study --out reports/simulation --jobs 2

$(BENCH_STAMP): pyproject.toml scripts/bench_peers.txt
	$(PYTHON) -m venv $(BENCH_VENV)
	$(BENCH_VENV)/bin/python -m pip install --quiet --upgrade pip
	$(BENCH_VENV)/bin/python -m pip install --quiet -e .
	grep -v '^#' scripts/bench_peers.txt | while read -r p; do \
	  [ -n "$$p" ] && { $(BENCH_VENV)/bin/python -m pip install --quiet "$$p" >/dev/null 2>&1 \
	    || echo "peer not installed: $$p"; }; done; true
	touch $(BENCH_STAMP)

bench-venv:
	-$(MAKE) $(BENCH_STAMP)

bench: $(STAMP) bench-venv
	BENCH_PYTHON=$(BENCH_PY) $(PY) scripts/bench.py

# The selector's quality on the paper's scenarios next to the peers (reports/selection/).
reproduce-selection: $(STAMP) bench-venv
	$(BENCH_PY) scripts/selection_quality.py --out reports/selection --jobs 2

# Orderings across the parameters (regions, breakpoints to 20 digits, phase maps): reports/atlas/.
reproduce-atlas: $(STAMP)
	$(PY) -m fstheory.atlas.report reports/atlas 2 3d

# The twelve 3-D method rows over k for each scenario (reports/atlas/k3d_*) alone; make
# reproduce-atlas writes them too.
reproduce-atlas-3d: $(STAMP)
	$(PY) -m fstheory.atlas.report reports/atlas 2 3d=uniform,normal,laplace

# The rows of the methods of FEAST and praznik over k (reports/atlas/klib_*) alone.
reproduce-atlas-libraries: $(STAMP)
	$(PY) -m fstheory.atlas.report reports/atlas 2 lib=uniform,normal,laplace

# Regenerate the stored high-precision second-route references (slow; run by hand, commit the JSON).
references: $(STAMP)
	$(PY) scripts/make_references.py

clean:
	rm -rf $(VENV) $(BENCH_VENV) .pytest_cache .hypothesis
