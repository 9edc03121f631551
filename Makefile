# Two entry points; each creates its own virtual environment on first use. The demo needs only the
# runtime dependencies; the tests add their tools and the optional extras they exercise.
PY ?= python3
VENV := .venv
BIN := $(VENV)/bin
RUNTIME := $(VENV)/.runtime
STAMP := $(VENV)/.installed

.PHONY: demo test browser

$(RUNTIME): pyproject.toml
	$(PY) -m venv $(VENV)
	$(BIN)/pip install --quiet --upgrade pip
	$(BIN)/pip install --quiet -e .
	$(BIN)/python -c 'from gdl.engines.warm import warm_up; warm_up()'  # numba compiles the kernels now
	$(BIN)/python -c 'from gdl.retrograde import warm_up; warm_up()'
	touch $(RUNTIME)

$(STAMP): $(RUNTIME)
	$(BIN)/pip install --quiet -e '.[test,cluster,env]'
	touch $(STAMP)

demo: $(RUNTIME)
	$(BIN)/gdl play games/tictactoe.kif --player xplayer=minimax --player oplayer=mcts --play-clock 0.5 --seed 1
	$(BIN)/gdl check games/*.kif
	$(BIN)/gdl solve games/tictactoe.kif

test: $(STAMP) browser
	$(BIN)/ruff check gdl tests
	$(BIN)/mypy --strict gdl
	$(BIN)/pytest -q

# The viewer's browser tests drive headless Chromium: Debian's chromium and chromium-driver (as root in
# CI; through sudo elsewhere).
browser:
	@command -v chromium >/dev/null && command -v chromedriver >/dev/null || { \
	  SUDO=$$( [ "$$(id -u)" = 0 ] || echo sudo ); \
	  $$SUDO apt-get update && $$SUDO env DEBIAN_FRONTEND=noninteractive apt-get install -y chromium chromium-driver; }
