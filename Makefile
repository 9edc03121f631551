# Two entry points; each creates its own virtual environment on first use. The demo needs only the
# runtime dependencies; the tests add their tools and the optional extras they exercise.
PY ?= python3
VENV := .venv
BIN := $(VENV)/bin
RUNTIME := $(VENV)/.runtime
STAMP := $(VENV)/.installed

.PHONY: demo test test-all
# CI also runs the day's slice of the slow tests (1 of 28, by date), at most this many seconds of them in
# each of the two pytest workers: .ci/run sets it; `make test SLOW_SAMPLE=240` does the same here.
SLOW_SAMPLE ?=

$(RUNTIME): pyproject.toml
	$(PY) -m venv $(VENV)
	$(BIN)/pip install --quiet --upgrade pip
	$(BIN)/pip install --quiet -e .
	$(BIN)/python -c 'from gdl.engines.warm import warm_up; warm_up()'  # numba compiles the kernel now
	touch $(RUNTIME)

$(STAMP): $(RUNTIME)
	$(BIN)/pip install --quiet -e '.[test,cluster,env]'
	command -v swipl >/dev/null || apt-get install -y -q swi-prolog-nox  # the tests' Prolog reference
	touch $(STAMP)

demo: $(RUNTIME)
	$(BIN)/gdl play games/tictactoe.kif --player xplayer=minimax --player oplayer=mcts --play-clock 0.5 --seed 1
	$(BIN)/gdl check games/*.kif
	$(BIN)/gdl solve games/tictactoe.kif

test: $(STAMP)
	$(BIN)/ruff check gdl tests
	$(BIN)/mypy --strict gdl
	$(BIN)/pytest -q $(if $(SLOW_SAMPLE),--slow-sample=$(SLOW_SAMPLE))

# Every test, the slow ones too (hours on two cores: the corpus-wide oracle walks).
test-all: $(STAMP)
	$(BIN)/ruff check gdl tests
	$(BIN)/mypy --strict gdl
	$(BIN)/pytest -q -m "slow or not slow"
