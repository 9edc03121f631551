# Two entry points; each creates its own virtual environment on first use.
PY ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed

.PHONY: demo test

$(STAMP): pyproject.toml
	$(PY) -m venv $(VENV)
	$(BIN)/pip install --quiet --upgrade pip
	$(BIN)/pip install --quiet -e '.[test]'
	touch $(STAMP)

demo: $(STAMP)
	$(BIN)/gdl play games/tictactoe.kif --player xplayer=minimax --player oplayer=mcts --play-clock 0.5 --seed 1
	$(BIN)/gdl check games/*.kif
	$(BIN)/gdl solve games/tictactoe.kif

test: $(STAMP)
	$(BIN)/ruff check gdl tests
	$(BIN)/mypy --strict gdl
	$(BIN)/pytest -q
