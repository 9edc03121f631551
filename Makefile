# Two entry points; each creates its own virtual environment on first use.
PY ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed

.PHONY: demo test lint

$(STAMP): pyproject.toml
	$(PY) -m venv $(VENV)
	$(BIN)/pip install --quiet --upgrade pip
	$(BIN)/pip install --quiet -e '.[test]'
	touch $(STAMP)

demo: $(STAMP)
	$(BIN)/gdl check games/*.kif

test: $(STAMP)
	$(BIN)/ruff check gdl tests
	$(BIN)/mypy --strict gdl
	$(BIN)/pytest -q
