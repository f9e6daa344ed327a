# The commands people type: `make` alone lists them. Each tool's target runs the one
# command, `exactmark COMMAND` (exactmark/cli.py), as $(VENV_PYTHON) -m exactmark COMMAND.
# `make test` builds its own virtual environment. PROGRAM, SEEDS, SIMULATE, SUBMISSION,
# ASSIGNMENT, INPUTS, OUT, TIMES, LEDGER and ARGS reach Python through the environment, unexpanded: no
# shell and no make function ever reads a byte of them.
PYTHON ?= python3
VENV   ?= .venv
PROGRAM ?=
SEEDS ?=
SIMULATE ?=
PYTEST_ARGS ?=
SCHEDULER ?=
ENGINE ?=
# Most tests wait on programs (a sandbox, a timeout, a terminal) more than they compute: a
# worker per core (pytest-xdist) keeps both cores of a small machine busy.
TEST_JOBS ?= auto
OUT ?=
SUBMISSION ?=
SUBMISSIONS ?=
ASSIGNMENT ?=
INPUTS ?=
TIMES ?=
LEDGER ?=
ARGS ?=
# make mark's status is the marker's (exactmark mark), but for 1, a mark below full: said,
# and no failure of make, which exits 2 whenever a recipe fails, whatever its status.
BELOW_FULL := make mark: the marker's exit status is 1, a mark below full (the report says why): not a failure of make

VENV_PYTHON := $(VENV)/bin/python
STAMP := $(VENV)/.installed
# STAMP= (as the tests give it): no stamp, so nothing installed, for make mark and mark-class too.
MARK_STAMP := $(if $(STAMP),$(VENV)/.installed-mark)
CLASS_STAMP := $(if $(STAMP),$(VENV)/.installed-class)
DASK_STAMP := $(if $(STAMP),$(VENV)/.installed-dask)
MUTANTS_STAMP := $(if $(STAMP),$(VENV)/.installed-mutants)
PIP := $(VENV_PYTHON) -m pip install --quiet --disable-pip-version-check

unexport PROGRAM SEEDS SIMULATE SUBMISSION SUBMISSIONS ASSIGNMENT INPUTS OUT TIMES LEDGER ARGS OVERRIDES \
	ANONYMOUS STUDENTS SCHEDULER

.PHONY: help play test expected verify signatures diagnosis mutants standalone student-pack mark check-isolation mark-one mark-class \
	dask-worker gradescope simulate-patience bench bench-mark bench-class exact clean

help:  ## this list: each target and what it does
	@awk -F ':.*## ' '/^[a-z-]+:.*## /{ printf "make %-18s %s\n", $$1, $$2 }' $(MAKEFILE_LIST)

play:  ## play a program: make play PROGRAM=patience ARGS="golf --seed 3" (default solitaire_1)
	$(PYTHON) $(or $(PROGRAM),solitaire_1).py $(ARGS)

# What each job installs: the package itself, editable (the checkout's code is what runs,
# from any folder, and an edit needs no new install), with pyproject.toml's extras, whose
# pins are the requirements files: the tests and benches everything; each tool the marker's
# alone (jsonschema, pyseccomp, pexpect: make mark, standalone, student-pack, expected,
# verify, signatures, gradescope, check-isolation); make mark-class the marker's and the class's
# (copydetect, jinja2, tqdm); make dask-worker those and Dask's (distributed). An install
# that holds more stamps the lesser ones too: after make test, no tool installs again;
# after make mark, make mark-class adds the class's.
PACKAGE := pyproject.toml setup.py requirements-mark.txt

$(STAMP): $(PACKAGE) requirements-class.txt requirements-fast.txt requirements-dev.txt \
		requirements-dask.txt requirements-mutants.txt
	$(PYTHON) -m venv $(VENV)
	$(PIP) --editable '.[test]'
	touch $@ $(DASK_STAMP) $(CLASS_STAMP) $(MARK_STAMP) $(MUTANTS_STAMP)

$(MARK_STAMP): $(PACKAGE)
	$(PYTHON) -m venv $(VENV)
	$(PIP) --editable '.[mark]'
	touch $@

$(MUTANTS_STAMP): $(PACKAGE) requirements-mutants.txt
	$(PYTHON) -m venv $(VENV)
	$(PIP) --editable '.[mutants]'
	touch $@ $(MARK_STAMP)

$(CLASS_STAMP): $(PACKAGE) requirements-class.txt
	$(PYTHON) -m venv $(VENV)
	$(PIP) --editable '.[class]'
	touch $@ $(MARK_STAMP)

$(DASK_STAMP): $(PACKAGE) requirements-class.txt requirements-dask.txt
	$(PYTHON) -m venv $(VENV)
	$(PIP) --editable '.[dask]'
	touch $@ $(CLASS_STAMP) $(MARK_STAMP)

test: $(STAMP)  ## the whole test suite, a worker per core (TEST_JOBS=1 for one; PYTEST_ARGS="-k hoyle" for some of it)
	$(VENV_PYTHON) -m pytest -n $(TEST_JOBS) --dist worksteal $(PYTEST_ARGS)

expected: export MARK_PROGRAM = $(value PROGRAM)
expected: export MARK_SEEDS = $(value SEEDS)
expected: export MARK_SIMULATE = $(value SIMULATE)
expected: export MARK_ASSIGNMENT = $(value ASSIGNMENT)
expected: export MARK_INPUTS = $(value INPUTS)
expected: export MARK_ARGS = $(value ARGS)
expected: $(MARK_STAMP)  ## golden cases from the reference: PROGRAM=solitaire_1 SEEDS="3 14" SIMULATE="1000,0", or ASSIGNMENT=FILE.toml PROGRAM=NAME INPUTS=DIR [ARGS="--status 1 --force"]
	$(VENV_PYTHON) -m exactmark expected

verify: export MARK_ASSIGNMENT = $(value ASSIGNMENT)
verify: export MARK_ARGS = $(value ARGS)
verify: $(MARK_STAMP)  ## the references, honest and wrong variants marked: [ASSIGNMENT=NAME|FILE.toml] [ARGS="--only 'solitaire_1/*'"]
	$(VENV_PYTHON) -m exactmark verify

signatures: export MARK_ASSIGNMENT = $(value ASSIGNMENT)
signatures: export MARK_PROGRAM = $(value PROGRAM)
signatures: export MARK_ARGS = $(value ARGS)
signatures: $(MARK_STAMP)  ## each wrong program's failed cases on every marked case: [ASSIGNMENT=NAME|FILE.toml] [PROGRAM=NAME] [ARGS="--jobs 1"]
	$(VENV_PYTHON) -m exactmark signatures

diagnosis: export MARK_PROGRAM = $(value PROGRAM)
diagnosis: export MARK_ARGS = $(value ARGS)
diagnosis: $(MARK_STAMP)  ## how well the diagnosis names the kit's mistakes: [PROGRAM=NAME] [ARGS="--pairs 24"]
	$(VENV_PYTHON) -m exactmark diagnosis

mutants: export MARK_ASSIGNMENT = $(value ASSIGNMENT)
mutants: export MARK_PROGRAM = $(value PROGRAM)
mutants: export MARK_ARGS = $(value ARGS)
mutants: $(MUTANTS_STAMP)  ## mutation analysis: which behaviours of each Python reference no marked case pins: [ASSIGNMENT=NAME|FILE.toml] [PROGRAM=NAME] [ARGS="--jobs 2 --write"]
	$(VENV_PYTHON) -m exactmark mutants

standalone: export MARK_ASSIGNMENT = $(value ASSIGNMENT)
standalone: export MARK_OUT = $(value OUT)
standalone: $(MARK_STAMP)  ## sample solutions: one file per Python program (OUT=solutions), or what a student of ASSIGNMENT=NAME hands in
	$(VENV_PYTHON) -m exactmark standalone \
		$${MARK_ASSIGNMENT:+--assignment="$$MARK_ASSIGNMENT"} -- "$${MARK_OUT:-solutions}"

student-pack: export MARK_ASSIGNMENT = $(value ASSIGNMENT)
student-pack: export MARK_OUT = $(value OUT)
student-pack: $(MARK_STAMP)  ## what students check their work with: ASSIGNMENT=NAME OUT=DIR (writes DIR/ and DIR.zip)
	$(VENV_PYTHON) -m exactmark pack

mark: export MARK_SUBMISSION = $(value SUBMISSION)
mark: export MARK_ASSIGNMENT = $(value ASSIGNMENT)
mark: export MARK_ARGS = $(value ARGS)
mark: $(MARK_STAMP)  ## one submission: SUBMISSION=DIR ASSIGNMENT=NAME [ARGS="--jobs 2 --tty --json results.json"]
	@$(VENV_PYTHON) -m exactmark mark || { status=$$?; [ $$status -eq 1 ] || exit $$status; \
		echo "$(BELOW_FULL)" >&2; }

check-isolation: export MARK_ASSIGNMENT = $(value ASSIGNMENT)
check-isolation: $(MARK_STAMP)  ## what would confine each run here, marking nothing: ASSIGNMENT=NAME
	$(VENV_PYTHON) -m exactmark check-isolation $${MARK_ASSIGNMENT:+--assignment="$$MARK_ASSIGNMENT"}

mark-one: export MARK_ARGS = $(value ARGS)
mark-one: $(MARK_STAMP)  ## mark a planned class's jobs here, as a worker: ARGS="--share K/N DIR" (exactmark class --plan-only DIR)
	$(VENV_PYTHON) -m exactmark mark-one

mark-class: export MARK_SUBMISSIONS = $(value SUBMISSIONS)
mark-class: export MARK_ASSIGNMENT = $(value ASSIGNMENT)
mark-class: export MARK_OUT = $(value OUT)
mark-class: export MARK_TIMES = $(value TIMES)
mark-class: export MARK_LEDGER = $(value LEDGER)
mark-class: export MARK_OVERRIDES = $(value OVERRIDES)
mark-class: export MARK_ANONYMOUS = $(value ANONYMOUS)
mark-class: export MARK_STUDENTS = $(value STUDENTS)
mark-class: export MARK_ENGINE = $(value ENGINE)
mark-class: export MARK_SCHEDULER = $(value SCHEDULER)
mark-class: export MARK_HOSTS = $(value HOSTS)
mark-class: export MARK_ARGS = $(value ARGS)
mark-class: $(if $(filter dask%,$(ENGINE)),$(DASK_STAMP),$(CLASS_STAMP))  ## a class: SUBMISSIONS=DIR|DOWNLOAD.zip ASSIGNMENT=NAME [OUT=marked] [TIMES=times.csv] [LEDGER=ledger.csv] [OVERRIDES=overrides.csv] [ANONYMOUS=1] [STUDENTS=a,b] [ENGINE=local|dask-local|dask|parallel] [SCHEDULER=tls://host:8786] [HOSTS=hosts.txt] [ARGS="--from canvas"]
	$(VENV_PYTHON) -m exactmark class

dask-worker: export MARK_SCHEDULER = $(value SCHEDULER)
dask-worker: export MARK_ARGS = $(value ARGS)
dask-worker: $(DASK_STAMP)  ## a Dask worker for ENGINE=dask, its slots this machine's: SCHEDULER=tls://HOST:8786 ARGS="--tls-ca ca.pem --tls-cert me.pem --tls-key me.key"
	$(VENV_PYTHON) -m exactmark dask-worker

gradescope: export MARK_ASSIGNMENT = $(value ASSIGNMENT)
gradescope: export MARK_OUT = $(value OUT)
gradescope: export MARK_EXTENSIONS = $(value EXTENSIONS)
gradescope: export MARK_ARGS = $(value ARGS)
gradescope: $(MARK_STAMP)  ## Gradescope's autograder.zip: ASSIGNMENT=NAME|FILE.toml [OUT=autograder.zip] [EXTENSIONS=extensions.csv] [ARGS="--budget 1200"]
	$(VENV_PYTHON) -m exactmark gradescope

GAME ?= golf
N ?= 100
I ?= 1
simulate-patience:  ## deals won, proven lost and undecided: GAME=golf N=200 I=1
	$(PYTHON) patience.py simulate $(GAME) $(N) $(I)

bench: $(STAMP)  ## simulate's time per game against the bare seed-and-shuffle loop
	$(VENV_PYTHON) bench/simulate.py

bench-mark: $(MARK_STAMP)  ## marking time per case: no sandbox, the fallback, namespaces
	$(VENV_PYTHON) bench/mark.py

bench-class: $(STAMP)  ## a class with bad students marked end to end: students a minute, the marker's share, each bad student's cost; ENGINE=dask-local: 1 against 2 workers
	$(VENV_PYTHON) $(if $(ENGINE),bench/class_engines.py --engine $(ENGINE),bench/mark_class.py)

.PHONY: bench-similarity
bench-similarity: $(STAMP)  ## the similarity scan at 500 and 2,000 students: every pair against the index, time and memory
	$(VENV_PYTHON) bench/similarity_scale.py

exact:  ## the exact winning probabilities of solitaire_1
	$(PYTHON) -c "from solitaire_1 import exact_distribution; exact_distribution()"

clean:  ## remove the virtual environment, pytest's cache and what pip's builds leave
	rm -rf $(VENV) .pytest_cache build exactmark.egg-info
