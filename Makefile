# The two commands: `make` sets everything up and builds site/; `make test` runs every test.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
NODE_MODULES := tests/js/node_modules

.DEFAULT_GOAL := all
.PHONY: all setup site test golden screenshots clean

all: site  ## set up, then build the bundled catalog into site/

setup: $(VENV)/.installed $(NODE_MODULES)/.installed  ## Python packages in .venv, the Nu Html Checker, Debian chromium
	@scripts/install-chromium.sh

$(VENV)/.installed: pyproject.toml
	$(PYTHON) -m venv $(VENV)
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

test: setup  ## the whole suite: parser, pages, golden site, HTTP crawl, headless Chromium
	@$(BIN)/python -m pytest $(PYTEST_ARGS); rc=$$?; \
	if [ $$rc -eq 5 ]; then echo "pytest collected no tests: the test suite is missing" >&2; fi; \
	exit $$rc

golden: setup  ## refresh tests/golden/site after an intended change to the output
	$(BIN)/python build.py build --out tests/golden/site --base-url https://example.org/catalog/

screenshots: site  ## docs/screenshots/*.png from site/ in headless Chromium
	$(BIN)/python scripts/screenshots.py --site site --out docs/screenshots

clean:
	rm -rf site $(VENV) .pytest_cache .papercat-cache $(NODE_MODULES)
