# The two commands a newcomer runs: `make site` and `make test`. Each creates .venv when it is
# missing or older than pyproject.toml and installs the project with its test extras into it.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed

.PHONY: site test check lint bench clean

$(STAMP): pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -e '.[test]'
	touch $(STAMP)

site: $(STAMP)
	$(BIN)/kbtool build

test: $(STAMP)
	$(BIN)/python -m pytest -n auto

lint: $(STAMP)
	$(BIN)/ruff format --check kbtool tests benchmarks
	$(BIN)/ruff check kbtool tests benchmarks
	$(BIN)/mypy

check: $(STAMP)
	$(BIN)/kbtool check

bench: $(STAMP)
	$(BIN)/python -m pip install --quiet -e '.[bench]'
	$(BIN)/python benchmarks/bench_check.py

clean:
	rm -rf $(VENV) site .kbtool
