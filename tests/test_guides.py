"""Every command README.md and the guides (docs/guide/*.md) show is run, so that what a
newcomer types works: the convention is docs/guide/maintaining.md's "The guides'
commands are tested". Each file's blocks run in order in a scratch copy of the kit;
a block marked not run has its commands checked without running them. The README stays
the way in (at most README_LINES lines), and every link of the README, the guides and
the handouts' index reaches a file, and a heading where it names one."""

import re
import shlex
import shutil
import subprocess
import sys
from dataclasses import dataclass, field
from pathlib import Path

import pytest

if sys.version_info >= (3, 11):
    import tomllib
else:
    import tomli as tomllib

ROOT = Path(__file__).resolve().parent.parent
README = ROOT / "README.md"
GUIDES = ROOT / "docs" / "guide"
INDEX = ROOT / "docs" / "README.md"
README_LINES = 250
TIMEOUT = 600  # seconds for one block: a class of two and an autograder's run take far less

FENCE = re.compile(r"^```(\S*)\s*(.*)$")
NOT_RUN = re.compile(r"^<!-- not run: (.+) -->$")
# A guide a test of its own follows step by step (docs/guide/assignment.md): that test runs it.
RUN_BY = re.compile(r"^<!-- run by (tests/\w+\.py)\b", re.MULTILINE)
WRITTEN = re.compile(r"\bfile=(\S+)")
PROMPT = "$ "
ELLIPSIS = "..."
# What a command block prints between its commands, to tell their outputs apart.
MARK = "@@guide-command {index} {status}@@"
MARKED = re.compile(r"^@@guide-command (\d+) (\d+)@@$", re.MULTILINE)
LINK = re.compile(r"\[[^\]]*\]\(([^)\s]+)\)")
OPTION = re.compile(r"^--[\w-]+")
EXTRA = re.compile(r"^\.\[([\w-]+)\]$")
TARGET = re.compile(r"^make (\S+)", re.MULTILINE)  # a line of `make help`
# A block that is shell but not `console`, and a line in it that reads as a command.
SHELL = ("", "sh", "bash", "shell")
COMMAND_LIKE = re.compile(r"^(?:exactmark|make|python3?|pip|bash) ")

NOT_SHOWN = ("{guide}:{line}: `{command}` shows the line {shown!r}, which its output does "
             "not hold:\n{output}")
FAILED = "{guide}:{line}: `{command}` exited with status {status}:\n{output}"
UNKNOWN_OPTION = "{guide}:{line}: `{command}`: exactmark {name} --help has no {option}"
UNKNOWN_EXTRA = "{guide}:{line}: `{command}`: pyproject.toml has no extra {extra!r}"
NO_TARGET = "{guide}:{line}: `{command}`: `make help` lists no target {target}"
NO_FILE = "{guide}:{line}: `{command}`: the kit has no {name}"
DRY_FAILED = "{guide}:{line}: `{command}`: make -n exited with status {status}:\n{output}"
BROKEN_LINK = "{page}: the link {link} reaches no {what}"


@dataclass
class Command:
    text: str
    line: int  # in its file, for the message that names it
    shown: list = field(default_factory=list)  # the output lines the guide shows after it


@dataclass
class Block:
    """A fenced block of a guide: commands to run, or not to run (`reason`), or a file
    the reader writes (`path`, `text`)."""
    line: int
    commands: list = field(default_factory=list)
    reason: str = ""
    path: str = ""
    text: str = ""


def guides() -> list:
    """The README and every guide there is (docs/guide/assignment.md comes from another
    branch: whichever guides exist are run)."""
    return [README, *sorted(GUIDES.glob("*.md"))]


def run_by(guide: Path) -> str:
    """The test that runs `guide` step by step, if one does ("" if this file runs it)."""
    found = RUN_BY.search(guide.read_text(encoding="utf-8"))
    return found.group(1) if found else ""


def shown_name(path: Path) -> str:
    return str(path.relative_to(ROOT))


def blocks(text: str) -> list:
    """The fenced blocks of `text` that the tests read: `console` blocks and blocks that
    name a file (```toml file=PATH)."""
    found, lines, number = [], text.splitlines(), 0
    while number < len(lines):
        opening = FENCE.match(lines[number])
        if not opening:
            number += 1
            continue
        body_start = number + 1
        end = next(i for i in range(body_start, len(lines)) if lines[i].startswith("```"))
        body = lines[body_start:end]
        before = NOT_RUN.match(lines[number - 1]) if number else None
        written = WRITTEN.search(opening.group(2))
        if opening.group(1) == "console":
            found.append(Block(number + 1, commands(body, body_start + 1),
                               reason=before.group(1) if before else ""))
        elif written:
            found.append(Block(number + 1, path=written.group(1), text="\n".join(body) + "\n"))
        number = end + 1
    return found


def commands(body: list, first_line: int) -> list:
    """The commands of a console block's lines, each with the output lines shown after it;
    a command whose line ends in a backslash goes on on the next."""
    found = []
    continued = False
    for offset, line in enumerate(body):
        if continued:
            found[-1].text += "\n" + line
        elif line.startswith(PROMPT):
            found.append(Command(line[len(PROMPT):], first_line + offset))
        elif found and line.strip():
            found[-1].shown.append(line)
        continued = (continued or line.startswith(PROMPT)) and line.endswith("\\")
    return found


def matches(shown: str, output: str) -> bool:
    """Whether a line of `output` holds `shown`, where `...` stands for any text."""
    if shown.strip() == ELLIPSIS:
        return True
    pattern = ".*".join(re.escape(part) for part in shown.strip().split(ELLIPSIS))
    return re.search(pattern, output, re.MULTILINE) is not None


class Scratch:
    """A copy of the kit, as a commit would hold it, with a HOME of its own, and the
    programs the guides name put on PATH: `exactmark` and `python3` are this interpreter
    (exactmark with the copy's package), and `make` installs nothing."""

    def __init__(self, folder: Path):
        self.kit, self.home, self.bin = folder / "kit", folder / "home", folder / "bin"
        listed = subprocess.run(["git", "-C", str(ROOT), "ls-files", "--cached", "--others",
                                 "--exclude-standard"], capture_output=True, text=True,
                                check=True).stdout.splitlines()
        for name in listed:
            if (ROOT / name).is_file():
                (self.kit / name).parent.mkdir(parents=True, exist_ok=True)
                shutil.copy2(ROOT / name, self.kit / name)
        self.home.mkdir()
        self.bin.mkdir()
        self.program("exactmark", f'PYTHONPATH={shlex.quote(str(self.kit))} '
                                  f'exec {shlex.quote(sys.executable)} -m exactmark "$@"')
        for name in ("python3", "python"):
            self.program(name, f'exec {shlex.quote(sys.executable)} "$@"')
        self.environment = {"PATH": f"{self.bin}:/usr/local/bin:/usr/bin:/bin",
                            "HOME": str(self.home), "LANG": "C.UTF-8",
                            "MAKEFLAGS": f"STAMP= VENV_PYTHON={sys.executable}"}

    def program(self, name: str, line: str):
        path = self.bin / name
        path.write_text(f"#!/bin/sh\n{line}\n", encoding="utf-8")
        path.chmod(0o755)

    def place(self, path: str) -> Path:
        """Where a file a guide names lies in the scratch: `~/` is its HOME's."""
        return self.home / path[2:] if path.startswith("~/") else self.kit / path

    def run(self, script: str) -> subprocess.CompletedProcess:
        return subprocess.run(["bash", "-c", script], cwd=self.kit, env=self.environment,
                              capture_output=True, text=True, timeout=TIMEOUT)

    def run_block(self, block: Block) -> list:
        """Run a block's commands in one shell: (command, status, output) for each, its
        stdout and stderr together."""
        script = "\n".join(f"{{\n{command.text}\n}} 2>&1\nstatus=$?\n"
                           f"echo; echo \"{MARK.format(index=index, status='$status')}\""
                           for index, command in enumerate(block.commands))
        done = self.run(script)
        outputs = MARKED.split(done.stdout)
        ran = [(block.commands[int(index)], int(status), output[:-1])
               for output, index, status in zip(outputs[0::3], outputs[1::3], outputs[2::3])]
        missing = block.commands[len(ran):]
        assert not missing, f"`{missing[0].text}` did not run:\n{done.stdout}{done.stderr}"
        return ran


def problems_running(guide: Path, scratch: Scratch, block: Block) -> list:
    name = shown_name(guide)
    found = []
    for command, status, output in scratch.run_block(block):
        said = dict(guide=name, line=command.line, command=command.text, output=output)
        if status != 0:
            found.append(FAILED.format(status=status, **said))
        found += [NOT_SHOWN.format(shown=shown, **said)
                  for shown in command.shown if not matches(shown, output)]
    return found


def problems_not_running(guide: Path, scratch: Scratch, block: Block) -> list:
    """Each command of a block not run, checked as far as can be without running it."""
    found = []
    for command in block.commands:
        said = dict(guide=shown_name(guide), line=command.line, command=command.text)
        words = shlex.split(command.text, comments=True)
        if words[0] == "make":
            listed = TARGET.findall(scratch.run("make help").stdout)
            found += [NO_TARGET.format(target=word, **said) for word in words[1:]
                      if "=" not in word and not word.startswith("-") and word not in listed]
            done = scratch.run(shlex.join(["make", "-n", *words[1:]]))
            if done.returncode:
                found.append(DRY_FAILED.format(status=done.returncode,
                                               output=done.stdout + done.stderr, **said))
        elif words[0] == "exactmark":
            helped = scratch.run(shlex.join(["exactmark", words[1], "--help"]))
            assert helped.returncode == 0, helped.stderr
            found += [UNKNOWN_OPTION.format(name=words[1], option=option, **said)
                      for word in words[2:] for option in OPTION.findall(word)
                      if not re.search(re.escape(option) + r"(?![\w-])", helped.stdout)]
        elif words[:2] == ["pip", "install"]:
            extras = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))[
                "tool"]["setuptools"]["dynamic"]["optional-dependencies"]
            found += [UNKNOWN_EXTRA.format(extra=extra, **said)
                      for word in words[2:] for extra in EXTRA.findall(word)
                      if extra not in extras]
        elif words[0] == "python3" and words[1].endswith(".py"):
            if not (scratch.kit / words[1]).is_file():
                found.append(NO_FILE.format(name=words[1], **said))
    return found


EXAMPLE = """\
Write the file:

```toml file=~/warm-up/warm-up.toml
marks = 10
```

```console
$ exactmark mark right \\
    --assignment seeded
...
Score: ... s
$ ls
```

<!-- not run: it needs the network -->
```console
$ pip install '.[mark]'
```
"""


def test_the_convention_reads_files_commands_their_output_and_blocks_not_run():
    written, run, not_run = blocks(EXAMPLE)
    assert (written.path, written.text) == ("~/warm-up/warm-up.toml", "marks = 10\n")
    assert [(command.text, command.line, command.shown) for command in run.commands] == [
        ("exactmark mark right \\\n    --assignment seeded", 8, ["...", "Score: ... s"]),
        ("ls", 12, [])]
    assert run.reason == "" and not_run.reason == "it needs the network"
    assert matches("Score: ... s", "report\nScore: 13.00/13.00 in 2.5 s\n")
    assert not matches("Score: ... s", "Score: 13.00/13.00\n")


@pytest.mark.parametrize("guide", [guide for guide in guides() if not run_by(guide)],
                         ids=shown_name)
def test_every_command_of_the_guide_works_as_shown(guide, tmp_path):
    found = blocks(guide.read_text(encoding="utf-8"))
    assert any(block.commands for block in found), f"{shown_name(guide)} shows no command"
    scratch = Scratch(tmp_path)
    problems = []
    for block in found:
        if block.path:
            scratch.place(block.path).parent.mkdir(parents=True, exist_ok=True)
            scratch.place(block.path).write_text(block.text, encoding="utf-8")
        elif block.reason:
            problems += problems_not_running(guide, scratch, block)
        else:
            problems += problems_running(guide, scratch, block)
    assert not problems, "\n\n".join(problems)


@pytest.mark.parametrize("guide", [guide for guide in guides() if run_by(guide)],
                         ids=shown_name)
def test_a_guide_run_by_its_own_test_is_read_by_it(guide):
    """The test a guide names runs that guide: it exists and reads the guide's path."""
    test = ROOT / run_by(guide)
    assert test.is_file(), f"{shown_name(guide)} is run by {run_by(guide)}, which does not exist"
    assert guide.name in test.read_text(encoding="utf-8"), \
        f"{run_by(guide)} never reads {shown_name(guide)}"


@pytest.mark.parametrize("guide", guides(), ids=shown_name)
def test_a_command_is_shown_in_a_console_block(guide):
    """A command shown in a block of another kind (a `$ ` line, or a plain block's line
    that begins as a command does) would escape the test above."""
    text = guide.read_text(encoding="utf-8").splitlines()
    fence, hidden = None, []
    for number, line in enumerate(text, 1):
        if line.startswith("```"):
            fence = None if fence is not None else line[3:].split(" ")[0]
        elif fence not in (None, "console") and (line.startswith(PROMPT) or (
                fence in SHELL and COMMAND_LIKE.match(line))):
            hidden.append(f"{shown_name(guide)}:{number}: {line}")
    assert not hidden, "commands outside a console block:\n" + "\n".join(hidden)


def test_the_readme_is_the_way_in():
    lines = README.read_text(encoding="utf-8").splitlines()
    assert len(lines) <= README_LINES, f"README.md has {len(lines)} lines: move some to a guide"
    linked = {Path(link).name for link in LINK.findall("\n".join(lines))}
    assert {path.name for path in GUIDES.glob("*.md")} <= linked, "a guide the README never names"


def heading_anchor(heading: str) -> str:
    """The anchor GitHub gives a heading: lower case, punctuation dropped, spaces dashes."""
    return re.sub(r"[^\w\- ]", "", heading.strip().lower()).replace(" ", "-")


def anchors(page: Path) -> set:
    return {heading_anchor(line.lstrip("#")) for line in page.read_text(encoding="utf-8")
            .splitlines() if re.match(r"#{1,6} ", line)}


@pytest.mark.parametrize("page", [INDEX, *guides()], ids=shown_name)
def test_every_link_reaches_its_file_and_heading(page):
    broken = []
    for link in LINK.findall(page.read_text(encoding="utf-8")):
        if re.match(r"^[a-z]+:", link):
            continue  # a web address
        path, _, anchor = link.partition("#")
        target = (page.parent / path).resolve() if path else page
        if not target.exists():
            broken.append(BROKEN_LINK.format(page=shown_name(page), link=link, what="file"))
        elif anchor and target.is_file() and anchor not in anchors(target):
            broken.append(BROKEN_LINK.format(page=shown_name(page), link=link, what="heading"))
    assert not broken, "\n".join(broken)
