"""exactmark: the tool that marks exact-output programs against their golden cases, from one
submission to a class, on this machine, on Gradescope, and in a student's own checker.

One command, `exactmark` (exactmark/cli.py), with a subcommand per job; the `make` targets
call it. The programs it marks, and the kit's own reference programs, are not part of it:
it reads them as data and runs them, it never imports them.

The package is built in floors. A module imports from its own floor or a lower one, never a
higher one, and no two modules import each other, even lazily (tests/test_floors.py reads
every module's imports and holds them to FLOORS):

    base/       what every floor uses
        visible.py        diffs and text in which no byte hides; escaping what a student wrote
        tree.py           copying and removing a submission's folder safely against its tricks
        exits.py          the exit statuses every tool gives
        messages.py       what a marker tells the process that started it, a record a line
        from_make.py      what `make` hands a tool: its variables, unexpanded
        streams.py        the tool's own output, UTF-8 whatever the locale
        spreadsheet.py    CSV cells no spreadsheet runs, files replaced whole
        instructor_csv.py an instructor's CSV (times, roster, overrides) read one way; names matched
        archives.py       archives read as hostile: a student's, a job's, a result's
    kit/        what the kit reads as data
        cases.py          golden cases: stdin, arguments, expected stdout, terminal, status
        programs.py       programs and their languages: how one is built and run
        languages.py      the language templates (languages.toml)
        assignment.py     an assignment file: programs, cases, marks, groups, deadlines
        late.py           late rules as data, a term's late days, a student's own terms
        submission.py     which folder of a submission holds the programs
        written_cases.py  the cases students write, read and checked as data
        rules.py          a handout's rule map: its rules and the cases that exercise them
        variants.py       honest and known-wrong variants of a reference, as edits
        bundle.py         a program and the kit parts it uses, as one file
    diagnosis/  naming a student's mistake from their failures (docs/guide/diagnosis.md)
        evidence.py       the lines of the expected output a run changed
        matching.py       a student's failures set against the wrong programs' signatures
        signatures_file.py a program's signatures, read as the matcher's data
        feedback.py       what a student reads: the mistakes named, the handout's sentences
        diagnose.py       a program's diagnosis at each level of what a reader sees
        known.py          a program's signatures and rule map, read from the kit's files
    running/    running one program
        record.py         what a run did (Ran) and which limit stopped it (Limit)
        supervise.py      the run loop, written once: start, feed stdin, gather within the
                          caps, watch CPU, idle and wall time, kill, and say how it ended
        run.py            running a golden case piped, outside any sandbox
        terminal.py       running a case at a terminal, as a person types
        limits.py         what every run is given: environment, memory, files, processes
    sandbox/    where a student's program runs
        sandbox.py        the sandbox: namespaces (bubblewrap) or the fallback, one run each
        session.py        one student's runs in one long-lived sandbox, through its driver
        interpreter.py    the Python the runs use, standard library only
        mounts.py         what a run sees: bubblewrap's mounts
        cgroups.py        control groups: memory, processes, CPU time per run
        confine.py        Landlock and seccomp, where namespaces are refused
        disk.py           a run's share of the disk, watched
        errors.py         what goes wrong in a sandbox, as named errors
        driver.py         the sandbox's root inside a session (runs from its source alone)
        launcher.py       the last step before a student's code runs
    marking/    marking one submission
        mark.py           the marker: a submission's cases, in its sandbox, within its budget
        build.py          building a compiled program, in the same sandbox
        verdicts.py       a run's outcome against its case: the verdict and its kind
        near_miss.py      what a wrong output almost got right
        grouping.py       failures that differ the same way, to say each way once
        report.py         the report, the JSON results and Gradescope's results.json
        records.py        the marking as data, read back by the class and Gradescope
        student_cases.py  marking the cases students write: valid, thorough, own code
        request.py        one marking asked of the marker, as its command line
        overrides.py      marks a person corrects, applied to the marker's results
        reuse.py          an earlier marking's verdicts, kept where a case's key is unchanged
    distributed/ marking a class beyond one machine: plan, mark one, collect
        engine.py         the contract between the class run and an engine; the local engine
        jobs.py           the job format: one student's copied submission and its key
        worker.py         mark one: the worker's checks, the marker run, the result (exactmark
                          mark-one)
        identity.py       the kit's identity, a host's facts, the reference's CPU time
        collect.py        the only writer of a student's results: a result checked, moved in
        shipment.py       the worker kit: the marker and the assignment, one archive of fixed bytes
        dask_engine.py    engines dask-local and dask (Dask distributed)
        parallel_engine.py engine parallel (GNU parallel over ssh)
    the tools
        standalone.py     sample solutions, one file each (exactmark standalone)
        expected.py       golden cases from the reference (exactmark expected)
        pack/             the student pack and its checker (exactmark pack)
        platforms/        Canvas, Moodle and Gradescope downloads read, and marks written back
        classroom/        a class: unpack, mark each, the late rule, grades, pages, similarity;
                          each student's terms, the term's late-day ledger, regrades, pseudonyms
        gradescope/       the autograder zip, and its runner on the platform
        verify/           the references, honest and wrong variants marked (exactmark verify);
                          the wrong programs' signatures (exactmark signatures) and how
                          well the diagnosis names them (exactmark diagnosis)
        mutants/          mutation analysis: what of a reference no marked case pins
                          (exactmark mutants)
    cli.py, __main__.py   the one command
    kit_copy/             in an installed wheel only: the kit's data (setup.py copies it)

Glossary, in the order a newcomer meets the words:

    case          one input and the exact output it must give (kit/cases.py); golden: the
                  reference's, pinned in expected_outputs/
    program       what a student hands in to answer one part of an assignment (kit/programs.py)
    reference     the program that gives the golden outputs
    assignment    programs, their cases and marks, and the rules of a course (kit/assignment.py)
    group         cases a team writes for one game, marked in three counts: valid (they pass
                  on the reference), thorough (they catch the known-wrong programs) and own
                  code (the team's program passes them)
    variant       a reference changed by a few edits: honest (must pass) or wrong (must fail)
    signature     a wrong program's failures on every marked case: which, how, which lines
    run           one start of a program on a case, in the sandbox; what it did is a Ran
    limit         what ended a run early (Limit): CPU, wall, idle, memory, output
    budget        the seconds a submission's runs may take in all, split into parts, one
                  per program or per count, in proportion to their marks
    session       one long-lived sandbox for one student's runs (--sandbox-per student)
    fallback      the sandbox where namespaces are refused: a throwaway user, Landlock, seccomp
    verdict       a run judged against its case: pass, or a kind of failure and its detail
    near miss     a wrong output that differs only in spacing, case, order or the like
    terms         one student's own due date (an extension, a deadline of their own) and the
                  late days of the term's bank they have left (kit/late.py)
    ledger        the term's late days each student spent on each assignment, a CSV the
                  class runs read and write (classroom/ledger.py)
    override      a mark a person corrects, kept in a file of theirs and applied after every
                  marking (marking/overrides.py)
    coordinator   the machine a class run is typed on: it plans, collects, and alone writes OUT
    job           one student to mark, as one archive a worker anywhere can take
                  (distributed/jobs.py)
    kit           the marker's code and the assignment, one archive of fixed bytes sent once
                  to each worker (distributed/shipment.py)
    worker        a process that marks jobs with a kit and refuses where it would mark
                  otherwise than the coordinator (distributed/worker.py)
    engine        what carries jobs to workers and results back: local, Dask, GNU parallel
                  (distributed/engine.py)
"""

# The floors, bottom first: a module imports only from its own floor or a lower one.
FLOORS = (
    ("exactmark.base",),
    ("exactmark.kit",),
    ("exactmark.diagnosis",),
    ("exactmark.running",),
    ("exactmark.sandbox",),
    ("exactmark.marking",),
    ("exactmark.platforms",),
    ("exactmark.distributed",),
    ("exactmark.standalone", "exactmark.expected", "exactmark.pack", "exactmark.classroom",
     "exactmark.gradescope", "exactmark.verify", "exactmark.mutants"),
    ("exactmark.cli", "exactmark.__main__"),
)
