"""exactmark/verify/documented.py: a case a team could write from what it receives, the student pack and
the handouts, every line of its screens shown there but for the cards, numbers and words
the deal and the move change."""

from exactmark.kit.cases import Case
from exactmark.kit.assignment import load
from exactmark.marking.student_cases import copied, examples_of
from exactmark.pack.build import contents
from exactmark.verify.documented import documents, shape, shapes, unshown

GOLF_TESTS = load("golf_tests")
REFUSED = "> 🂾 cannot go on homecell h: only the stock's top card goes on the empty homecell."


def test_a_line_is_known_by_its_shape():
    assert shape(REFUSED) == shape(REFUSED.replace("> 🂾", "🃑"))
    assert shape("tableau pile 3: 🂪 🂣 🃒") == shape("tableau pile 7: 🂡")
    assert shape("homecell h:     [[[[[[🂪") == shape("homecell h:     [[🃑")
    assert shape("Unknown command 'foo'. Type help for the commands.") == shape(
        "Unknown command '1 2 3 4'. Type help for the commands.")
    assert shape("There is no move to undo.") != shape("Nothing to undo.")
    assert shape("homecell h:     🂩") != shape("homecell h:     [🂩"), "one card, or more"


def test_a_case_with_a_message_no_document_shows_could_not_be_written(tmp_path):
    known = shapes(documents(GOLF_TESTS, "patience", contents(GOLF_TESTS)))
    (tmp_path / "undo.out").write_text(f"Golf, seed 3\n{REFUSED}\n> Nothing to undo.\n> ",
                                       encoding="utf-8")
    assert unshown(Case("patience", "undo", tmp_path), known) == (
        "undo: no document a team receives shows its line '> Nothing to undo.'")
    (tmp_path / "undo.out").write_text(f"Golf, seed 3\n{REFUSED}\n> There is no move to undo.\n"
                                       "> ", encoding="utf-8")
    assert unshown(Case("patience", "undo", tmp_path), known) == ""


def test_every_line_of_the_kit_s_cases_of_golf_tests_is_shown_to_the_teams():
    """Each kit case but the worked examples (and those mostly one) could be written by a
    team from the pack and the handouts: docs/golf_tests.md gives the help, the refusals
    and the messages that no worked example shows (each kit case that tests one failed
    this before the handout gave them)."""
    known = shapes(documents(GOLF_TESTS, "patience", contents(GOLF_TESTS)))
    golden = {case.name: case for case in GOLF_TESTS.programs["patience"].cases()}
    for group in GOLF_TESTS.student_groups("patience"):
        written = [golden[name] for name in group.kit_cases
                   if not copied(golden[name], examples_of(group))]
        assert len(written) >= group.asked
        assert [unshown(case, known) for case in written if unshown(case, known)] == []
