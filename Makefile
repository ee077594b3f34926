# The two commands: `make` sets everything up and builds site/; `make test` runs every test.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin

.DEFAULT_GOAL := all
.PHONY: all setup site test golden screenshots clean

all: site  ## set up, then build the bundled catalog into site/

setup: $(VENV)/.installed  ## Python packages in .venv and Debian chromium for the browser tests
	@scripts/install-chromium.sh

$(VENV)/.installed: pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --disable-pip-version-check -e '.[test]'
	@touch $@

site: setup
	$(BIN)/python build.py build

test: setup  ## the whole suite: parser, pages, golden site, HTTP crawl, headless Chromium
	@$(BIN)/python -m pytest $(PYTEST_ARGS); rc=$$?; \
	if [ $$rc -eq 5 ]; then echo "pytest collected no tests: the test suite is missing" >&2; fi; \
	exit $$rc

golden: setup  ## refresh tests/golden/site after an intended change to the output
	$(BIN)/python build.py build --out tests/golden/site

screenshots: site  ## docs/screenshots/*.png from site/ in headless Chromium
	$(BIN)/python scripts/screenshots.py --site site --out docs/screenshots

clean:
	rm -rf site $(VENV) .pytest_cache
