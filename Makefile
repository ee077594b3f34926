# The two commands: `make` sets up Python and builds site/ from content/ (no npm, Java or Chromium);
# `make test` also installs what the tests need and runs the whole suite.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
NODE_MODULES := tests/js/node_modules

.DEFAULT_GOAL := all
.PHONY: all setup test-setup site test test-oldest golden screenshots clean

all: site  ## set up, then build the bundled catalog into site/

setup: $(VENV)/.installed  ## the Python packages a build needs, in .venv

test-setup: setup $(VENV)/.test-installed $(NODE_MODULES)/.installed  ## pytest, Playwright, the Nu Html Checker, Debian chromium
	@scripts/install-chromium.sh

$(VENV)/.installed: pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --disable-pip-version-check -e .
	@touch $@

$(VENV)/.test-installed: $(VENV)/.installed
	$(BIN)/python -m pip install --quiet --disable-pip-version-check -e '.[test]'
	@touch $@

# The Nu Html Checker (vnu.jar) for tests/test_html_valid.py, pinned in tests/js/package-lock.json.
# --ignore-scripts: its postinstall only fetches a Java runtime when none is found; the test runs
# the system's java itself.
$(NODE_MODULES)/.installed: tests/js/package-lock.json
	@command -v npm >/dev/null || { echo "papercat: the tests need npm (Node 18+) for the Nu Html Checker: apt-get install npm" >&2; exit 1; }
	npm ci --prefix tests/js --no-audit --no-fund --ignore-scripts
	@touch $@

site: setup
	$(BIN)/python build.py build

test: test-setup  ## the whole suite: parser, pages, golden site, HTTP crawl, headless Chromium
	@$(BIN)/python -m pytest $(PYTEST_ARGS); rc=$$?; \
	if [ $$rc -eq 5 ]; then echo "pytest collected no tests: the test suite is missing" >&2; fi; \
	exit $$rc

# The oldest Python that pyproject.toml's requires-python claims, in a venv of its own: the suite
# but for the browser tests (the same on every Python). CI runs it after `make test`.
OLDEST := 3.10
# (pyenv's shims answer for every version but run only the selected one: each candidate is tried.)
OLDEST_PYTHON ?= $(shell for p in $(wildcard $(HOME)/.pyenv/versions/$(OLDEST).*/bin/python$(OLDEST)) python$(OLDEST); do \
	$$p -c '' 2>/dev/null && { echo $$p; break; }; done)
OLDEST_VENV := .venv-$(OLDEST)

test-oldest:  ## the suite but the browser tests, on Python 3.10
	@test -n "$(OLDEST_PYTHON)" || { echo "papercat: python$(OLDEST) not found (set OLDEST_PYTHON=/path/to/python$(OLDEST))" >&2; exit 1; }
	$(OLDEST_PYTHON) -m venv $(OLDEST_VENV)
	$(OLDEST_VENV)/bin/python -m pip install --quiet --disable-pip-version-check -e '.[test]'
	@$(OLDEST_VENV)/bin/python -m pytest -m "not browser" $(PYTEST_ARGS); rc=$$?; \
	if [ $$rc -eq 5 ]; then echo "pytest collected no tests: the test suite is missing" >&2; fi; \
	exit $$rc

golden: setup  ## refresh tests/golden/site after an intended change to the output
	$(BIN)/python build.py build --out tests/golden/site --base-url https://example.org/catalog/

screenshots: test-setup site  ## docs/screenshots/*.png from site/ in headless Chromium
	$(BIN)/python scripts/screenshots.py --site site --out docs/screenshots

clean:
	rm -rf site $(VENV) $(OLDEST_VENV) .pytest_cache .papercat-cache $(NODE_MODULES)
