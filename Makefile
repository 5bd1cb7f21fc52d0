# The two commands a newcomer runs: `make site` and `make test`. Each creates .venv when it is
# missing or older than pyproject.toml and installs the project with its test extras into it.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed
VENDOR := kbtool/render/vendor
MERMAID := $(VENDOR)/mermaid.min.js

.PHONY: site test check lint bench clean vendor dist screenshots

$(STAMP): pyproject.toml package.json package-lock.json
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -e '.[test]'
	$(MAKE) --no-print-directory vendor
	touch $(STAMP)

# Mermaid (for diagrams) and the CommonMark spec (for the tests), pinned by version and
# integrity hash in package-lock.json. Mermaid's one-file build is copied into the package
# (git-ignored), and from there into the wheel. Without npm the site shows diagram sources.
vendor:
	@if command -v npm >/dev/null 2>&1; then \
	  npm ci --ignore-scripts --no-audit --no-fund --loglevel=error && \
	  mkdir -p $(VENDOR) && cp node_modules/mermaid/dist/mermaid.min.js $(MERMAID) && \
	  cp node_modules/mermaid/LICENSE $(VENDOR)/mermaid.LICENSE.txt; \
	else echo "npm not found: diagrams will show as their source (KB510)"; fi

site: $(STAMP)
	$(BIN)/kbtool build

test: $(STAMP)
	$(BIN)/python -m pytest -n auto

lint: $(STAMP)
	$(BIN)/ruff format --check kbtool tests benchmarks scripts
	$(BIN)/ruff check kbtool tests benchmarks scripts
	$(BIN)/mypy

# An sdist and a wheel in dist/, both with Mermaid: a kbtool installed from them (pipx, uv tool
# install, pip) draws diagrams on a machine without npm. The wheel is built from the sdist.
dist: $(STAMP)
	@test -f $(MERMAID) || { echo "$(MERMAID) is missing: install npm, then run make vendor"; exit 1; }
	rm -rf dist
	$(BIN)/python -m build --outdir dist .

# The README's pictures of the bundled site (docs/images/), taken with Debian's chromium.
screenshots: $(STAMP)
	$(BIN)/python scripts/screenshots.py

check: $(STAMP)
	$(BIN)/kbtool check

bench: $(STAMP)
	$(BIN)/python -m pip install --quiet -e '.[bench]'
	$(BIN)/python benchmarks/bench_check.py

clean:
	rm -rf $(VENV) site .kbtool node_modules $(VENDOR) dist build
