# Two entry points do all setup on a fresh Debian machine: `make play` and `make test`.
VENV   := .venv
PY     := $(VENV)/bin/python
STAMP  := $(VENV)/.installed

.PHONY: play test bench setup clean

play: $(STAMP)
	$(VENV)/bin/bottles play

test: $(STAMP)
	PYGLET_HEADLESS=true $(PY) -m pytest -q

bench: $(STAMP)
	$(VENV)/bin/bottles bench

setup: $(STAMP)

$(STAMP): pyproject.toml tools/bootstrap.sh
	sh tools/bootstrap.sh $(VENV)
	$(VENV)/bin/bottles warm
	touch $(STAMP)

clean:
	rm -rf $(VENV) build *.egg-info
