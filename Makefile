# The commands people type. `make test` builds its own virtual environment.
PYTHON ?= python3
VENV   ?= .venv
PROGRAM ?= solitaire_1
SEEDS ?=
SIMULATE ?=
PYTEST_ARGS ?=
OUT ?=
SUBMISSIONS ?=
TIMES ?=
comma := ,

VENV_PYTHON := $(VENV)/bin/python
STAMP := $(VENV)/.installed

SUBMISSION ?=
ASSIGNMENT ?=
ARGS ?=

.PHONY: play test expected mark mark-class gradescope simulate-patience bench bench-mark bench-class exact standalone verify clean

play:  ## play PROGRAM: make play PROGRAM=patience ARGS="golf --seed 3"
	$(PYTHON) $(PROGRAM).py $(ARGS)

$(STAMP): requirements-dev.txt requirements-fast.txt requirements-mark.txt requirements-class.txt
	$(PYTHON) -m venv $(VENV)
	$(VENV_PYTHON) -m pip install --quiet --disable-pip-version-check \
		-r requirements-dev.txt -r requirements-fast.txt
	touch $@

test: $(STAMP)  ## the whole test suite
	$(VENV_PYTHON) -m pytest $(PYTEST_ARGS)

# make expected PROGRAM=solitaire_1 SEEDS="3 14 15" SIMULATE="1000,0 1,-5"
expected: $(STAMP)
	$(VENV_PYTHON) -m golden.expected $(PROGRAM) \
		$(foreach seed,$(SEEDS),--seed=$(seed)) \
		$(foreach pair,$(SIMULATE),--simulate $(subst $(comma), ,$(pair)))


# make mark SUBMISSION=DIR ASSIGNMENT=seeded ARGS="--jobs 2 --tty --json results.json"
# SUBMISSION, ASSIGNMENT and ARGS reach Python through the environment,
# unexpanded: no shell and no make function ever reads a byte of them.
unexport SUBMISSION ASSIGNMENT ARGS SUBMISSIONS TIMES
mark: export MARK_SUBMISSION = $(value SUBMISSION)
mark: export MARK_ASSIGNMENT = $(value ASSIGNMENT)
mark: export MARK_ARGS = $(value ARGS)
mark: $(STAMP)
	$(VENV_PYTHON) -m marking.mark

# make mark-class SUBMISSIONS=DIR ASSIGNMENT=seeded [OUT=marked] [TIMES=times.csv] [ARGS="--force"]
mark-class: export MARK_SUBMISSIONS = $(value SUBMISSIONS)
mark-class: export MARK_ASSIGNMENT = $(value ASSIGNMENT)
mark-class: export MARK_OUT = $(value OUT)
mark-class: export MARK_TIMES = $(value TIMES)
mark-class: export MARK_ARGS = $(value ARGS)
mark-class: $(STAMP)
	$(VENV_PYTHON) -m classroom.mark_class

# make gradescope ASSIGNMENT=seeded [OUT=autograder.zip] [ARGS="--budget 1200"]
# Gradescope's autograder.zip for one assignment (a name, or FILE.toml).
gradescope: export MARK_ASSIGNMENT = $(value ASSIGNMENT)
gradescope: export MARK_OUT = $(value OUT)
gradescope: export MARK_ARGS = $(value ARGS)
gradescope: $(STAMP)
	$(VENV_PYTHON) -m gradescope.build

# make simulate-patience GAME=golf N=200 I=1: deals won, proven lost and undecided
GAME ?= golf
N ?= 100
I ?= 1
simulate-patience:
	$(PYTHON) patience.py simulate $(GAME) $(N) $(I)

bench: $(STAMP)  ## simulate's time per game against the bare seed-and-shuffle loop
	$(VENV_PYTHON) bench/simulate.py

bench-mark: $(STAMP)  ## marking time per case: no sandbox, the fallback, namespaces
	$(VENV_PYTHON) bench/mark.py

verify: $(STAMP)  ## the golden cases against the references, honest variants and tests/wrong/
	$(VENV_PYTHON) -m verify

standalone:  ## single-file sample solutions, standard library only: make standalone OUT=solutions
	$(PYTHON) -m standalone.bundle $(or $(OUT),solutions)

bench-class: $(STAMP)  ## a class marked end to end: students per minute, time outside the students' programs
	$(VENV_PYTHON) bench/mark_class.py

exact:  ## the exact winning probabilities of solitaire_1
	$(PYTHON) -c "from solitaire_1 import exact_distribution; exact_distribution()"

clean:
	rm -rf $(VENV) .pytest_cache
