# Two commands for a fresh Linux machine (Python >= 3.11 with venv):
#   make run    set up .venv and start the main job
#   make test   set up .venv (and Chromium for the browser tests) and run every test
# and the gate to run before each commit:
#   make check  lint, types, the layering and the fast tier of the tests, in under two minutes
PYTHON ?= python3
VENV ?= .venv
BIN := $(VENV)/bin

.PHONY: run test check lint typecheck setup clean

run: $(VENV)/.installed
	$(BIN)/boardlab serve

test: $(VENV)/.installed
	@# browser tests drive Debian's Chromium; install it once (as root, or through sudo)
	command -v chromium >/dev/null || { SUDO=$$([ "$$(id -u)" = 0 ] || echo sudo); \
		$$SUDO apt-get update -qq && $$SUDO apt-get install -y -qq --no-install-recommends chromium; }
	$(BIN)/python -m pytest -n 2 -q

# the fast tier leaves out the tests marked slow (whole games, training, the arena, the web app
# end to end: tests/conftest.py lists them) and the browser tests; tests/test_layers.py is in it
check: lint typecheck
	$(BIN)/python -m pytest -m "not slow and not browser" -n 2 -q

# the static gate's lint and type check: their settings are in pyproject.toml ([tool.ruff], [tool.mypy])
lint: $(VENV)/.installed
	$(BIN)/ruff check

typecheck: $(VENV)/.installed
	$(BIN)/mypy

setup: $(VENV)/.installed

# torch is pinned first: its CPU build is what the project is tested with, and
# installing it alone keeps a later resolver from choosing a newer GPU build.
$(VENV)/.installed: pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet torch==2.13.0
	$(BIN)/python -m pip install --quiet -e '.[dev]'
	touch $@

clean:
	rm -rf $(VENV) .pytest_cache .hypothesis
