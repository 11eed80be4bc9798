# Two commands from a fresh clone: `make site` and `make test`.
# Each creates the project virtual environment (.venv) and node_modules on its own.
PYTHON ?= python3
VENV := .venv
PY := $(VENV)/bin/python
WHEELS := $(wildcard /opt/wheels)
PIP_FLAGS := $(if $(WHEELS),--find-links $(WHEELS),)
PORT ?= 8000

.PHONY: all deps site notebooks serve check test format mutate train train-resume trace-check bench clean

all: site

$(VENV)/.installed: pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet $(PIP_FLAGS) -e .
	touch $@

# what `make test` needs besides the runtime: pytest, Playwright, Selenium, ruff
$(VENV)/.installed-dev: $(VENV)/.installed
	$(PY) -m pip install --quiet $(PIP_FLAGS) -e ".[dev]"
	touch $@

node_modules/.installed: package.json package-lock.json
	npm ci --no-audit --no-fund --ignore-scripts
	touch $@

deps: $(VENV)/.installed node_modules/.installed

# data -> models -> export -> experiments -> tables -> notebooks -> site -> build/site, by the
# build runner (common/runner.py, stages in common/stages.py): each stage runs only when the
# content hashes of its inputs or code changed since its last success
site: deps
	$(PY) -m common.runner

# the companion notebooks (notebooks/*.py), executed again even when unchanged
# (`make site` re-executes only those whose source, tables read or code changed)
notebooks: deps
	$(PY) -m common.runner --force notebooks

# make serve PORT=8001 to use another port; reruns the stale stages when their inputs change
serve: site
	$(PY) -m site_builder.serve --port $(PORT)

# the fast tier (at most 3 minutes on 2 cores once the site is built): lint and format
# checks, then every test that needs no browser, no training and no full build
# (markers in pyproject.toml, given by tests/conftest.py)
FAST := not browser and not engines and not training and not build
check: site $(VENV)/.installed-dev
	$(PY) -m ruff check .
	$(PY) -m ruff format --check .
	npx --no-install eslint .
	$(PY) -m pytest -q -m "$(FAST)"

# lint and format checks first (seconds), then the whole suite, with its 25 slowest tests
test: site $(VENV)/.installed-dev
	$(PY) -m ruff check .
	$(PY) -m ruff format --check .
	npx --no-install eslint .
	$(PY) -m pytest -q --durations=25

# rewrite the Python files in the project's format and fix what ruff can fix
format: $(VENV)/.installed-dev
	$(PY) -m ruff format .
	$(PY) -m ruff check --fix .

# mutation testing of the pure code (slow, not part of `make test`): mutmut and
# Stryker; prints a mutation score per module and the surviving mutants
mutate: deps
	$(PY) -m pip install --quiet $(PIP_FLAGS) -e ".[mutate]"
	$(PY) tests/mutate.py

# all nine runs on fixed CPU code paths and 1 thread (models/numerics.py), so that a rerun
# gives the committed seed-11 checkpoints and models/training_trace.json bit for bit
# (README: "Reproducing the training")
train: deps
	$(PY) -m models.train --profile course --fresh

train-resume: deps
	$(PY) -m models.train --profile course

# a minute or so: retrain the first 100 updates of attn1 and compare every point with
# models/training_trace.json (`make test` runs it too, in tests/test_trace_replay.py)
trace-check: deps
	$(PY) -m models.trace_check

# measures the built site, then the runner reruns what reads bench/bench.json (the tables) and what follows
bench: site
	$(PY) -m bench
	$(PY) -m common.runner

clean:
	rm -rf build
