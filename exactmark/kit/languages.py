"""The languages a program may be written in, as exactmark/kit/languages.toml declares them (the
file says what each template holds), and the kit's own kind of program, a Python one."""

import sys
from pathlib import Path

from exactmark.kit.cases import EXPECTED_OUTPUTS, ROOT
from exactmark.kit.programs import PYTHON, Language, Program, Submitted

if sys.version_info >= (3, 11):
    import tomllib
else:
    import tomli as tomllib

LANGUAGES_FILE = Path(__file__).resolve().parent / "languages.toml"
UNKNOWN_LANGUAGE = "unknown language {name!r} (known: {known})"


def languages() -> dict:
    """The profiles of exactmark/kit/languages.toml, by name: read each time, so that a language an
    instructor adds there is known to every tool at once."""
    data = tomllib.loads(LANGUAGES_FILE.read_text(encoding="utf-8"))
    return {name: Language(name, entry["title"], tuple(entry["sources"]),
                           tuple(entry["compile"]), tuple(entry["run"]),
                           tuple(entry.get("flags", ())), tuple(entry.get("compiled", ())),
                           entry.get("simulate", False),
                           tuple(entry.get("packages", ())), entry.get("similar", name),
                           tuple(entry.get("preprocess", ())))
            for name, entry in data.items()}


def language(name: str) -> Language:
    found = languages()
    if name not in found:
        raise ValueError(UNKNOWN_LANGUAGE.format(name=name, known=", ".join(sorted(found))))
    return found[name]


def python_program(name: str, cases_folder: Path = None, reference: Path = ROOT) -> Program:
    """A Python program as the kit's are: NAME.py, one file handed in, its cases in
    expected_outputs/NAME/ unless said otherwise."""
    entry = f"{name}.py"
    return Program(name, language(PYTHON), (Submitted(entry),), entry, reference,
                   cases_folder or EXPECTED_OUTPUTS / name)
