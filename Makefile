# README's two commands: `make test` and `make book`. Both create .venv when it is missing and
# (re)install only when pyproject.toml changed since the last install.
PYTHON ?= python3
VENV   := .venv
BIN    := $(VENV)/bin
STAMP  := $(VENV)/.install-stamp
JOBS   ?= 2
SHELL  := /bin/bash

.PHONY: install test book run build check clean

install: $(STAMP)

$(BIN)/python:
	$(PYTHON) -m venv $(VENV)

$(STAMP): pyproject.toml | $(BIN)/python
	set -o pipefail; $(BIN)/python -m pip install --quiet -e . 2>&1 | { grep -v "is ignored: it is neither a file nor a directory" || true; }
	touch $(STAMP)

test: install
	$(BIN)/python -m pytest

run: install
	$(BIN)/svmcert book run -j $(JOBS)

build: install
	$(BIN)/svmcert book build

book: run build

check: install
	$(BIN)/svmcert book check

clean:
	rm -rf _build
