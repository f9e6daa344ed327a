"""The similarity scan of a class (exactmark/classroom/similarity.py), as examples: who copied whom comes
first, above a family of programs grown from one ancestor; a pair similar in several programs is
said so and comes first among the same score; the reference programs everyone may start from
never count; a program handed in under a look-alike name is compared and said; a student's code
reaches the pages escaped, and no file a student can hand in stops the scan."""

import csv
import re
import textwrap
from itertools import count
from datetime import datetime
from pathlib import Path
from types import SimpleNamespace

import pytest

pytest.importorskip("copydetect", reason="the similarity scan needs copydetect: "
                    "pip install -r requirements-class.txt")

from markupsafe import escape  # noqa: E402  (as the pages escape: jinja2's)

from bench.similarity_scale import COPY, DISGUISED_COPY, make_class, scanned  # noqa: E402
from exactmark.classroom import kept_programs, pages, sheet, similarity  # noqa: E402
from exactmark.classroom.similarity import FOLDER, HIGH, MOST_BYTES, SCORE, scan  # noqa: E402
from exactmark.kit.assignment import load  # noqa: E402
from exactmark.kit.cases import ROOT  # noqa: E402

PROGRAM = "solitaire_1.py"
REFERENCE = ROOT / PROGRAM
HOSTILE = "</pre><script>alert(1)</script>"

OWN_WORK = textwrap.dedent('''\
    import random

    def shuffle_deck(seed):
        deck = list(range(32))
        random.Random(seed).shuffle(deck)
        return deck

    def count_aces(deck):
        aces = 0
        for card in deck:
            if card % 8 == 0:
                aces += 1
        return aces

    def deal_rows(deck, rows):
        table = [[] for _ in range(rows)]
        for index, card in enumerate(deck):
            table[index % rows].append(card)
        return table

    def main():
        seed = int(input("Seed: "))
        deck = shuffle_deck(seed)
        for row in deal_rows(deck, 4):
            print(" ".join(str(card) for card in row), count_aces(row))

    if __name__ == "__main__":
        main()
    ''')

OTHER_WORK = textwrap.dedent('''\
    from random import Random

    SUITS = "CDHS"

    class Game:
        def __init__(self, seed):
            self.cards = [(suit, rank) for suit in SUITS for rank in range(1, 9)]
            Random(seed).shuffle(self.cards)
            self.piles = {suit: [] for suit in SUITS}

        def play(self):
            while self.cards:
                suit, rank = self.cards.pop()
                if rank == 1 or self.piles[suit]:
                    self.piles[suit].append(rank)
            return sum(len(pile) for pile in self.piles.values())

    try:
        print("Cards placed:", Game(int(input())).play())
    except ValueError:
        print("Please type a whole number")
    ''')


# What students add of their own to a program: six functions, each unlike the others.
EXTRAS = [textwrap.dedent(extra) for extra in ('''
    def best_run(cards):
        longest, current = 1, 1
        for before, after in zip(cards, cards[1:]):
            current = current + 1 if after == before + 1 else 1
            longest = max(longest, current)
        return longest
    ''', '''
    def parse_moves(text):
        moves = []
        for word in text.split(","):
            source, _, target = word.strip().partition("->")
            if source and target:
                moves.append((int(source), int(target)))
        return moves
    ''', '''
    class Score:
        def __init__(self):
            self.history = {}

        def record(self, player, points):
            self.history.setdefault(player, []).append(points)
            return sum(self.history[player])
    ''', '''
    def show_table(table, width=3):
        lines = []
        while any(table):
            row = [pile.pop() if pile else None for pile in table]
            lines.append("".join("." * width if c is None else str(c).rjust(width) for c in row))
        return "\\n".join(reversed(lines))
    ''', '''
    def ask(prompt, tries=3):
        try:
            return int(input(prompt))
        except ValueError:
            if tries > 1:
                return ask(prompt, tries - 1)
            raise SystemExit("no number given")
    ''', '''
    def merge_piles(left, right):
        merged, i, j = [], 0, 0
        while i < len(left) and j < len(right):
            if left[i] <= right[j]:
                merged.append(left[i])
                i += 1
            else:
                merged.append(right[j])
                j += 1
        return merged + left[i:] + right[j:]
    ''')]


def renamed(code: str) -> str:
    """What a student who copied does first: other names, other comments."""
    for old, new in (("deck", "cards"), ("card", "c"), ("aces", "n_aces"), ("table", "grid"),
                     ("rows", "how_many"), ("seed", "s"), ("index", "i")):
        code = code.replace(old, new)
    return "# my own solution\n" + code


def oversized(kib: int) -> str:
    """OWN_WORK with a table of results pasted below it, as a student who saved a solver's
    output might hand in: exactly `kib` KiB, larger than any program a course asks for."""
    rows = (f"WINS_{n} = [{', '.join(str(n * 16 + i) for i in range(16))}]\n" for n in count())
    text = OWN_WORK
    while len(text) < kib * 1024:
        text += next(rows)
    return text[:kib * 1024]


def class_of(tmp_path: Path, programs: dict) -> dict:
    """A folder for each student, holding their programs: {student: {file: text or bytes}}."""
    submissions = {}
    for student, files in programs.items():
        folder = tmp_path / "class" / student
        folder.mkdir(parents=True)
        for name, content in files.items():
            (folder / name).parent.mkdir(parents=True, exist_ok=True)
            (folder / name).write_bytes(content if isinstance(content, bytes)
                                        else content.encode())
        submissions[student] = folder
    return submissions


def test_the_pair_who_copied_comes_first_with_a_clearly_higher_score(tmp_path):
    submissions = class_of(tmp_path, {"alice": {PROGRAM: OWN_WORK},
                                      "bob": {PROGRAM: renamed(OWN_WORK)},
                                      "carol": {PROGRAM: OTHER_WORK}})
    pairs = scan(submissions, [PROGRAM], [REFERENCE], tmp_path / "out").pairs

    first = pairs[0]
    assert (first.first, first.second, first.program) == ("alice", "bob", PROGRAM)
    assert first.score > 0.9
    assert all(pair.score < first.score - 0.5 for pair in pairs[1:])
    assert [pair.score for pair in pairs] == sorted((pair.score for pair in pairs), reverse=True)
    assert (tmp_path / "out" / first.view).is_file()
    assert first.view.startswith(FOLDER + "/")


def listed(pairs) -> list:
    """The pairs as a person reads the list: who, which program, the score and the share in
    full, in whole percents."""
    return [(pair.first, pair.second, pair.program, round(100 * pair.score),
             round(100 * pair.share)) for pair in pairs]


def marked_characters(page: str) -> dict:
    """How many characters of a page's code are marked darker (only the two hold them) and
    lighter (other versions hold them too)."""
    found = {"darker": 0, "lighter": 0}
    for common, text in re.findall(r'<mark( class="common")?>(.*?)</mark>', page, re.S):
        found["lighter" if common else "darker"] += len(text)
    return found


def test_a_disguised_copy_stands_above_a_family_grown_from_one_ancestor(tmp_path):
    """fam0..fam3 each started from the same program (found online, say) and added a function
    of their own; dave copied carol's program under other names, and each added their own.
    Counted in full, a family pair shares more than the copy (as the issue's 77.6% and 76.9%);
    weighed by how many versions hold the code, the copy comes first, clearly."""
    family = {f"fam{n}": {PROGRAM: OWN_WORK + EXTRAS[n]} for n in range(4)}
    submissions = class_of(tmp_path, {**family, "carol": {PROGRAM: OTHER_WORK + EXTRAS[4]},
                                      "dave": {PROGRAM: renamed(OTHER_WORK) + EXTRAS[5]}})
    pairs = scan(submissions, [PROGRAM], [REFERENCE], tmp_path / "out").pairs

    copy, *rest = pairs
    assert (copy.first, copy.second) == ("carol", "dave"), listed(pairs)
    relatives = [pair for pair in rest if {pair.first, pair.second} <= set(family)]
    assert len(relatives) == 6, listed(pairs)
    assert max(pair.share for pair in relatives) > copy.share, listed(pairs)
    assert all(pair.score < copy.score - 0.1 for pair in rest), listed(pairs)

    out = tmp_path / "out"
    copied = marked_characters((out / copy.view).read_text(encoding="utf-8"))
    assert copied["darker"] > copied["lighter"], copied
    page = (out / relatives[0].view).read_text(encoding="utf-8")
    inherited = marked_characters(page)
    assert inherited["lighter"] > inherited["darker"], inherited
    assert escape(SCORE.format(percent=100 * relatives[0].score,
                               share=100 * relatives[0].share)) in page


def test_a_ring_of_three_copies_still_scores_in_full(tmp_path):
    """Code three versions hold counts half, in what the other holds and in the file's size
    alike: three copies of one program still hold all of each other, and come first."""
    ring = {name: {PROGRAM: OWN_WORK} for name in ("ann", "ben", "cy")}
    submissions = class_of(tmp_path, {**ring, "dot": {PROGRAM: OTHER_WORK}})
    pairs = scan(submissions, [PROGRAM], [REFERENCE], tmp_path / "out").pairs

    assert listed(pairs[:3]) == [("ann", "ben", PROGRAM, 100, 100),
                                 ("ann", "cy", PROGRAM, 100, 100),
                                 ("ben", "cy", PROGRAM, 100, 100)]
    assert all(pair.score < 0.5 for pair in pairs[3:]), listed(pairs)


def test_a_pair_similar_in_several_programs_is_said_so_and_first_among_the_same_score(tmp_path):
    """ann and ben hand in the same one.py; yan and zoe the same one.py and the same two.py: at
    the same score (100%), yan and zoe come first, each of their pairs naming the other."""
    submissions = class_of(tmp_path, {
        "ann": {"one.py": OWN_WORK, "two.py": EXTRAS[0]},
        "ben": {"one.py": OWN_WORK, "two.py": EXTRAS[1]},
        "yan": {"one.py": OTHER_WORK, "two.py": EXTRAS[2] + EXTRAS[3]},
        "zoe": {"one.py": OTHER_WORK, "two.py": EXTRAS[2] + EXTRAS[3]}})
    pairs = scan(submissions, ["one.py", "two.py"], [REFERENCE], tmp_path / "out").pairs

    assert [(pair.first, pair.second, pair.program, pair.also) for pair in pairs[:3]] == [
        ("yan", "zoe", "one.py", (("two.py", 1.0),)),
        ("yan", "zoe", "two.py", (("one.py", 1.0),)),
        ("ann", "ben", "one.py", ())], listed(pairs)
    assert all(pair.score < HIGH and not pair.also for pair in pairs[3:]), listed(pairs)
    page = (tmp_path / "out" / pairs[0].view).read_text(encoding="utf-8")
    assert "The same two are also similar in two.py (100%)." in page


SEEDED = load("seeded")
RENAME_ANY = ("the same name but for letter case, spaces, punctuation or a copy mark such as "
              "(1)")


@pytest.mark.parametrize("handed_in, why", [
    ("Solitaire_2.py", RENAME_ANY),
    ("solitaire_2 (1).py", RENAME_ANY),
    ("work/solitaire_2.py", "the exact name, in the folder work"),
    ("Work/Solitaire 2.py", RENAME_ANY + ", in the folder Work"),
    ("solitare_2.py", "a name spelt nearly like it")])
def test_a_program_handed_in_under_a_look_alike_name_is_compared_and_said(tmp_path, handed_in,
                                                                          why):
    """gus hands in ann's solitaire_2.py as HANDED_IN: the marker marks only the exact name,
    but the class keeps that file in the program's place, and the scan compares it and says
    which file it took and why."""
    handed = class_of(tmp_path, {"ann": {"solitaire_1.py": OWN_WORK, "solitaire_2.py": OTHER_WORK},
                                 "gus": {"solitaire_1.py": EXTRAS[0] + EXTRAS[1],
                                         handed_in: OTHER_WORK}})
    kept = {student: tmp_path / "kept" / student for student in handed}
    for student, folder in handed.items():
        kept[student].parent.mkdir(exist_ok=True)
        kept_programs.keep(folder, kept[student], SEEDED.programs)
    found = scan(kept, list(SEEDED.programs), [REFERENCE], tmp_path / "out")

    taken = f"{handed_in}, taken for solitaire_2.py: {why}"
    assert found.taken == {("gus", "solitaire_2"): taken}
    assert found.left_out == {}
    copy = found.pairs[0]
    assert (copy.first, copy.second, copy.program, copy.score) == ("ann", "gus", "solitaire_2",
                                                                     1.0)
    page = (tmp_path / "out" / copy.view).read_text(encoding="utf-8")
    assert f"This file is {escape(taken)}." in page


def test_a_look_alike_is_kept_only_while_the_program_is_not_there(tmp_path):
    """gus renames Solitaire_2.py to solitaire_2.py and the class is marked again: his program
    is what is kept, and nothing is said of a look-alike."""
    folder = class_of(tmp_path, {"gus": {"Solitaire_2.py": OTHER_WORK}})["gus"]
    kept = tmp_path / "kept"
    kept_programs.keep(folder, kept, SEEDED.programs)
    assert kept_programs.taken(kept) == {"solitaire_2": [("Solitaire_2.py", "solitaire_2.py")]}

    (folder / "Solitaire_2.py").rename(folder / "solitaire_2.py")
    kept_programs.keep(folder, kept, SEEDED.programs)
    assert kept_programs.taken(kept) == {}
    assert sorted(path.name for path in kept.iterdir()) == ["solitaire_2"]
    assert (kept / "solitaire_2").read_text() == OTHER_WORK


def test_similarity_csv_and_the_summary_say_where_else_a_pair_is_high(tmp_path):
    submissions = class_of(tmp_path, {
        "yan": {"one.py": OTHER_WORK, "two.py": EXTRAS[2] + EXTRAS[3]},
        "zoe": {"one.py": OTHER_WORK, "two.py": EXTRAS[2] + EXTRAS[3]}})
    found = scan(submissions, ["one.py", "two.py"], [REFERENCE], tmp_path)
    sheet.write_similarity(tmp_path / "similarity.csv", found.pairs)

    with open(tmp_path / "similarity.csv", newline="", encoding="utf-8") as file:
        assert list(csv.reader(file)) == [
            ["program", "student_a", "student_b", "score", "share_in_full", "also_high_in"],
            ["one.py", "yan", "zoe", "1.0000", "1.0000", "two.py 1.0000"],
            ["two.py", "yan", "zoe", "1.0000", "1.0000", "one.py 1.0000"]]
    pages.write_summary(tmp_path, [], [], found, pages.View(SEEDED, datetime.now(), False), {})
    summary = (tmp_path / "summary.html").read_text(encoding="utf-8")
    assert "yan and zoe<br>also similar in two.py (100.0%)</td>" in summary
    assert "yan and zoe<br>also similar in one.py (100.0%)</td>" in summary
    assert "A pair similar in several programs says so" in summary


def test_the_summary_names_the_look_alike_compared_in_a_programs_place(tmp_path):
    handed = class_of(tmp_path, {"ann": {"solitaire_2.py": OTHER_WORK},
                                 "gus": {"solitaire_2 (1).py": OTHER_WORK}})
    for student, folder in handed.items():
        kept_programs.keep(folder, tmp_path / student, SEEDED.programs)
    found = scan({student: tmp_path / student for student in handed}, list(SEEDED.programs),
                 [REFERENCE], tmp_path / "out")
    students = [SimpleNamespace(student=SimpleNamespace(name=name), refused=None)
                for name in handed]

    assert pages.coverage(students, found, SEEDED) == [
        {"program": "solitaire_1", "compared": [],
         "left_out": [("ann", "not handed in"), ("gus", "not handed in")]},
        {"program": "solitaire_2",
         "compared": [("ann", ""), ("gus", f"solitaire_2 (1).py, taken for solitaire_2.py: "
                                           f"{RENAME_ANY}")],
         "left_out": []}]


def test_starting_from_the_reference_program_is_not_flagged(tmp_path):
    """dave hands in the reference as it is, erin adds a function to it: they share only what
    everyone may share. Without the reference as shared code, the same pair would top the list."""
    reference = REFERENCE.read_text()
    submissions = class_of(tmp_path, {"dave": {PROGRAM: reference},
                                      "erin": {PROGRAM: reference + "\n\n" + OWN_WORK}})

    flagged = scan(submissions, [PROGRAM], [REFERENCE], tmp_path / "out").pairs
    assert all(pair.score < 0.2 for pair in flagged)

    unshared = scan(submissions, [PROGRAM], [], tmp_path / "unshared").pairs
    assert unshared[0].score > 0.9


def test_each_program_is_compared_only_with_the_same_program(tmp_path):
    """frank's solitaire_2.py is gina's solitaire_1.py: different programs, never a pair; hal has
    no solitaire_1.py and is left out of its pairs."""
    submissions = class_of(tmp_path, {"frank": {PROGRAM: OTHER_WORK, "solitaire_2.py": OWN_WORK},
                                      "gina": {PROGRAM: OWN_WORK, "solitaire_2.py": OTHER_WORK},
                                      "hal": {"solitaire_2.py": renamed(OTHER_WORK)}})
    pairs = scan(submissions, [PROGRAM, "solitaire_2.py"], [REFERENCE], tmp_path / "out").pairs

    assert [(pair.first, pair.second, pair.program) for pair in pairs[:1]] == [
        ("gina", "hal", "solitaire_2.py")]
    assert all(pair.score < 0.5 for pair in pairs[1:])
    assert not any("hal" in (pair.first, pair.second) and pair.program == PROGRAM
                   for pair in pairs)


def test_code_and_names_reach_the_page_escaped(tmp_path):
    hostile = (f"# {HOSTILE}\nWARNING = '{HOSTILE}'\n" + OWN_WORK).replace(
        "print(", f"print('{HOSTILE}', ")
    name = "<img src=x onerror=alert(2)>"
    submissions = class_of(tmp_path, {"alice": {PROGRAM: hostile},
                                      name: {PROGRAM: renamed(hostile)}})
    pairs = scan(submissions, [PROGRAM], [REFERENCE], tmp_path / "out").pairs

    page = (tmp_path / "out" / pairs[0].view).read_text(encoding="utf-8")
    assert "<script>alert(1)</script>" not in page
    assert "&lt;/pre&gt;&lt;script&gt;alert(1)&lt;/script&gt;" in page
    assert name not in page and "&lt;img src=x onerror=alert(2)&gt;" in page
    assert "<script" not in page.lower()


def test_characters_that_would_hide_code_are_drawn(tmp_path):
    """A bidi override (the "Trojan Source" trick) or a terminal escape shows as what it is."""
    tricky = OWN_WORK.replace("aces = 0", "aces = 0  # \u202e ;)\x1b[2J")
    submissions = class_of(tmp_path, {"alice": {PROGRAM: tricky}, "bob": {PROGRAM: tricky}})
    pairs = scan(submissions, [PROGRAM], [REFERENCE], tmp_path / "out").pairs

    page = (tmp_path / "out" / pairs[0].view).read_text(encoding="utf-8")
    assert "\u202e" not in page and "\x1b" not in page
    assert "⟨U+202E⟩" in page and "⟨U+001B⟩[2J" in page


def test_binary_empty_undecodable_and_huge_files_do_not_stop_the_scan(tmp_path):
    huge = (OWN_WORK * (5 * 1024 * 1024 // len(OWN_WORK) + 1)).encode()
    submissions = class_of(tmp_path, {
        "alice": {PROGRAM: OWN_WORK},
        "binary": {PROGRAM: bytes(range(256)) * 64},
        "empty": {PROGRAM: b""},
        "latin1": {PROGRAM: "# écrit à la main\n".encode("latin-1") + OTHER_WORK.encode()},
        "huge": {PROGRAM: huge}})
    pairs = scan(submissions, [PROGRAM], [REFERENCE], tmp_path / "out").pairs

    assert {pair.first for pair in pairs} | {pair.second for pair in pairs} <= {
        "alice", "huge", "latin1"}
    huge_pair = next(pair for pair in pairs if {"alice", "huge"} == {pair.first, pair.second})
    page = (tmp_path / "out" / huge_pair.view).read_text(encoding="utf-8")
    assert f"Only the first {MOST_BYTES // 1024} KiB" in page


def test_an_oversized_program_is_compared_in_part_and_the_scan_says_so(tmp_path):
    """Only the first MOST_BYTES of alice's 256 KiB program are compared: the class's summary
    (from `cut`) and the pair's page say how large it is and how much of it was compared."""
    submissions = class_of(tmp_path, {"alice": {PROGRAM: oversized(256)},
                                      "bob": {PROGRAM: OWN_WORK}})
    found = scan(submissions, [PROGRAM], [REFERENCE], tmp_path / "out")

    kib = MOST_BYTES // 1024
    assert kib < 256
    assert found.cut == {("alice", PROGRAM): f"256 KiB: only its first {kib} KiB were compared"}
    page = (tmp_path / "out" / found.pairs[0].view).read_text(encoding="utf-8")
    assert page.count(f"Only the first {kib} KiB of this file (256 KiB) were compared") == 1


def test_a_copy_of_an_oversized_program_is_still_found(tmp_path):
    """bob hands in alice's 256 KiB program as it is, carol under other names: the part compared
    is enough to put their pairs first, dave's own work stays far below."""
    program = oversized(256)
    submissions = class_of(tmp_path, {"alice": {PROGRAM: program}, "bob": {PROGRAM: program},
                                      "carol": {PROGRAM: renamed(program)},
                                      "dave": {PROGRAM: OTHER_WORK}})
    pairs = scan(submissions, [PROGRAM], [REFERENCE], tmp_path / "out").pairs

    assert [(pair.first, pair.second) for pair in pairs[:3]] == [
        ("alice", "bob"), ("alice", "carol"), ("bob", "carol")]
    assert pairs[0].score == 1.0
    assert all(pair.score > 0.9 for pair in pairs[:3])
    assert all(pair.score < 0.5 for pair in pairs if "dave" in (pair.first, pair.second))


def test_a_class_of_one_has_no_pairs(tmp_path):
    submissions = class_of(tmp_path, {"alice": {PROGRAM: OWN_WORK}})
    assert scan(submissions, [PROGRAM], [REFERENCE], tmp_path / "out").pairs == []
    assert scan({}, [PROGRAM], [REFERENCE], tmp_path / "out").pairs == []
    assert not (tmp_path / "out").exists()


def test_most_bounds_the_pages_and_a_new_scan_leaves_no_old_page(tmp_path):
    submissions = class_of(tmp_path, {f"student{n}": {PROGRAM: OWN_WORK} for n in range(5)})
    out = tmp_path / "out"
    assert len(scan(submissions, [PROGRAM], [REFERENCE], out).pairs) == 10
    pairs = scan(submissions, [PROGRAM], [REFERENCE], out, most=3).pairs

    assert len(pairs) == 10, "every pair is listed; only the first `most` get a page"
    assert [bool(pair.view) for pair in pairs] == [True] * 3 + [False] * 7
    assert sorted(page.name for page in (out / FOLDER).iterdir()) == sorted(
        Path(pair.view).name for pair in pairs[:3])


def test_least_cuts_the_list_below_a_score(tmp_path):
    half = OWN_WORK[:len(OWN_WORK) // 2]
    submissions = class_of(tmp_path, {"alice": {PROGRAM: OWN_WORK},
                                      "bob": {PROGRAM: renamed(OWN_WORK)},
                                      "dave": {PROGRAM: OTHER_WORK + half}})
    every = scan(submissions, [PROGRAM], [REFERENCE], tmp_path / "out").pairs
    close = scan(submissions, [PROGRAM], [REFERENCE], tmp_path / "out", least=0.9).pairs
    assert [(pair.first, pair.second) for pair in close] == [("alice", "bob")]
    assert len(every) == 3 and min(pair.score for pair in every) < 0.9


def test_the_scan_says_which_programs_it_left_out_and_why(tmp_path):
    submissions = class_of(tmp_path, {"alice": {PROGRAM: OWN_WORK},
                                      "binary": {PROGRAM: b"\0" * 10},
                                      "nothing": {},
                                      "linked": {}})
    (submissions["linked"] / PROGRAM).symlink_to(submissions["alice"] / PROGRAM)
    found = scan(submissions, [PROGRAM], [REFERENCE], tmp_path / "out")
    assert found.left_out == {
        ("binary", PROGRAM): "it holds a NUL byte, so it is not a program",
        ("nothing", PROGRAM): "not handed in",
        ("linked", PROGRAM): "a link, not a file"}
    assert found.pairs == [] and found.cut == {}


def counted_comparisons(monkeypatch) -> list:
    """The pairs the scan compares from now on, as (program, first, second)."""
    compared, compare = [], similarity._compare
    monkeypatch.setattr(similarity, "_compare", lambda program, names, *sides, **drawn: (
        compared.append((program, *names)) or compare(program, names, *sides, **drawn)))
    return compared


def test_only_the_pairs_that_share_code_are_compared(tmp_path, monkeypatch):
    """carol and dan hand in the reference program, all of it code everyone may share: of the
    4 students' 6 pairs, only alice and bob's shares anything the scan compares."""
    reference = REFERENCE.read_text(encoding="utf-8")
    submissions = class_of(tmp_path, {"alice": {PROGRAM: OWN_WORK},
                                      "bob": {PROGRAM: renamed(OWN_WORK)},
                                      "carol": {PROGRAM: reference}, "dan": {PROGRAM: reference}})
    compared = counted_comparisons(monkeypatch)
    pairs = scan(submissions, [PROGRAM], [REFERENCE], tmp_path / "out").pairs

    assert compared == [(PROGRAM, "alice", "bob")]
    assert [(pair.first, pair.second) for pair in pairs] == [("alice", "bob")]


def test_code_every_student_holds_still_pairs_them_all(tmp_path, monkeypatch):
    """Five students each add a function of their own to the same program (not the reference):
    what all five hold is not dropped from the index as MOSS's -m or Dolos's share of files
    would drop it, so all 5 * 4 / 2 = 10 pairs are compared and listed, as comparing every
    pair lists them."""
    submissions = class_of(tmp_path, {f"student{n}": {PROGRAM: OTHER_WORK + EXTRAS[n]}
                                      for n in range(5)})
    compared = counted_comparisons(monkeypatch)
    pairs = scan(submissions, [PROGRAM], [REFERENCE], tmp_path / "out").pairs

    assert len(compared) == 10 and len(pairs) == 10, listed(pairs)
    assert pairs == scan(submissions, [PROGRAM], [REFERENCE], tmp_path / "every",
                         every_pair=True).pairs


def test_the_index_lists_every_pair_comparing_every_pair_lists_on_a_generated_class(
        tmp_path, monkeypatch):
    """A class as bench/similarity_scale.py makes it: 40 students with the sample solutions,
    tests/wrong/'s mistakes made in them, one student in 5 copying another's program and one
    in 5 copying and disguising it. The index compares fewer than the 2 * 40 * 39 / 2 = 1560
    pairs, and lists the same pairs, scores and pages, byte for byte, as comparing every
    pair; each copy among them."""
    students = make_class(tmp_path / "class", 40, copies=5, disguises=5)
    every = scanned(tmp_path / "class", tmp_path / "every", every_pair=True)
    compared = counted_comparisons(monkeypatch)
    indexed = scanned(tmp_path / "class", tmp_path / "indexed", every_pair=False)

    assert len(compared) == len(indexed.pairs) < 1560
    lost = [pair for pair in every.pairs if pair not in indexed.pairs]
    assert not lost, f"comparing every pair lists these, the index does not: {listed(lost)}"
    assert indexed == every
    pages = {page.name: page.read_bytes() for page in (tmp_path / "every" / FOLDER).iterdir()}
    assert len(pages) == 20
    assert {page.name: page.read_bytes()
            for page in (tmp_path / "indexed" / FOLDER).iterdir()} == pages
    copies = {(file, *sorted((student, how.split()[-1])))
              for student, files in students.items() for file, how in files.items()
              if how.startswith((COPY.format(student=""), DISGUISED_COPY.format(student="")))}
    assert copies, "the generated class has copies"
    assert copies <= {(pair.program, pair.first, pair.second) for pair in indexed.pairs}


def test_a_match_below_the_most_best_scores_so_far_keeps_no_pieces_for_a_page():
    """Two pages (most=2): after 0.5 and 0.9, the two best are 0.5 and 0.9, so 0.4 cannot be
    among the first two, 0.5 (a tie) can; after 0.95 the two best are 0.9 and 0.95, so 0.6
    cannot. With least=0.7, 0.5 is not listed and so never one of the best."""
    drawn = similarity._Drawn(most=2, least=0.0)
    assert [drawn.wanted(score) for score in (0.5, 0.9, 0.4, 0.5, 0.95, 0.6)] == [
        True, True, False, True, True, False]
    drawn = similarity._Drawn(most=2, least=0.7)
    assert [drawn.wanted(score) for score in (0.5, 0.8, 0.75, 0.6, 0.72)] == [
        True, True, True, False, False]
    assert not similarity._Drawn(most=0, least=0.0).wanted(1.0)


def test_fewer_pages_draw_the_first_pairs_the_same(tmp_path):
    """The family of four (4 * 3 / 2 = 6 pairs) and the disguised copy: the first two pages
    are the same bytes whether 2 or 20 pairs get one."""
    family = {f"fam{n}": {PROGRAM: OWN_WORK + EXTRAS[n]} for n in range(4)}
    submissions = class_of(tmp_path, {**family, "carol": {PROGRAM: OTHER_WORK + EXTRAS[4]},
                                      "dave": {PROGRAM: renamed(OTHER_WORK) + EXTRAS[5]}})
    few = scan(submissions, [PROGRAM], [REFERENCE], tmp_path / "few", most=2).pairs
    many = scan(submissions, [PROGRAM], [REFERENCE], tmp_path / "many").pairs

    assert len(many) == 7 and [pair.view for pair in few[:2]] == [pair.view for pair in many[:2]]
    for pair in few[:2]:
        assert ((tmp_path / "few" / pair.view).read_bytes()
                == (tmp_path / "many" / pair.view).read_bytes())
