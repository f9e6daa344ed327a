"""The similarity scan at a course's size (#38, the coordinator's tail): what comparing every
pair of students per program costs at 500 and 2,000 students, against the scan that compares
only the pairs whose fingerprints share a k-gram (exactmark/classroom/similarity.py, _sharing),
and that the index loses nothing.

A class is generated, seeded and reproducible (make_class, which tests reuse): N students
each handing in the seeded assignment's programs, each program the sample solution
(`make standalone`, as bench/mark_class.py makes its class) with 0 to MOST_VARIANTS of the
mistakes of tests/wrong/PROGRAM/ made in it (exactmark.kit.variants; one that no longer
applies after another is left out); then one student in COPIED hands in another's version of
one program as it is, and one in DISGUISED another's disguised (its functions renamed and
reordered, comments and blank lines added, spaces put at line ends). The students are
written as they hand in: a folder each, the programs' files in it, so that the class marker
can mark the same class.

Measured, for each size, alternately in one process (the order turning each repeat, so that
a noisy machine slows each alike), each in a fresh child process so that its peak memory is
its own (the child's ru_maxrss, resource.getrusage, in MiB):

    baseline   copydetect's fingerprint of every distinct version: what any scan does first
    every      the scan comparing every pair (`scan(..., every_pair=True)`, as before the index)
    indexed    the scan comparing the pairs that share a k-gram (`scan(...)`)

printed as seconds and MiB, and as ratios to the baseline. At sizes in --estimate, `every`
is not run: its time is estimated as the indexed scan's plus the pairs that share nothing at
the cost of such a pair measured at the largest size that ran both ((every - indexed) / the
pairs the index skipped there), and its memory as the indexed scan's (both hold only the pairs
listed; the index adds its arrays).

Then the check "nothing the scan found at 200 may be lost at 2,000": the first --inside
students compared every pair among themselves; the largest class's indexed scan must list each
pair they listed, with the same share in full (copydetect's share, which does not depend on
the class; the score weighs code by how many of the class hold it, so it may differ); and at
each size where both ran, the two scans' pairs must be the same, scores and all.

    python3 bench/similarity_scale.py [--sizes 500 2000] [--estimate 2000] [--inside 200]
                                      [--repeats 1] [--seed 38]
"""

import argparse
import io
import json
import random
import re
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from copydetect import CodeFingerprint  # noqa: E402 (the project root is on the path only now)
from copydetect.utils import filter_code  # noqa: E402

from exactmark.classroom.similarity import (LANGUAGE, NOISE, WINDOW, _boilerplate,  # noqa: E402
                                            scan)
from exactmark.kit.assignment import load  # noqa: E402
from exactmark.kit.bundle import write_program  # noqa: E402
from exactmark.kit.variants import VariantError, read_variants  # noqa: E402

ASSIGNMENT = "seeded"
WRONG = ROOT / "tests" / "wrong"
SEED = 38
MOST_VARIANTS = 3  # mistakes made in one student's version of a program, at most
COPIED = 50  # one student in COPIED hands in another's version of a program as it is
DISGUISED = 50  # one in DISGUISED hands in another's disguised
SAMPLES = "samples"
STUDENT = "student_{number:04d}"

OWN = "own"  # a student's own version: the sample solution with their mistakes
MISTAKES = "own: {ids}"
COPY = "copy of {student}"
DISGUISED_COPY = "disguised copy of {student}"
BASELINE, EVERY, INDEXED = "baseline", "every", "indexed"
WAYS = (BASELINE, EVERY, INDEXED)

# Disguises: what a student who copies does so that the copy looks like their own.
DEFINITION = re.compile(r"^def (\w+)\(", re.M)
TOP_LEVEL_FUNCTION = re.compile(r"^def \w+\(.*?(?=^\S)", re.M | re.S)
COMMENTS = ("# my own helper", "# TODO tidy this up", "# works now", "# see lecture 3")
RENAMED = "{name}_{suffix}"

SIZE_LINE = ("{students} students, {pairs} pairs a program ({programs} programs): "
             "{listed} share a k-gram and are listed")
WAY_LINE = ("  {way:<8} {cpu:8.1f} s CPU {ratio:6.2f}x  {mib:6.0f} MiB {mib_ratio:5.2f}x"
            "  ({wall}){note}")
WALL = "{seconds:.1f} s wall"
NOT_RUN = "not run"
ESTIMATED = ("  estimated: {skipped} pairs that share nothing at {each:.1f} us of CPU each, "
             "from {size}")
REPEATS = "  repeats: " + "{}"
SAME = ("{size} students: the indexed scan lists the same {count} pairs as every pair, scores "
        "and all")
DIFFERENT = ("{size} students: the two scans differ: {first} listed only comparing every pair, "
             "{second} only indexed")
INSIDE_KEPT = ("the first {inside} students' {count} pairs (every pair compared among them) are "
               "all listed at {size}, each with the same share in full")
INSIDE_LOST = "LOST at {size}: {pairs} of the first {inside} students' pairs"
INSIDE_OTHER_SHARE = "CHANGED at {size}: {pair}: share in full {before} among {inside}, {after}"
NEEDS_A_RUN = "--estimate {size}: the scan comparing every pair must run at a smaller size first"


def samples(folder: Path) -> dict:
    """{program's file name: the sample solution's text}, written under folder/PROGRAM/: the
    files everyone may share."""
    texts = {}
    for program in load(ASSIGNMENT).programs.values():
        for path, _ in write_program(program, folder / program.name):
            texts[path.name] = path.read_text(encoding="utf-8")
    return texts


def make_class(folder: Path, count: int, seed: int = SEED, copies: int = COPIED,
               disguises: int = DISGUISED) -> dict:
    """`count` student folders under `folder` (made), the same for the same seed, and the
    sample solutions beside it (in FOLDER-samples/): {student: {program's file name: how their
    version was made (OWN, MISTAKES, COPY, DISGUISED_COPY)}}. One student in `copies` copies,
    one in `disguises` copies and disguises."""
    rng = random.Random(seed)
    solutions = samples(folder.parent / f"{folder.name}-{SAMPLES}")
    mistakes = {file: [variant for variant in read_variants(WRONG)
                       if f"{variant.program}.py" == file] for file in solutions}
    plain = {file: filter_code(text, file, LANGUAGE)[0] for file, text in solutions.items()}
    students, versions, mistaken = {}, {}, []
    for number in range(1, count + 1):
        name = STUDENT.format(number=number)
        versions[name], students[name], mine = {}, {}, []
        for file, text in solutions.items():
            versions[name][file], made = own_version(file, text, mistakes[file], rng)
            students[name][file] = MISTAKES.format(ids=", ".join(made)) if made else OWN
            if made:
                mine.append((name, file))
        for every, disguise in ((copies, False), (disguises, True)):
            if rng.randrange(every) == 0:
                source, file = own_code(mistaken, versions, plain, rng)
                if source is None:
                    continue
                versions[name][file] = (disguised(versions[source][file], rng) if disguise
                                        else versions[source][file])
                students[name][file] = (DISGUISED_COPY if disguise else COPY).format(
                    student=source)
        mistaken.extend(mine)
    folder.mkdir(parents=True)
    for name, files in versions.items():
        (folder / name).mkdir()
        for file, text in files.items():
            (folder / name / file).write_text(text, encoding="utf-8")
    return students


def own_code(mistaken: list, versions: dict, plain: dict, rng: random.Random) -> tuple:
    """(student, file): an earlier student's version with code of their own, for a copier to
    take, or (None, None). A version whose mistakes change only strings shares nothing the scan
    compares beyond the sample solution (`plain`, as the scan filters it: names and strings
    left out), so a copy of it is no copy to the scan: one is dropped from `mistaken` when met."""
    while mistaken:
        source, file = chosen = rng.choice(mistaken)
        if filter_code(versions[source][file], file, LANGUAGE)[0] != plain[file]:
            return chosen
        mistaken.remove(chosen)
    return None, None


def own_version(file: str, text: str, mistakes: list, rng: random.Random) -> tuple:
    """(a student's version of the sample solution `text`: some of `mistakes` made in it,
    the ids of those made)."""
    made = []
    for variant in rng.sample(mistakes, rng.randint(0, MOST_VARIANTS)):
        try:
            text = variant.applied_to({file: text})[file]
        except VariantError:
            continue
        made.append(variant.id)
    return text, made


def disguised(text: str, rng: random.Random) -> str:
    """`text` as a student who copied hands it in: its functions renamed and reordered (each
    run of top-level functions shuffled), a comment above some, a blank line added here and
    there, spaces at some line ends."""
    suffix = rng.choice(("v2", "mine", "new", "x"))
    for old in sorted(set(DEFINITION.findall(text)), key=len, reverse=True):
        text = re.sub(rf"\b{old}\b", RENAMED.format(name=old, suffix=suffix), text)
    functions = TOP_LEVEL_FUNCTION.findall(text)
    shuffled = rng.sample(functions, len(functions))
    pieces = TOP_LEVEL_FUNCTION.split(text)
    text = pieces[0] + "".join(
        (rng.choice(COMMENTS) + "\n" if rng.random() < 0.3 else "") + function + piece
        for function, piece in zip(shuffled, pieces[1:]))
    return "".join(line + (" " * rng.randint(1, 3) if line.strip() and rng.random() < 0.1
                           else "") + ("\n" if rng.random() < 0.05 else "")
                   for line in text.splitlines(keepends=True))


def scanned(class_folder: Path, out: Path, every_pair: bool, first: int = None):
    """The scan of the class in `class_folder` (its `first` students only, with `first`),
    the sample solutions everyone may share, as the class marker calls it."""
    shared = class_folder.parent / f"{class_folder.name}-{SAMPLES}"
    files = {path.name: path for path in sorted(shared.glob("*/*"))}
    students = sorted(path for path in class_folder.iterdir() if path.is_dir())[:first]
    return scan({path.name: path for path in students}, list(files),
                {file: [path] for file, path in files.items()}, out, most=20,
                languages={file: "python" for file in files}, every_pair=every_pair)


def fingerprints(class_folder: Path) -> int:
    """The baseline: copydetect's fingerprint of every distinct version, as the scan takes
    them (the first 64 KiB, the sample solutions' k-grams out); how many."""
    shared = class_folder.parent / f"{class_folder.name}-{SAMPLES}"
    count = 0
    for path in sorted(shared.glob("*/*")):
        boilerplate = _boilerplate([path], LANGUAGE)
        texts = {(student / path.name).read_text(encoding="utf-8")
                 for student in class_folder.iterdir() if student.is_dir()}
        for text in texts:
            CodeFingerprint(path.name, NOISE, WINDOW, boilerplate, language=LANGUAGE,
                            fp=io.StringIO(text))
            count += 1
    return count


def child(way: str, class_folder: Path, out: Path) -> None:
    """One measurement, in this process alone: prints {seconds, mib, ...} as JSON."""
    started = time.perf_counter()
    facts = {}
    if way == BASELINE:
        facts["versions"] = fingerprints(class_folder)
    else:
        found = scanned(class_folder, out, every_pair=way == EVERY)
        facts["listed"] = [[pair.program, pair.first, pair.second, repr(pair.score),
                            repr(pair.share)] for pair in found.pairs]
    used = resource.getrusage(resource.RUSAGE_SELF)
    facts["seconds"] = time.perf_counter() - started
    facts["cpu"] = used.ru_utime + used.ru_stime
    facts["mib"] = used.ru_maxrss / 1024
    print(json.dumps(facts))


def measured(way: str, class_folder: Path, scratch: Path) -> dict:
    out = Path(tempfile.mkdtemp(dir=scratch))
    done = subprocess.run([sys.executable, __file__, "--child", way, str(class_folder), str(out)],
                          check=True, stdout=subprocess.PIPE, text=True)
    return json.loads(done.stdout)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--sizes", type=int, nargs="+", default=[500, 2000])
    parser.add_argument("--estimate", type=int, nargs="*", default=[2000],
                        help="sizes at which the scan of every pair is estimated, not run")
    parser.add_argument("--inside", type=int, default=200)
    parser.add_argument("--repeats", type=int, default=1)
    parser.add_argument("--seed", type=int, default=SEED)
    parser.add_argument("--child", nargs=3, metavar=("WAY", "CLASS", "OUT"), help=argparse.SUPPRESS)
    options = parser.parse_args()
    if options.child:
        way, class_folder, out = options.child
        child(way, Path(class_folder), Path(out))
        return
    with tempfile.TemporaryDirectory() as scratch:
        scratch = Path(scratch)
        cost, results = None, {}
        for size in sorted(options.sizes):
            if size in options.estimate and cost is None:
                sys.exit(NEEDS_A_RUN.format(size=size))
            class_folder = scratch / f"class-{size}"
            make_class(class_folder, size, options.seed)
            ways = [way for way in WAYS if not (way == EVERY and size in options.estimate)]
            runs = {way: [] for way in ways}
            for repeat in range(options.repeats):
                turned = ways[repeat % len(ways):] + ways[:repeat % len(ways)]
                for way in turned:
                    runs[way].append(measured(way, class_folder, scratch))
            programs = len(list((scratch / f"class-{size}-{SAMPLES}").glob("*/*")))
            pairs = size * (size - 1) // 2
            median = {way: sorted(each, key=lambda run: run["cpu"])[len(each) // 2]
                      for way, each in runs.items()}
            shared = len(median[INDEXED]["listed"])  # a pair sharing a k-gram is listed
            print(SIZE_LINE.format(students=size, pairs=pairs, programs=programs, listed=shared))
            base = median[BASELINE]
            if EVERY in median:
                cost = ((median[EVERY]["cpu"] - median[INDEXED]["cpu"])
                        / (programs * pairs - shared), size)
                note = {EVERY: ""}
            else:
                skipped = programs * pairs - shared
                median[EVERY] = {"cpu": median[INDEXED]["cpu"] + skipped * cost[0],
                                 "seconds": None, "mib": median[INDEXED]["mib"]}
                note = {EVERY: ESTIMATED.format(skipped=skipped, each=cost[0] * 1e6, size=cost[1])}
            for way in WAYS:
                seconds = median[way]["seconds"]
                print(WAY_LINE.format(way=way, cpu=median[way]["cpu"],
                                      wall=(NOT_RUN if seconds is None
                                            else WALL.format(seconds=seconds)),
                                      ratio=median[way]["cpu"] / base["cpu"],
                                      mib=median[way]["mib"],
                                      mib_ratio=median[way]["mib"] / base["mib"],
                                      note=note.get(way, "")))
            if options.repeats > 1:
                print(REPEATS.format(" ".join(f"{way} " + ",".join(f"{run['cpu']:.1f}"
                                                                   for run in each)
                                              for way, each in runs.items())))
            if EVERY in runs:
                every = {tuple(pair) for pair in median[EVERY]["listed"]}
                indexed = {tuple(pair) for pair in median[INDEXED]["listed"]}
                print(SAME.format(size=size, count=len(every)) if every == indexed else
                      DIFFERENT.format(size=size, first=len(every - indexed),
                                       second=len(indexed - every)))
            results[size] = (class_folder, median[INDEXED]["listed"])
        largest = max(results)
        class_folder, listed = results[largest]
        inside = scanned(class_folder, Path(tempfile.mkdtemp(dir=scratch)), every_pair=True,
                         first=options.inside)
        at_largest = {(program, first, second): share
                      for program, first, second, _, share in listed}
        lost = [pair for pair in inside.pairs
                if (pair.program, pair.first, pair.second) not in at_largest]
        changed = [pair for pair in inside.pairs
                   if at_largest.get((pair.program, pair.first, pair.second), repr(pair.share))
                   != repr(pair.share)]
        if lost:
            print(INSIDE_LOST.format(size=largest, pairs=len(lost), inside=options.inside))
        for pair in changed:
            key = pair.program, pair.first, pair.second
            print(INSIDE_OTHER_SHARE.format(size=largest, pair=key, before=pair.share,
                                            inside=options.inside, after=at_largest[key]))
        if not lost and not changed:
            print(INSIDE_KEPT.format(inside=options.inside, count=len(inside.pairs), size=largest))
        if lost or changed:
            sys.exit(1)


if __name__ == "__main__":
    main()
