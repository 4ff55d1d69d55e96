# Contributor commands; each target is one command you can also run by hand. See CONTRIBUTING.md.
UV ?= $(shell command -v uv 2>/dev/null || echo .uv/bin/uv)

.PHONY: help setup test lint format typecheck coverage docs serve bench install-matrix ci

help:  ## list the targets
	@grep -E '^[a-z-]+:.*## ' $(MAKEFILE_LIST) | sed 's/:.*## /\t/'

setup:  ## install everything into .venv (uv into .uv/ first when it is missing)
	@command -v uv >/dev/null 2>&1 || test -x .uv/bin/uv || (python3 -m venv .uv && .uv/bin/pip install -q uv)
	$(UV) sync --all-packages --all-extras

test:  ## the whole test suite, offline
	$(UV) run pytest

lint:  ## ruff lint and format check
	$(UV) run ruff check
	$(UV) run ruff format --check

format:  ## ruff format and safe fixes
	$(UV) run ruff format
	$(UV) run ruff check --fix

typecheck:  ## pyright, standard mode
	$(UV) run pyright

coverage:  ## the suite with coverage, failing below the floor
	$(UV) run pytest --cov --cov-report=term:skip-covered

docs:  ## build the docs site, strict
	$(UV) run mkdocs build --strict

serve:  ## serve the docs site locally
	$(UV) run mkdocs serve

bench:  ## the benchmarks
	$(UV) run pytest benchmarks adapters/*/benchmarks --benchmark-only -p no:randomly

install-matrix:  ## every documented install route in a fresh environment
	bash scripts/install_matrix.sh

ci:  ## what CI runs
	bash .ci/run
