# README's two commands: `make test` and `make book`. Both create .venv when it is missing and
# (re)install only when the lock or pyproject.toml changed since the last install. The environment
# comes from the exact, hashed lock requirements/lock.txt; `make lock` regenerates it from
# pyproject.toml. Both use uv, pinned, in a tool venv of its own under _build/: it installs the
# same files as pip, each checked against its hash, in 30 s where pip took 100 s on two cores
# (tensorflow alone is 1.9 GB unpacked). `make install INSTALLER=pip` installs with pip from the
# start, for a machine whose package index only pip is configured for.
PYTHON ?= python3
VENV   := .venv
BIN    := $(VENV)/bin
STAMP  := $(VENV)/.install-stamp
LOCK   := requirements/lock.txt
UV_VERSION := 0.13.9
UV_TOOLS   := _build/uv-tools
UV         := $(UV_TOOLS)/bin/uv
INSTALLER  ?= uv
JOBS   ?= 2
# pytest workers (pytest-xdist) for `make test`: the longest test, the quick book from a bare copy,
# runs on one while the other takes the rest
TEST_JOBS ?= 2
SHELL  := /bin/bash
# Runs a command and records its wall time and peak memory in _build/timings/NAME.json (exit status
# kept). Run by path, not with -m: it must work even when the svmcert package does not import.
TIMED  := $(BIN)/python lib/svmcert/book/timed.py

# Tests of the rendered book (headless Chromium screenshots, link check): they need _build/html,
# so `make test` leaves them out and `make browser-test` runs them after `make book`.
BOOK_TESTS := tests/test_browser.py tests/test_links.py

.PHONY: install uv-install pip-install lock test book run build check browser-test pdf clean

install: $(STAMP)

$(BIN)/python:
	$(PYTHON) -m venv $(VENV)

# Every package at the version and with the hashes of the lock; then the project itself, without
# dependencies (they are all in the lock) and without build isolation (setuptools is in the lock).
# With uv, bytecode is compiled at install time as pip does, so that the first imports of the tests
# and chapters do not compile it (in parallel, on both cores). Where uv cannot be installed or
# fails, the install says so and goes on with pip.
$(STAMP): $(LOCK) pyproject.toml | $(BIN)/python
ifeq ($(INSTALLER),uv)
	@$(MAKE) --no-print-directory uv-install || { echo "make: the install with uv failed; installing with pip instead" >&2; \
	  $(MAKE) --no-print-directory pip-install; }
else ifeq ($(INSTALLER),pip)
	@$(MAKE) --no-print-directory pip-install
else
	$(error INSTALLER must be uv or pip, not '$(INSTALLER)')
endif
	$(BIN)/python -m pip check
	touch $(STAMP)

uv-install: $(UV) | $(BIN)/python
	$(UV) pip install --quiet --python $(BIN)/python --require-hashes --no-deps --compile-bytecode -r $(LOCK)
	$(UV) pip install --quiet --python $(BIN)/python --no-deps --no-build-isolation -e .

pip-install: | $(BIN)/python
	set -o pipefail; $(BIN)/python -m pip install --quiet --require-hashes --no-deps -r $(LOCK) 2>&1 | { grep -v "is ignored: it is neither a file nor a directory" || true; }
	set -o pipefail; $(BIN)/python -m pip install --quiet --no-deps --no-build-isolation -e . 2>&1 | { grep -v "is ignored: it is neither a file nor a directory" || true; }

$(UV):
	$(PYTHON) -m venv $(UV_TOOLS)
	set -o pipefail; $(UV_TOOLS)/bin/python -m pip install --quiet uv==$(UV_VERSION) 2>&1 | { grep -v "is ignored: it is neither a file nor a directory" || true; }

# Regenerate the lock: the newest versions pyproject.toml allows, for CPython 3.11 on x86-64 Linux
# (the book's platform), every file's sha256 recorded. Commit the result with the tables it makes.
lock: $(UV)
	$(UV) pip compile pyproject.toml --extra all --generate-hashes --upgrade \
	  --python-version 3.11 --python-platform x86_64-manylinux_2_28 --no-header -o $(LOCK)

test: install
	$(TIMED) test -- $(BIN)/python -m pytest -n $(TEST_JOBS) --dist worksteal $(addprefix --ignore=,$(BOOK_TESTS))

run: install
	$(BIN)/svmcert book run -j $(JOBS)

build: install
	$(TIMED) build -- $(BIN)/svmcert book build

book: run build

check: install
	$(BIN)/svmcert book check

# Needs `make book` first and Debian's chromium (.ci/run installs it); screenshots: _build/screenshots
browser-test: install
	SVMCERT_BROWSER_TEST_REQUIRED=1 $(BIN)/python -m pytest $(BOOK_TESTS)

# The whole book as one PDF, _build/latex/svmcert.pdf, from the chapters `make book` executed
# (`make pdf BOOK_FLAGS=--quick` after `svmcert book run --quick`). Needs Debian's TeX Live:
# texlive-xetex texlive-latex-recommended texlive-latex-extra texlive-fonts-recommended latexmk
# fonts-freefont-otf xindy (.ci/run installs them).
BOOK_FLAGS ?=
pdf: install
	$(TIMED) pdf -- $(BIN)/svmcert book build --pdf $(BOOK_FLAGS)

clean:
	rm -rf _build
