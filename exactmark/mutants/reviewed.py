"""The reviewed file of a program's mutants, beside its rule map
(docs/rules/PROGRAM.mutants.toml for the kit; beside the assignment file when the program's
handout has no rule map): the sha256 of each reference file as last analysed (`[files]`),
the figures of that run, the mutants that no case can kill, each with why
(`[[equivalent]]`: id, file, line, before, after, reason), and the code no marked case may
pin, each part with why (`[[unmarked]]`: file, scope or one mutant's id, reason): what the
handout does not ask for, or asks for in a way no case can show, as `unmarked_rules` says it
for a rule.
`--write` rewrites it."""

import ast
import hashlib
import json
import sys
from dataclasses import dataclass, field
from pathlib import Path

from exactmark.kit.rules import rules_file

if sys.version_info >= (3, 11):
    import tomllib
else:
    import tomli as tomllib

SUFFIX = ".mutants.toml"
BAD_FILE = "{path}: {problem}"
BAD_ENTRY = "{path}: each [[equivalent]] needs an id, a file, a line, before, after and a reason"
BAD_UNMARKED = ("{path}: each [[unmarked]] needs a file, a reason and, for part of a Python "
                "file, a scope (a function, class or module-level name: Session.hint) or a "
                "mutant's id")
NO_FILE = "{path}: [[unmarked]] names {file}, which is no file of the reference"
NO_SCOPE = "{path}: [[unmarked]] names {scope!r} in {file}, which has no such function, class or name"
STALE = ("{path}: the reference changed: run make mutants PROGRAM={program} ARGS=--write "
         "and review ({files})")
HEADER = ("# Mutants of {program}: `make mutants PROGRAM={program}` (docs/guide/mutants.md).\n"
          "# [files]: each reference file's sha256 when last analysed (a test fails when one\n"
          "# differs); [figures]: that run's; [[equivalent]]: mutants no input can tell from\n"
          "# the reference, each with why; [[unmarked]]: code no marked case may pin, each\n"
          "# with why (both reviewed by hand; --write keeps them).\n")
FIGURES = ("mutants", "killed_twice", "pinned_once", "survived", "equivalent", "unmarked",
           "seconds")
ENTRY_KEYS = ("id", "file", "line", "before", "after", "reason")
UNMARKED_KEYS = ("file", "scope", "reason")  # and "id" for one mutant instead of a scope
WHOLE_FILE = ""  # an [[unmarked]] scope: every line of its file


class ReviewedError(ValueError):
    pass


@dataclass
class Reviewed:
    path: Path
    files: dict = field(default_factory=dict)  # file -> sha256
    figures: dict = field(default_factory=dict)
    equivalent: dict = field(default_factory=dict)  # id -> its entry (ENTRY_KEYS)
    unmarked: list = field(default_factory=list)  # entries (UNMARKED_KEYS), in file order


def path_of(assignment, program) -> Path:
    """Where the program's reviewed file lies."""
    if program.handout is not None and rules_file(program.handout).is_file():
        return rules_file(program.handout).with_name(program.name + SUFFIX)
    return assignment.path.with_name(program.name + SUFFIX)


def digests(texts: dict) -> dict:
    return {path: hashlib.sha256(text.encode("utf-8")).hexdigest()
            for path, text in sorted(texts.items())}


def read(path: Path) -> Reviewed:
    """The file at `path`; an empty one when there is none."""
    if not path.is_file():
        return Reviewed(path)
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError) as problem:
        raise ReviewedError(BAD_FILE.format(path=path, problem=problem)) from None
    entries = data.get("equivalent", [])
    if not isinstance(entries, list) or not all(
            isinstance(entry, dict) and all(key in entry for key in ENTRY_KEYS)
            and isinstance(entry["reason"], str) and entry["reason"].strip()
            for entry in entries):
        raise ReviewedError(BAD_ENTRY.format(path=path))
    unmarked = data.get("unmarked", [])
    if not isinstance(unmarked, list) or not all(
            isinstance(entry, dict) and isinstance(entry.get("file"), str)
            and isinstance(entry.get("scope", WHOLE_FILE), str)
            and isinstance(entry.get("id", ""), str)
            and isinstance(entry.get("reason"), str) and entry["reason"].strip()
            for entry in unmarked):
        raise ReviewedError(BAD_UNMARKED.format(path=path))
    return Reviewed(path, dict(data.get("files", {})), dict(data.get("figures", {})),
                    {entry["id"]: entry for entry in entries},
                    [dict(entry, scope=entry.get("scope", WHOLE_FILE)) for entry in unmarked])


def _scopes(tree) -> dict:
    """Qualified name -> (first line, last line) of each function and class of a module,
    decorators included, and of each name a module-level statement assigns."""
    found = {}

    def visit(node, prefix):
        for child in ast.iter_child_nodes(node):
            if isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                name = prefix + child.name
                first = min([child.lineno] + [made.lineno for made in child.decorator_list])
                found[name] = (first, child.end_lineno)
                visit(child, name + ".")
            elif not prefix and isinstance(child, (ast.Assign, ast.AnnAssign)):
                targets = child.targets if isinstance(child, ast.Assign) else [child.target]
                for target in targets:
                    if isinstance(target, ast.Name):
                        found[target.id] = (child.lineno, child.end_lineno)
    visit(tree, "")
    return found


def unmarked_places(reviewed: Reviewed, texts: dict) -> dict:
    """(file, line) -> the [[unmarked]] entry whose scope holds that line, and a listed
    mutant's id -> its entry. A file or scope the reference does not have is an error: the
    list must not go stale unseen (an id that is no mutant's any more matches nothing)."""
    found = {}
    for entry in reviewed.unmarked:
        file, scope = entry["file"], entry["scope"]
        if file not in texts:
            raise ReviewedError(NO_FILE.format(path=reviewed.path, file=file))
        if entry.get("id"):
            found[entry["id"]] = entry
            continue
        if scope == WHOLE_FILE:
            first, last = 1, texts[file].count("\n") + 1
        else:
            try:
                first, last = _scopes(ast.parse(texts[file])).get(scope) or (None, None)
            except SyntaxError:
                first = None
            if first is None:
                raise ReviewedError(NO_SCOPE.format(path=reviewed.path, scope=scope, file=file))
        for line in range(first, last + 1):
            found.setdefault((file, line), entry)
    return found


def stale(reviewed: Reviewed, texts: dict) -> list:
    """The files whose text is not the one `reviewed` was written from (added, changed
    or gone)."""
    now = digests(texts)
    return sorted(path for path in set(now) | set(reviewed.files)
                  if now.get(path) != reviewed.files.get(path))


def stale_message(reviewed: Reviewed, texts: dict, program: str) -> str:
    """The sentence saying `reviewed` is stale, or "" when it is not."""
    changed = stale(reviewed, texts)
    return STALE.format(path=reviewed.path, program=program,
                        files=", ".join(changed)) if changed else ""


def _value(value) -> str:
    """A TOML value: a JSON string is a TOML basic string."""
    return json.dumps(value, ensure_ascii=False) if isinstance(value, str) else repr(value)


def dumps(program: str, files: dict, figures: dict, equivalent: list, unmarked=()) -> str:
    lines = [HEADER.format(program=program), "[files]"]
    lines += [f"{_value(path)} = {_value(digest)}" for path, digest in sorted(files.items())]
    lines += ["", "[figures]"]
    lines += [f"{name} = {_value(figures[name])}" for name in FIGURES if name in figures]
    for entry in unmarked:
        lines += ["", "[[unmarked]]"]
        lines += [f"{key} = {_value(entry[key])}" for key in ("id",) + UNMARKED_KEYS
                  if key in entry and (key != "scope" or not entry.get("id"))]
    for entry in equivalent:
        lines += ["", "[[equivalent]]"]
        lines += [f"{key} = {_value(entry[key])}" for key in ENTRY_KEYS]
    return "\n".join(lines) + "\n"


def write(reviewed: Reviewed, program: str, texts: dict, figures: dict, mutants: list) -> list:
    """Rewrite the file: the files' digests and `figures` now, the unmarked code as listed,
    and each equivalent whose id is still a mutant's (its line and text as they are now,
    its reason kept). Returns the ids of those dropped."""
    by_id = {mutant.id: mutant for mutant in mutants}
    kept = [dict(entry, line=by_id[key].line, before=by_id[key].before, after=by_id[key].after)
            for key, entry in reviewed.equivalent.items() if key in by_id]
    reviewed.path.parent.mkdir(parents=True, exist_ok=True)
    reviewed.path.write_text(dumps(program, digests(texts), figures, kept, reviewed.unmarked),
                             encoding="utf-8")
    return sorted(key for key in reviewed.equivalent if key not in by_id)
