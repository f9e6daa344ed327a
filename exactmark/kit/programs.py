"""Programs and their languages, as data: a language is templates (how a program of it is
built, how a case runs it; exactmark/kit/languages.py reads them from exactmark/kit/languages.toml), a
program is what a student hands in, in which language, its reference and its golden
cases. Every tool reads these instead of knowing a program: the marker, `make expected`,
`make verify`, `make standalone`, the class marker, the Gradescope builder, and the
student pack's checker, into which this module is bundled (standard library only).
"""

import fnmatch
import os
import shlex
import shutil
import stat
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

from exactmark.base.visible import escaped
from exactmark.kit.cases import EXPECTED_OUTPUTS, ROOT, Case, load_cases

BINARY = "program"  # what a build writes, and a case of a built program runs
OUTPUT = "{output}"  # in a preprocess command: the file the preprocessor writes
GCC_ONLY = "gcc:"  # in a preprocess command: a word of gcc's, left out for clang
OPTION_STARTS = "-@"  # a name that begins so reads as an option, or a response file, to gcc
PYTHON = "python3"
MOST_SOURCES = 50  # files of one glob a compiled program's student may hand in

NOT_SUBMITTED = "{glob} is not in the submission{links}"
NONE_SUBMITTED = "no {glob} file is in the submission{links}"
LINKS_NOT_COUNTED = " ({names} {is_are} a link, and a link does not count)"
TOO_FEW = "the submission holds {count} {glob} file{s}, fewer than the {least} it needs"
TOO_MANY = "the submission holds {count} {glob} files, more than the {most} it may"
REFERENCE_FAILS = "{program}: the reference does not build:\n{said}"


@dataclass(frozen=True)
class Language:
    name: str
    title: str
    sources: tuple  # globs of what a student of the language hands in, by default
    compile: tuple  # the build's command template; empty: nothing to build
    run: tuple  # a case's command template
    flags: tuple = ()
    compiled: tuple = ()  # globs of the sources the compiler is given
    simulate: bool = False  # simulate(n, i) cases run by importing the entry
    packages: tuple = ()  # Debian's, for the build and the runs
    similar: str = "python"  # the similarity scan's tokenizer
    preprocess: tuple = ()  # one compiled file's preprocessing, to judge what it turns off

    @property
    def built(self) -> bool:
        return bool(self.compile)


def is_glob(name: str) -> bool:
    return any(character in name for character in "*?[")


def links_not_counted(links: list, glob: str) -> str:
    """What the sentence of a program not handed in adds when a link stands where it would
    be (a student who linked their file rather than copy it): nothing when none does."""
    named = [f"`{escaped(name)}`" for name in links if fnmatch.fnmatchcase(name, glob)]
    if not named:
        return ""
    return LINKS_NOT_COUNTED.format(names=" and ".join(named),
                                    is_are="is" if len(named) == 1 else "are each")


@dataclass(frozen=True)
class Submitted:
    """Files of one kind that a student hands in: a name or a glob, and how many."""
    glob: str
    least: int = 1
    most: int = 1


@dataclass(frozen=True)
class Program:
    name: str  # as cases are named: NAME/CASE
    language: Language
    submit: tuple  # of Submitted, at the top of the submission folder
    entry: str = ""  # the file a case runs (Python); a built program runs its build
    reference: Path = ROOT  # the folder holding the reference's files
    cases_folder: Path = None
    handout: Path = None
    flags: tuple = None  # the compile flags, when the assignment gives its own
    warnings_cost: float = 0.0  # the share of the program's marks a build's warnings cost

    @property
    def built(self) -> bool:
        return self.language.built

    def cases(self) -> list:
        return load_cases(self.name, folder=self.cases_folder or EXPECTED_OUTPUTS / self.name)

    def files(self, folder: Path, links: tuple = ()) -> tuple:
        """(the program's files at the top of `folder`, each kind's in name order; why it is
        not there, one sentence per kind missing or out of bounds). A link is never one, and
        a file counts for the first kind it matches only. `links`: the names of links at the
        top a copy of the folder left out, said where they stand in a program's place."""
        try:
            entries = [(entry.name, entry.stat(follow_symlinks=False).st_mode)
                       for entry in os.scandir(folder)]
        except OSError:
            entries = []
        names = sorted(name for name, mode in entries if stat.S_ISREG(mode))
        links = sorted({*links, *(name for name, mode in entries if stat.S_ISLNK(mode))})
        found, problems = [], []
        for kind in self.submit:
            matching = [name for name in names
                        if fnmatch.fnmatchcase(name, kind.glob) and name not in found]
            if not matching and kind.least == 1:
                problems.append((NOT_SUBMITTED if kind.glob in self.exact_names()
                                 else NONE_SUBMITTED).format(
                                     glob=kind.glob, links=links_not_counted(links, kind.glob)))
            elif len(matching) < kind.least:
                problems.append(TOO_FEW.format(count=len(matching), glob=kind.glob,
                                               s="s" * (len(matching) != 1), least=kind.least))
            elif len(matching) > kind.most:
                problems.append(TOO_MANY.format(count=len(matching), glob=kind.glob,
                                                most=kind.most))
            found += matching
        return found, problems

    def present(self, folder: Path) -> bool:
        return not self.files(folder)[1]

    def exact_names(self) -> list:
        """The files the student must name exactly (no wildcard): where a look-alike helps."""
        return [kind.glob for kind in self.submit if not is_glob(kind.glob)]

    def _compile(self, sources: list, quote=str) -> list:
        """The compile template with its flags, `sources` and the binary put in."""
        flags = list(self.language.flags if self.flags is None else self.flags)
        parts = []
        for part in self.language.compile:
            if part == "{flags}":
                parts += map(quote, flags)
            elif part == "{sources}":
                parts += sources
            else:
                parts.append(quote(part.replace("{binary}", BINARY)))
        return parts

    def compiled(self, files: list) -> dict:
        """{submitted name: the name it is compiled under} of the files the compiler is
        given, in order. A name that begins with - or @ gets a _ in front (more, should
        that name be taken): the compiler's driver passes a file's base name to its stages
        (`-dumpbase NAME`), where @NAME is a response file of options and -NAME an option."""
        taken = set(files)
        names = {}
        for name in files:
            if any(fnmatch.fnmatchcase(name, glob) for glob in self.language.compiled):
                safe = name
                while safe[0] in OPTION_STARTS or (safe != name and safe in taken):
                    safe = "_" + safe
                taken.add(safe)
                names[name] = safe
        return names

    def build_argv(self, files: list) -> list:
        """The build's command: the template with its flags, the submitted files it compiles
        (as ./NAME, under the names `compiled` gives them) and the binary."""
        return self._compile([f"./{name}" for name in self.compiled(files).values()])

    def preprocess_argv(self, compiled: str, clang: bool = False) -> list:
        """The command that preprocesses the compiled file `compiled` (its name in the
        build's folder) with the build's flags, writing to OUTPUT, by gcc or by clang
        (macOS's g++); none for a language whose profile gives no `preprocess`."""
        flags = list(self.language.flags if self.flags is None else self.flags)
        parts = []
        for part in self.language.preprocess:
            parts += (flags if part == "{flags}" else [f"./{compiled}"] if part == "{source}"
                      else [] if part.startswith(GCC_ONLY) and clang
                      else [part.removeprefix(GCC_ONLY)])
        return parts

    def macros_argv(self, source: str, output: str) -> list:
        """The command that writes to `output` the macros the compile's preprocessor defines
        for `source` (an empty file): its compiler and flags alone, with -dM, so that a
        check that adds flags of its own (-Wpedantic drops g++'s __cpp_runtime_arrays) can
        be given the compile's macros back."""
        flags = list(self.language.flags if self.flags is None else self.flags)
        return [self.language.preprocess[0], *flags, "-dM", "-E", "-o", output, source]

    def run_argv(self, case: Case, home: Path, python: str = sys.executable) -> list:
        """The command that runs `case` of this program from `home` (the run's folder)."""
        if case.simulate is not None:
            n, i = case.simulate
            module = Path(self.entry).stem
            code = (f"import sys; sys.path.insert(0, {str(home)!r}); "
                    f"from {module} import simulate; simulate({n}, {i})")
            return [python, "-c", code]
        values = {"{python}": python, "{entry}": str(home / self.entry),
                  "{binary}": str(home / BINARY)}
        return [values.get(part, part) for part in self.language.run] + case.args

    def shell_build(self) -> str:
        """The build as a student types it in their folder (globs left to the shell)."""
        return " ".join(self._compile(list(self.language.compiled), shlex.quote))

    def shell_run(self, case: Case) -> list:
        """The command a student types in their folder to run `case` (the reproduce line)."""
        if case.simulate is not None:
            return [PYTHON, "-c", f"from {Path(self.entry).stem} import simulate; "
                                  f"simulate{case.simulate}"]
        values = {"{python}": PYTHON, "{entry}": self.entry, "{binary}": f"./{BINARY}"}
        return [values.get(part, part) for part in self.language.run] + case.args


def built_reference(program: Program, into: Path) -> Path:
    """The reference, built into the new folder `into` (its files copied there first), or
    itself for a program with nothing to build: the folder a case runs it from. The
    reference is the instructor's, so it is built without a sandbox."""
    if not program.built:
        return program.reference
    files, problems = program.files(program.reference)
    if problems:
        raise ValueError(f"{program.name}: its reference {program.reference}: "
                         + "; ".join(problems))
    into.mkdir(parents=True)
    compiled = program.compiled(files)
    for name in files:
        shutil.copyfile(program.reference / name, into / compiled.get(name, name))
    done = subprocess.run(program.build_argv(files), cwd=into, capture_output=True, text=True)
    if done.returncode:
        raise ValueError(REFERENCE_FAILS.format(program=program.name, said=done.stderr[-2000:]))
    return into
