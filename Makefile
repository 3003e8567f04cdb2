# Two entry points do all setup on a fresh Debian machine: `make play` and `make test`.
VENV   := .venv
PY     := $(VENV)/bin/python
STAMP  := $(VENV)/.installed

.PHONY: play test test-all lint bench setup clean

play: $(STAMP)
	$(VENV)/bin/bottles play

# A local `make test` leaves out the slowest physics cases (tests/conftest.py SLOW); in CI (CI set)
# it runs everything, as `make test-all` does anywhere.
test: $(STAMP)
	PYGLET_HEADLESS=true $(PY) -m pytest -q $(if $(CI),,-m "not slow")

test-all: $(STAMP)
	PYGLET_HEADLESS=true $(PY) -m pytest -q

# ruff (rules in pyproject.toml; no formatter is run) and mypy over engine/ and game/
lint: $(STAMP)
	$(VENV)/bin/ruff check engine game
	$(VENV)/bin/mypy

bench: $(STAMP)
	$(VENV)/bin/bottles bench

setup: $(STAMP)

$(STAMP): pyproject.toml tools/bootstrap.sh
	sh tools/bootstrap.sh $(VENV)
	$(VENV)/bin/bottles warm
	touch $(STAMP)

clean:
	rm -rf $(VENV) build *.egg-info
