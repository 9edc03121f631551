# Two entry points; each creates its own virtual environment on first use. The demo needs only the
# runtime dependencies; the tests add their tools and the optional extras they exercise.
PY ?= python3
VENV := .venv
BIN := $(VENV)/bin
RUNTIME := $(VENV)/.runtime
STAMP := $(VENV)/.installed

.PHONY: demo test test-all system-packages
# CI also runs the day's slice of the slow tests (1 of 28, by date), at most this many seconds of them in
# each of the two pytest workers: .ci/run sets it; `make test SLOW_SAMPLE=120` does the same here.
SLOW_SAMPLE ?=

$(RUNTIME): pyproject.toml
	$(PY) -m venv $(VENV)
	$(BIN)/pip install --quiet --upgrade pip
	$(BIN)/pip install --quiet -e .
	$(BIN)/python -c 'from gdl.engines.warm import warm_up; warm_up()'  # numba compiles the kernels now
	@# The search's kernels and the playouts' take minutes each: they compile side by side, the others after
	@# the playouts'; then every kernel loads from the cache once, as the player server's workers will.
	$(BIN)/python -c 'from gdl.players.uct.warm import warm_up_playouts; warm_up_playouts()' && \
	$(BIN)/python -c 'from gdl.retrograde_values import warm_up; warm_up()' && \
	$(BIN)/python -c 'from gdl.extensive.warm import warm_up; warm_up()' && \
	$(BIN)/python -c 'from gdl.players.puzzles import warm_up; warm_up()' & others=$$!; \
	$(BIN)/python -c 'from gdl.players.uct.warm import warm_up_search; warm_up_search()' || { kill $$others; exit 1; }; \
	wait $$others
	$(BIN)/python -c 'from gdl.players.uct import warm_up; warm_up()'
	touch $(RUNTIME)

$(STAMP): $(RUNTIME)
	$(BIN)/pip install --quiet -e '.[test,cluster,env]'
	touch $(STAMP)

demo: $(RUNTIME)
	$(BIN)/gdl play games/tictactoe.kif --player xplayer=minimax --player oplayer=mcts --play-clock 0.5 --seed 1
	$(BIN)/gdl check games/*.kif
	$(BIN)/gdl solve games/tictactoe.kif

test: $(STAMP) system-packages
	$(BIN)/ruff check gdl tests
	$(BIN)/mypy --strict gdl
	$(BIN)/pytest -q --durations=20 $(if $(SLOW_SAMPLE),--slow-sample=$(SLOW_SAMPLE))

# Every test, the slow ones too (hours on two cores: the corpus-wide oracle walks).
test-all: $(STAMP) system-packages
	$(BIN)/ruff check gdl tests
	$(BIN)/mypy --strict gdl
	$(BIN)/pytest -q -m "slow or not slow"

# Debian packages the tests drive: headless Chromium for the viewer's browser tests, SWI-Prolog as the
# reference of the Prolog translation (as root in CI; through sudo elsewhere).
system-packages:
	@command -v chromium >/dev/null && command -v chromedriver >/dev/null && command -v swipl >/dev/null || { \
	  SUDO=$$( [ "$$(id -u)" = 0 ] || echo sudo ); \
	  $$SUDO apt-get update && \
	  $$SUDO env DEBIAN_FRONTEND=noninteractive apt-get install -y chromium chromium-driver swi-prolog-nox; }
