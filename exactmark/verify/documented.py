"""What a team that writes its own cases can know: the lines the student pack and the
handouts show. A mistake is catchable by such a team only when some case catches it
every line of whose screens (its .out and .err) a document shows; verify hands in the kit
cases of each group that are so (and are no worked example), and each mistake the group
names must be caught by one of them.

A line is compared by its shape, not its bytes: the cards, the numbers and the words
quoted in it change with the deal and the move, and a team writes them from the board
it is shown (`🂾 cannot go on homecell h: ...` and `🃑 cannot go on homecell h: ...` are
one shape); so do the prompts before a reply on its line, and how many cards a pile shows.
"""

import re
from pathlib import Path

from exactmark.marking.student_cases import examples_of

CARD = re.compile("[\U0001F0A0-\U0001F0FF]")
CARDS = re.compile("🂠(?: 🂠)+")
PROMPTS = re.compile(r"^(?:> )+")
NUMBER = re.compile(r"\d+")
QUOTED = re.compile(r"'[^']*'")
RUN = re.compile(r"([\[\]])\1+")
HANDOUT = "{name}.md"  # the assignment's own handout, beside the program's in docs/
CASE_TEXT = (".out", ".err")  # what a case expects, which the team writes from the documents
TEXT = (".md", ".out", ".err")  # the pack's and the handouts' files a team reads

UNSHOWN = "{case}: no document a team receives shows its line {line!r}"


def shape(line: str) -> str:
    """The line with what changes with the deal and the move made one: cards, numbers,
    quoted words, a pile's count of cards, the prompts before it."""
    line = PROMPTS.sub("", line)
    line = CARDS.sub("🂠", CARD.sub("🂠", line))
    return RUN.sub(r"\1", NUMBER.sub("0", QUOTED.sub("''", line)))


def shapes(texts) -> set:
    """The shapes of every line of `texts`."""
    return {shape(line) for text in texts for line in text.splitlines()}


def documents(assignment, program: str, pack: dict) -> list:
    """The texts a team of `assignment` receives for `program`: the student pack's (its
    README and worked examples), the program's handout, the assignment's own (the
    handout in docs/ named as the assignment), and each group's worked example."""
    declared = assignment.programs[program]
    texts = [data.decode("utf-8", "replace") for path, data in sorted(pack.items())
             if Path(path).suffix in TEXT]
    handouts = [declared.handout] if declared.handout else []
    if declared.handout:
        handouts.append(declared.handout.parent / HANDOUT.format(name=assignment.name))
    texts += [path.read_text(encoding="utf-8") for path in handouts if path.is_file()]
    for group in assignment.student_groups(program):
        texts += [case.file(suffix).read_text(encoding="utf-8", errors="replace")
                  for case in examples_of(group) for suffix in CASE_TEXT
                  if case.file(suffix).is_file()]
    return texts


def unshown(case, known: set) -> str:
    """Why `case` (a golden case) could not be written from the documents whose line
    shapes are `known`: its first line no document shows, said; "" when every line is."""
    for suffix in CASE_TEXT:
        path = case.file(suffix)
        if not path.is_file():
            continue
        for line in path.read_text(encoding="utf-8", errors="replace").splitlines():
            if shape(line) not in known:
                return UNSHOWN.format(case=case.name, line=line)
    return ""
