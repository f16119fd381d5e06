# README's two commands: `make test` and `make book`. Both create .venv when it is missing and
# (re)install only when pyproject.toml changed since the last install.
PYTHON ?= python3
VENV   := .venv
BIN    := $(VENV)/bin
STAMP  := $(VENV)/.install-stamp
JOBS   ?= 2
SHELL  := /bin/bash
# Runs a command and records its wall time and peak memory in _build/timings/NAME.json (exit status
# kept). Run by path, not with -m: it must work even when the svmcert package does not import.
TIMED  := $(BIN)/python lib/svmcert/book/timed.py

# Tests of the rendered book (headless Chromium screenshots, link check): they need _build/html,
# so `make test` leaves them out and `make browser-test` runs them after `make book`.
BOOK_TESTS := tests/test_browser.py tests/test_links.py

.PHONY: install test book run build check browser-test clean

install: $(STAMP)

$(BIN)/python:
	$(PYTHON) -m venv $(VENV)

$(STAMP): pyproject.toml | $(BIN)/python
	set -o pipefail; $(BIN)/python -m pip install --quiet -e . 2>&1 | { grep -v "is ignored: it is neither a file nor a directory" || true; }
	touch $(STAMP)

test: install
	$(TIMED) test -- $(BIN)/python -m pytest $(addprefix --ignore=,$(BOOK_TESTS))

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

clean:
	rm -rf _build
