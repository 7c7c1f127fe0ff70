# minigrad-labs: every target sets up its own virtual environment on first use.
PYTHON ?= python3
VENV   ?= .venv
PY     := $(VENV)/bin/python
LAB    ?= lab01_graph
LANG_ARG := $(if $(GRADER_LANG),--lang $(GRADER_LANG),)
SUBMISSIONS ?=
OUT    ?= out/grades

.PHONY: help venv check test test-fast lint demo grade labs figures kit image bench mutation screenshots notebook-screenshots clean

help:
	@echo "make check [LAB=lab01_graph]   run the public checks on your lab (students)"
	@echo "make test                      lint, type-check and run all the project's own tests (CI)"
	@echo "make test-fast                 lint, type-check, unit tests and the lab01 fixtures (~1 min)"
	@echo "make demo                      grade the bundled demo class and print where the reports are"
	@echo "make grade SUBMISSIONS='a b'   grade submissions with the hidden suite (instructors)"
	@echo "make labs                      regenerate labs/ stubs from solutions/, the docs' generated tables, the contract table"
	@echo "make figures                   regrade the fixtures and the demo: verdict snapshots, demo figures"
	@echo "make kit LAB=lab02_ops          the student kit of a release in dist/ (that lab and earlier ones)"
	@echo "make image [HIDDEN=1]          the grader image (deploy/Dockerfile): public, or with the hidden suites"
	@echo "make bench                     measure grading and write docs/performance.md's table"
	@echo "make screenshots               grade the demo class and write docs/feedback.png, docs/dashboard.png"
	@echo "make notebook-screenshots JUPYTERLAB=<venv>  the notebook check cell in JupyterLab: docs/notebook-check.{en,es}.png"
	@echo "make mutation                  mutation score of each hidden suite (slow; not in make test)"

$(VENV)/.installed: pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --upgrade pip
	$(PY) -m pip install --quiet -e '.[dev]'
	touch $@

venv: $(VENV)/.installed

check: venv
	$(PY) -m grader check $(LAB) $(LANG_ARG) $(if $(NOTEBOOK),--path labs/$(LAB)/$(LAB).ipynb,) $(if $(ALL),--all,)

lint: venv
	$(PY) -m ruff check grader tests bench deploy build_support
	$(PY) -m mypy
	$(VENV)/bin/lint-imports

# Two xdist workers; the tests of one heavy batch share a group (tests/conftest.py), groups
# start heaviest first. test-fast leaves out what tests/conftest.py marks slow.
TEST_WORKERS ?= 2
PYTEST_PARALLEL = -n $(TEST_WORKERS) --dist loadgroup --no-loadscope-reorder

test: lint
	$(PY) -m grader build-labs --check
	$(PY) -m pytest -q $(PYTEST_PARALLEL) tests

test-fast: lint
	$(PY) -m grader build-labs --check
	$(PY) -m pytest -q $(PYTEST_PARALLEL) -m "not slow" tests

demo: venv
	$(PY) -m grader grade $(LAB) demo/class/$(LAB)/* --out out/demo $(LANG_ARG)

# Pictures for the README, taken in headless Chromium (apt-get install chromium).
screenshots: demo
	$(PY) tests/browser/screenshots.py out/demo docs

# JUPYTERLAB: a virtual environment holding jupyterlab, outside the repository (docs/students.md).
notebook-screenshots: venv
	$(PY) tests/browser/notebook_screenshots.py $(JUPYTERLAB) docs

grade: venv
	@test -n "$(SUBMISSIONS)" || { echo "usage: make grade SUBMISSIONS='path/to/sub1 path/to/sub2' [LAB=lab01_graph] [OUT=out/grades]"; exit 2; }
	$(PY) -m grader grade $(LAB) $(SUBMISSIONS) --out $(OUT) $(LANG_ARG)

labs: venv
	$(PY) -m grader build-labs

# What only a graded run decides: each lab's verdict snapshot (tests/data/verdicts/) and the
# figures of the demo's grading (demo/README.md, the examples of docs/instructors.md and
# docs/score-document.md). `make test` fails on drift.
figures: venv
	UPDATE_VERDICTS=1 $(PY) -m pytest -q -n 0 tests/test_lab_fixtures.py -k snapshot
	UPDATE_DEMO=1 $(PY) -m pytest -q -n 0 tests/test_cli.py -k demo_readme

kit: venv
	$(PY) -m grader kit --release $(LAB)

# The grader image, built by deploy/build_image.py (the recipe tests/platforms/test_image_build.py
# builds with): podman or docker; the Dockerfile's base where it can be pulled, else a debootstrap
# Debian (root). HIDDEN=0 (default): what PrairieLearn pulls; HIDDEN=1: the hidden suites inside.
HIDDEN ?= 0
IMAGE  ?=
BASE   ?= auto
BUILDER ?=
image:
	$(PYTHON) deploy/build_image.py --hidden $(HIDDEN) --base $(BASE) $(if $(IMAGE),--tag $(IMAGE),) $(if $(BUILDER),--builder $(BUILDER),)

# Every row of docs/performance.md's table, side by side in one run; writes the table.
bench: venv
	$(PY) bench/performance.py --write-docs

# Not part of `make test`: mutants of every reference solution graded with the hidden suites.
mutation: venv
	$(PY) -m pip install --quiet -e '.[dev,mutation]'
	$(PY) bench/mutation.py

clean:
	rm -rf $(VENV) out .pytest_cache .mypy_cache .ruff_cache
