# mailbot: the two commands of the README are `make demo` and `make test`.
SHELL := /bin/bash
PYTHON ?= $(shell command -v python3.11 || command -v python3)
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed

.PHONY: demo test lint typecheck layers pytest system-deps bench clean

# The installer's output goes to a log file, shown only when the install fails: `make demo`
# prints the demo's own lines.
INSTALL_LOG := $(VENV)/install.log

# uv installs the packages (fetched side by side, unpacked in Rust): 10 s on a fresh machine where
# pip took 32 s, the same versions. Where uv cannot be had, pip does it as before.
PIP := $(BIN)/python -m pip install -q --disable-pip-version-check

$(STAMP): pyproject.toml
	@test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	@{ { $(PIP) uv && $(BIN)/uv pip install -q --python $(BIN)/python --upgrade pip -e '.[test]'; } \
	  || { $(PIP) --upgrade pip && $(PIP) -e '.[test]'; }; } >$(INSTALL_LOG) 2>&1 \
	  || { cat $(INSTALL_LOG) >&2; echo "make: installing the packages failed; its log: $(INSTALL_LOG)" >&2; exit 1; }
	@touch $(STAMP)

demo: $(STAMP)
	@$(BIN)/mailbot demo

# The checks run beside the tests, not before them: their 20 s of CPU share the cores with the
# tests instead of holding back the first test (mypy alone is 15 s on one core). A failed check
# still fails `make test`, once the tests are through.
test: $(STAMP) system-deps
	@$(MAKE) --no-print-directory -j 4 lint typecheck layers pytest

system-deps:
	@bash tools/system-deps.sh

lint: $(STAMP)
	$(BIN)/ruff check mailbot tests bench tools
	$(BIN)/ruff format --check mailbot tests bench tools

typecheck: $(STAMP)
	$(BIN)/mypy --strict mailbot

layers: $(STAMP)
	$(BIN)/python tools/check_layers.py

# Two workers a core, at most four (each worker starts its own mail rig): the end-to-end tests
# wait on their servers, subprocesses and deadlines, and the extra workers fill those waits. On
# two cores a third worker took pytest from 8m46s to 7m41s; a fourth kept the cores 97-98 % busy
# instead of 91-93 % (/proc/stat each second) and took 328-343 s instead of 353-374 s, two
# clean clones of each, alternated, for the same CPU. worksteal: the few long end-to-end tests
# do not leave one worker alone at the end.
WORKERS := $(shell $(PYTHON) -c "import os; print(min(4, 2 * (os.cpu_count() or 1)))")
#
# Bytecode is written and kept (a PYTHONDONTWRITEBYTECODE of the caller's is dropped for the run):
# with it set, every test process rewrote and compiled every test module and mailbot module at
# each run (collecting took 10 s a process instead of 3) and so did each `mailbot run` the
# end-to-end tests start. A second run of a clone took 25 s less CPU (8m15s against 8m40s), in
# the same time. compileall writes the moderator's once before the processes start side by side,
# and one collection writes the test modules' (pytest rewrites their asserts, which compileall
# cannot do): on a fresh clone each of the four workers rewrote all of them at once, 10 s of CPU
# a worker where a warm collection takes 4. (A module that cannot be collected is said by the run.)
pytest: $(STAMP)
	@env -u PYTHONDONTWRITEBYTECODE $(BIN)/python -m compileall -q -j 0 mailbot
	@env -u PYTHONDONTWRITEBYTECODE $(BIN)/python -m pytest -q --collect-only -p no:cacheprovider >/dev/null 2>&1 || true
	env -u PYTHONDONTWRITEBYTECODE $(BIN)/python -m pytest -q -W error -n $(WORKERS) --dist worksteal

bench: $(STAMP) system-deps
	$(BIN)/python bench/intake.py

clean:
	rm -rf $(VENV) .mypy_cache .ruff_cache .pytest_cache
