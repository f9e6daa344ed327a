"""The handouts in docs/ and every reference to them: the index names handouts
that exist, every handout path a file of the repository mentions exists, every
section a module cites next to a handout's name is a heading of that handout, no
file points outside the repository for a specification, and every worked
example a handout names is in expected_outputs/."""

import ast
import os
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
DOCS = ROOT / "docs"
INDEX = DOCS / "README.md"

# Not the repository's own files: version control, virtual environments, caches,
# and the students' solutions (.gitignore).
SKIPPED_DIRS = {".git", "__pycache__", ".pytest_cache", ".hypothesis", "solutions"}

HANDOUT_PATH = re.compile(r"(?<![\w./-])docs/[\w./-]*?\.md\b")
# A section cited as "§4.5", "§3-§5" (two citations) or "section 6".
CITATION = re.compile(r"§\s?(\d+(?:\.\d+)*)|\bsection (\d+(?:\.\d+)*)")
# "## 6. Viewer", "### 4.10 End of game, play again"
NUMBERED_HEADING = re.compile(r"^#{2,6} +(\d+(?:\.\d+)*)\.? ", re.MULTILINE)
EXAMPLE_PATH = re.compile(r"expected_outputs/[\w./-]*[\w/]")
# Where the specifications lived before they were copied into docs/: outside the
# repository, so a fresh clone never has them.
OUTSIDE = ("../shared", "shared/spec", "shared/golden", "/work/shared")


def repository_files(*suffixes: str) -> list:
    """Every file of the repository whose name ends with one of `suffixes` (all
    files when none is given), outside .git, the .venv* folders and the caches."""
    found = []
    for folder, dirs, files in os.walk(ROOT):
        dirs[:] = sorted(d for d in dirs if d not in SKIPPED_DIRS and not d.startswith(".venv"))
        found += [Path(folder, name) for name in sorted(files)
                  if not suffixes or name.endswith(suffixes)]
    return found


def shown(path: Path) -> str:
    return str(path.relative_to(ROOT))


def handouts_in_index() -> list:
    return HANDOUT_PATH.findall(INDEX.read_text(encoding="utf-8"))


def numbered_headings(handout: Path) -> set:
    return set(NUMBERED_HEADING.findall(handout.read_text(encoding="utf-8")))


def cited_sections(text: str) -> list:
    """(handout, section) for every section cited in `text`: a citation belongs to
    the handout named last before it, or to the first one named when none is."""
    names = [(m.start(), m.group()) for m in HANDOUT_PATH.finditer(text)]
    cited = []
    for citation in CITATION.finditer(text):
        before = [name for start, name in names if start < citation.start()]
        handout = before[-1] if before else names[0][1]
        cited.append((handout, citation.group(1) or citation.group(2)))
    return cited


def module_docstring(path: Path) -> str:
    return ast.get_docstring(ast.parse(path.read_text(encoding="utf-8"))) or ""


def test_every_handout_the_index_names_exists():
    named = handouts_in_index()
    assert len(named) >= 4, f"{shown(INDEX)} names only {named}"
    missing = [name for name in named if not (ROOT / name).is_file()]
    assert not missing, f"{shown(INDEX)} names handouts that do not exist: {missing}"


def test_the_index_names_every_handout():
    named = set(handouts_in_index())
    unnamed = [shown(path) for path in sorted(DOCS.glob("*.md"))
               if path != INDEX and shown(path) not in named]
    assert not unnamed, f"{shown(INDEX)} does not name {unnamed}"


def test_every_handout_path_mentioned_in_the_repository_exists():
    missing = [f"{shown(path)}: {name}"
               for path in repository_files(".py", ".md", ".toml")
               for name in HANDOUT_PATH.findall(path.read_text(encoding="utf-8", errors="replace"))
               if not (ROOT / name).is_file()]
    assert not missing, "handouts that do not exist:\n" + "\n".join(missing)


def test_every_section_a_module_cites_is_a_heading_of_its_handout():
    missing, checked = [], 0
    for path in repository_files(".py"):
        docstring = module_docstring(path)
        if not HANDOUT_PATH.search(docstring):
            continue
        for handout, section in cited_sections(docstring):
            checked += 1
            if not (ROOT / handout).is_file():
                missing.append(f"{shown(path)}: {handout} (no such handout) §{section}")
            elif section not in numbered_headings(ROOT / handout):
                missing.append(f"{shown(path)}: {handout} has no section {section}")
    assert checked > 0, "no module docstring cites a section of a handout"
    assert not missing, "sections cited that are not headings:\n" + "\n".join(missing)


def test_no_file_points_outside_the_repository_for_a_specification():
    this_file = Path(__file__).resolve()  # it names them, to look for them
    found = [f"{shown(path)}: {outside}"
             for path in repository_files() if path.resolve() != this_file
             for outside in OUTSIDE
             if outside.encode() in path.read_bytes()]
    assert not found, "references outside the repository:\n" + "\n".join(found)


def test_every_worked_example_a_handout_names_exists():
    missing, checked = [], 0
    for name in handouts_in_index():
        if not (ROOT / name).is_file():
            continue  # the index names a handout that does not exist: the first test says so
        text = (ROOT / name).read_text(encoding="utf-8")
        for example in EXAMPLE_PATH.findall(text):
            checked += 1
            if not (ROOT / example).exists():
                missing.append(f"{name}: {example}")
    assert checked > 0, "no handout names a worked example"
    assert not missing, "worked examples that do not exist:\n" + "\n".join(missing)


def test_the_handouts_index_states_each_assignment_s_marks_deadline_and_late_rule():
    from exactmark.kit.assignment import load, names

    index = (DOCS / "README.md").read_text(encoding="utf-8")
    for name in names():
        assignment = load(name)
        row = next((line for line in index.splitlines() if line.startswith(f"| `{name}` |")), None)
        assert row, f"docs/README.md: no row for the assignment {name}"
        cells = [cell.strip() for cell in row.strip("|").split("|")]
        assert cells[2] == f"{assignment.marks:g}", f"{name}: marks {cells[2]} in docs/README.md"
        if assignment.deadline is None:
            assert cells[3] == "none", f"{name}: docs/README.md gives a deadline it does not have"
            continue
        when = assignment.deadline.strftime("%Y-%m-%d %H:%M")
        assert cells[3] == f"{when}, {assignment.deadline.tzinfo.key}", f"{name}: deadline {cells[3]}"
        days, cap = assignment.late.days, assignment.late.cap_per_day
        assert f"up to {days} days late" in cells[4] and f"{cap:.0%} per late day" in cells[4]
        assert "any part of 24 hours" in cells[4] and "full day" not in cells[4]
