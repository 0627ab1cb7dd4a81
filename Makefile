# Two commands a newcomer needs:  `make app`  and  `make test`.
# Both create .venv and install what they need on first use.
PYTHON ?= python3
VENV := .venv
PY := $(VENV)/bin/python

.PHONY: app test lint bench install install-dev browser clean

# --no-compile: pip would byte-compile every module of every package (torch's thousands among them), 40 of the 70 s
# an install took here; Python compiles a module the first time it is imported instead, and `make test` keeps what it
# compiles (see test: below), so only what the app and the tests import is ever compiled.
PIP_INSTALL := $(PY) -m pip install --quiet --no-compile

$(VENV)/.installed: requirements.txt
	$(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --upgrade pip
	$(PIP_INSTALL) -r requirements.txt
	touch $@

$(VENV)/.installed-dev: $(VENV)/.installed requirements-dev.txt
	$(PIP_INSTALL) -r requirements-dev.txt
	touch $@

install: $(VENV)/.installed
install-dev: $(VENV)/.installed-dev

## Start the app on the built-in "sweet pastry" sample (keeping what Python compiles, as for test: below).
app: install
	env -u PYTHONDONTWRITEBYTECODE $(PY) -m streamlit run app.py

## Run the whole test suite: unit, differential, conformance, AppTest and real-browser tests (without chromium,
## which only root can install, the browser tests are skipped and pytest's summary says so in one line).
## Any status but 0 fails, 5 (no test collected) included: a suite that runs nothing is not a green one.
## Four pytest-xdist workers: on 2 cores two left the CPU idle half the time (browser tests wait on the app and
## Chromium), so four finish sooner; the tests wait for state, never for time, so the extra load is safe.
## --dist worksteal: a worker that runs out of tests takes half of the tests still queued at the busiest one. The
## default (load) queues chunks of up to a few hundred tests at each worker, which no other worker can take, so the
## end of a run can wait on one worker's queue of slow tests (browser, subprocess and ranx ones) while the others idle.
## Compiled modules are cached (__pycache__, ignored by git) even where PYTHONDONTWRITEBYTECODE is set, as on this
## project's CI image: without the cache each worker compiled and assertion-rewrote every test module again (15 s of
## collection per worker, 6 s with it), and every subprocess a test starts compiled the package again.
test: install-dev browser
	env -u PYTHONDONTWRITEBYTECODE $(PY) -m pytest -n 4 --dist worksteal

## ruff over the whole tree, with the rules in pyproject.toml; .ci/run runs it before the tests.
lint: install-dev
	$(VENV)/bin/ruff check .

## Debian's Chromium for the browser tests (never a downloaded browser). Installing it needs root (as on CI); without
## root nothing is installed, and pytest skips the browser tests with one line saying how to run them.
browser:
	@command -v chromium >/dev/null 2>&1 || [ "$$(id -u)" != 0 ] || { \
	  echo "Installing Debian's chromium for the browser tests"; \
	  apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium >/dev/null; }

bench: install-dev
	$(PY) bench/run_all.py

clean:
	rm -rf $(VENV) .pytest_cache bench/data bench/out
