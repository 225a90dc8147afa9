# fstheory: every target installs what it needs into .venv first (fresh machine, no other step).
PYTHON ?= python3
VENV   := .venv
PY     := $(VENV)/bin/python
STAMP  := $(VENV)/.installed
DIGITS ?= 30

.PHONY: install test reproduce-tables verify bench reproduce-simulation reproduce-atlas clean references

$(STAMP): pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --upgrade pip
	$(PY) -m pip install --quiet -e '.[test]'
	touch $(STAMP)

install: $(STAMP)

test: $(STAMP)
	$(PY) -m pytest tests

reproduce-tables: $(STAMP)
	$(VENV)/bin/fstheory tables --out reports --digits $(DIGITS)
	$(VENV)/bin/fstheory verify --out reports

verify: $(STAMP)
	$(VENV)/bin/fstheory verify --out reports

reproduce-simulation: $(STAMP)
	$(VENV)/bin/fstheory simulate-study --out reports/simulation --jobs 2

# Orderings across the parameters (regions, breakpoints to 20 digits, phase maps): reports/atlas/.
reproduce-atlas: $(STAMP)
	$(PY) -m fstheory.orderings.atlas_report reports/atlas 2

bench: $(STAMP)
	$(PY) scripts/bench.py

# Regenerate the stored high-precision second-route references (slow; run by hand, commit the JSON).
references: $(STAMP)
	$(PY) scripts/make_references.py

clean:
	rm -rf $(VENV) .pytest_cache .hypothesis
