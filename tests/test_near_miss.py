"""The sentence a student reads beside the diff: one example per kind of near miss, from
a card game's transcript, and the normalisations an assignment may forgive."""

import pytest

from marking.near_miss import NORMALISATIONS, explain, normalise

TRANSCRIPT = (
    "Please enter an integer to feed the seed() function: \n"
    "Deck shuffled, ready to start!\n"
    "]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]\n"
    "\n"
    "Distributing the cards in the deck into 4 stacks.\n"
    "]]]]]]]]    ]]]]]]]]    ]]]]]]]]    ]]]]]]]]\n"
    "\n"
    "No ace in first stack, after it has been turned over.\n"
    "            ]]]]]]]]    ]]]]]]]]    ]]]]]]]]\n"
    "[[[[[[[🂧\n").encode()
TABLE = (
    "Cards left   Frequency\n"
    "     4       19.20%\n"
    "     5        6.95%\n"
    "     6        1.30%\n").encode()
PROMPT = b"Please enter an integer to feed the seed() function: "


def _with(old: bytes, new: bytes, data: bytes = TRANSCRIPT) -> bytes:
    assert old in data, old
    return data.replace(old, new)


def test_identical_outputs_have_no_sentence():
    assert explain(TRANSCRIPT, TRANSCRIPT) == ""
    assert explain(b"", b"", "a crash") == ""


def test_a_prompt_that_lost_its_trailing_space():
    sentence = explain(_with(b"function: \n", b"function:\n"), TRANSCRIPT)
    assert sentence == ("only spaces or tabs at line ends differ: "
                        "line 1 ends with no space where `␠` is expected")


def test_spaces_and_tabs_added_at_a_line_end():
    sentence = explain(_with(b"start!\n", b"start! \t\n"), TRANSCRIPT)
    assert sentence == ("only spaces or tabs at line ends differ: "
                        "line 2 ends with `␠→` where no space is expected")


def test_windows_line_ends():
    sentence = explain(TRANSCRIPT.replace(b"\n", b"\r\n"), TRANSCRIPT)
    assert sentence == "only line ends differ: line 1 ends with \\r\\n where \\n is expected"


def test_line_ends_the_other_way_round():
    sentence = explain(TRANSCRIPT, _with(b"start!\n", b"start!\r\n"))
    assert sentence == "only line ends differ: line 2 ends with \\n where \\r\\n is expected"


def test_a_missing_final_newline():
    sentence = explain(TRANSCRIPT[:-1], TRANSCRIPT)
    assert sentence == ("only the final newline differs: "
                        "the output ends with no newline, the expected output with 1 newline")


def test_one_final_newline_too_many():
    sentence = explain(TRANSCRIPT + b"\n", TRANSCRIPT)
    assert sentence == ("only the final newline differs: "
                        "the output ends with 2 newlines, the expected output with 1 newline")


def test_letter_case():
    sentence = explain(_with(b"Deck shuffled, ready", b"Deck Shuffled, Ready"), TRANSCRIPT)
    assert sentence == ("only letter case differs: line 2 has `Deck Shuffled, Ready to start!` "
                        "where `Deck shuffled, ready to start!` is expected")


def test_a_missing_blank_line():
    sentence = explain(_with(b"]]]]\n\nDistributing", b"]]]]\nDistributing"), TRANSCRIPT)
    assert sentence == "only blank lines differ: a blank line is missing at line 4"


def test_an_extra_blank_line():
    sentence = explain(_with(b"stacks.\n", b"stacks.\n\n"), TRANSCRIPT)
    assert sentence == "only blank lines differ: line 6 is a blank line too many"


def test_a_variation_selector():
    want = "Trumps are ♥\ufe0f this round.\n".encode()
    sentence = explain("Trumps are ♥ this round.\n".encode(), want)
    assert sentence == ("only an emoji's variation selector (U+FE0F) differs: line 1 has "
                        "`Trumps are ♥ this round.` "
                        "where `Trumps are ♥⟨U+FE0F⟩ this round.` is expected")


def test_only_numbers_differ():
    sentence = explain(TABLE, _with(b"19.20%", b"19.00%", TABLE))
    assert sentence == "only numbers differ: line 2 has 19.20 where 19.00 is expected"


def test_a_number_with_its_sign():
    sentence = explain(b"Score: 5 after 3 games\n", b"Score: -5 after 3 games\n")
    assert sentence == "only numbers differ: line 1 has 5 where -5 is expected"


def test_a_number_padded_otherwise_is_more_than_a_number():
    """The spaces that align a column are text: a wider number moves them."""
    sentence = explain(_with(b"      6.95%", b"     16.95%", TABLE), TABLE)
    assert sentence == "line 3: replace `     5       16.95%` with `     5        6.95%`"


def test_the_output_stops_early_at_a_crash():
    got = b"".join(TRANSCRIPT.splitlines(keepends=True)[:4])
    sentence = explain(got, TRANSCRIPT, "a crash")
    assert sentence == "the output stops after line 4 of 10 (a crash)"


def test_the_output_stops_partway_through_a_line():
    sentence = explain(TRANSCRIPT[:70], TRANSCRIPT)
    assert sentence == "the output stops partway through line 2 of 10"


def test_no_output_at_all():
    assert explain(b"", TRANSCRIPT, "the time limit") == (
        "the output is empty; the expected output has 10 lines (the time limit)")


def test_extra_lines_after_the_expected_end():
    sentence = explain(TRANSCRIPT + b"Thanks for playing!\nGoodbye.\n", TRANSCRIPT)
    assert sentence == ("2 extra lines after the expected end, from line 11: "
                        "`Thanks for playing!`")


def test_output_after_a_prompt_that_ends_the_expected_output():
    """End of input at the prompt: the expected output ends mid-line."""
    sentence = explain(PROMPT + b"Goodbye!\n", PROMPT)
    assert sentence == "the output goes on after the expected end of line 1: `Goodbye!⏎`"


def test_lines_in_another_order():
    rows = TABLE.splitlines(keepends=True)
    sentence = explain(b"".join([rows[0], rows[2], rows[1], rows[3]]), TABLE)
    assert sentence == ("the lines are in another order: "
                        "line 2 has `     5        6.95%` where `     4       19.20%` is expected")


def test_one_line_differs():
    sentence = explain(_with(b"has been turned", b"was turned"), TRANSCRIPT)
    assert sentence == ("line 8: replace `No ace in first stack, after it was turned over.` "
                        "with `No ace in first stack, after it has been turned over.`")


def test_one_long_line_is_quoted_around_its_first_difference():
    want = b"Discarding " + b"]" * 500 + b" and the ace.\n"
    sentence = explain(want.replace(b"and the ace", b"and an ace"), want)
    assert sentence.startswith("line 1: replace `…]]]") and len(sentence) < 300, sentence
    assert "]]] and an ace.`" in sentence and "]]] and the ace.`" in sentence, sentence


def test_a_line_that_lost_its_newline_shows_it():
    sentence = explain(b"Deck shuffled, ready to start! ", b"Deck shuffled, ready to start!\n")
    assert sentence == ("line 1: replace `Deck shuffled, ready to start! ` "
                        "with `Deck shuffled, ready to start!⏎`")


def test_two_lines_differing_have_no_sentence():
    got = _with(b"ready", b"set", _with(b"has been turned", b"was turned"))
    assert explain(got, TRANSCRIPT) == ""


def test_empty_output_expected():
    sentence = explain(b"Deck shuffled, ready to start!\n", b"")
    assert sentence == ("1 extra line after the expected end, from line 1: "
                        "`Deck shuffled, ready to start!`")


def test_bytes_that_are_not_utf8_are_escaped():
    sentence = explain(_with("🂧".encode(), b"\xff\xfe"), TRANSCRIPT)
    assert sentence == "line 10: replace `[[[[[[[⟨\\xff⟩⟨\\xfe⟩` with `[[[[[[[🂧`"
    assert explain(b"DECK \xff\n", b"deck \xff\n") == ("only letter case differs: "
                                                      "line 1 has `DECK ⟨\\xff⟩` "
                                                      "where `deck ⟨\\xff⟩` is expected")
    assert explain(b"\xff", b"\xfe") == "line 1: replace `⟨\\xff⟩` with `⟨\\xfe⟩`"


def test_trailing_spaces_and_a_missing_final_newline_are_not_only_one_of_them():
    """Each normalisation alone leaves a difference, so no "only" sentence is true."""
    got = _with(b"start!\n", b"start! \n")[:-1]
    for name in ("trailing_spaces", "final_newline"):
        assert normalise(got, [name]) != normalise(TRANSCRIPT, [name])
    both = ["trailing_spaces", "final_newline"]
    assert normalise(got, both) == normalise(TRANSCRIPT, both)
    sentence = explain(got, TRANSCRIPT)
    assert sentence == "", sentence  # lines 2 and 10 differ: the diff shows them


def test_a_blank_line_holding_spaces_is_said_as_trailing_spaces():
    """Blank lines differ too, but spaces at a line end is the narrower truth."""
    sentence = explain(_with(b"]]]]\n\n", b"]]]]\n  \n"), TRANSCRIPT)
    assert sentence == ("only spaces or tabs at line ends differ: "
                        "line 4 ends with `␠␠` where no space is expected")


def test_a_moved_blank_line_is_said_as_blank_lines_not_order():
    got = _with(b"stacks.\n", b"stacks.\n\n")
    sentence = explain(_with(b"]]]]\n\nDistributing", b"]]]]\nDistributing", got), TRANSCRIPT)
    assert sentence == "only blank lines differ: a blank line is missing at line 4"


def test_swapped_rows_are_said_as_order_not_numbers():
    """Rows 5 and 6 are as wide: swapped, only their numbers differ too."""
    rows = TABLE.splitlines(keepends=True)
    sentence = explain(b"".join([rows[0], rows[1], rows[3], rows[2]]), TABLE)
    assert sentence == ("the lines are in another order: "
                        "line 3 has `     6        1.30%` where `     5        6.95%` is expected")


def test_a_crash_says_why_the_output_is_short_before_any_only():
    """Without the crash it is only the final newline; with it, the crash is what to fix."""
    assert explain(TRANSCRIPT[:-1], TRANSCRIPT, "a crash") == (
        "the output stops partway through line 10 of 10 (a crash)")
    assert explain(b"Cards left: 1", b"Cards left: 12") == (
        "only numbers differ: line 1 has 1 where 12 is expected")
    assert explain(b"Cards left: 1", b"Cards left: 12", "end of input") == (
        "the output stops partway through line 1 of 1 (end of input)")


@pytest.mark.parametrize("name, got, start", [
    pytest.param(name, got, start, id=name) for name, got, start in [
        ("trailing_spaces", _with(b"function: \n", b"function:\n"), "only spaces or tabs"),
        ("line_ends", TRANSCRIPT.replace(b"\n", b"\r\n"), "only line ends"),
        ("final_newline", TRANSCRIPT[:-1], "only the final newline"),
        ("blank_lines", _with(b"stacks.\n", b"stacks.\n\n"), "only blank lines"),
        ("letter_case", _with(b"Deck", b"DECK"), "only letter case")]])
def test_a_sentence_of_equality_agrees_with_its_normalisation(name, got, start):
    sentence = explain(got, TRANSCRIPT)
    assert sentence.startswith(start), sentence
    assert normalise(got, [name]) == normalise(TRANSCRIPT, [name]), sentence


@pytest.mark.parametrize("name, data, normalised", [
    pytest.param(name, data, normalised, id=name) for name, data, normalised in [
        ("trailing_spaces", b"Deck shuffled \t\n\n  ]]]] \n[[ ", b"Deck shuffled\n\n  ]]]]\n[["),
        ("line_ends", b"a\r\nb\r\r\nc\r", b"a\nb\r\nc\r"),
        ("final_newline", b"4 stacks.", b"4 stacks.\n"),
        ("final_newline", b"4 stacks.\n\n\n", b"4 stacks.\n"),
        ("final_newline", b"", b""),
        ("blank_lines", b"\nDeck\n \t\n\r\n\nshuffled\n  ", b"Deck\nshuffled\n"),
        ("blank_lines", b"Deck\n\nshuffled", b"Deck\nshuffled"),
        ("letter_case", "DECK Ã 🂧 ".encode() + b"\xff", "deck ã 🂧 ".encode() + b"\xff")]])
def test_each_normalisation(name, data, normalised):
    assert NORMALISATIONS[name](data) == normalised


def test_the_normalisations_are_the_five_named():
    assert set(NORMALISATIONS) == {"trailing_spaces", "line_ends", "final_newline",
                                   "blank_lines", "letter_case"}


def test_normalise_applies_line_ends_first_whatever_the_order_asked():
    """Trailing spaces before `\\r\\n` go only once the `\\r` has; the final newline is
    added only once a last line of spaces has gone."""
    data = b"Deck shuffled \r\n  "
    names = ["final_newline", "trailing_spaces", "line_ends"]
    assert normalise(data, names) == b"Deck shuffled\n"
    assert normalise(data, reversed(names)) == b"Deck shuffled\n"
    one_by_one = data
    for name in names:
        one_by_one = normalise(one_by_one, [name])
    assert one_by_one != b"Deck shuffled\n"  # the order asked would not do
    assert normalise(data, []) == data


def test_an_unknown_normalisation_is_named():
    with pytest.raises(ValueError, match="unknown normalisation: 'trailing_space' "):
        normalise(TRANSCRIPT, ["line_ends", "trailing_space"])


def _table(rows: int) -> bytes:
    return b"".join(b"%6d | %8.2f%%\n" % (row, row % 997 / 10) for row in range(rows))


def test_4_mib_of_nul_bytes_costs_a_few_passes():
    """No timing asserted: the test suite's run time shows a quadratic step."""
    nul = b"\0" * (4 << 20)
    sentence = explain(nul, b"hello\n")
    assert sentence.startswith("line 1: replace `⟨U+0000⟩") and len(sentence) < 1_000, sentence
    middle = nul[:2 << 20] + b"x" + nul[(2 << 20) + 1:]
    sentence = explain(middle, nul)
    assert sentence.startswith("line 1: replace `…⟨U+0000⟩") and "x" in sentence, sentence
    assert explain(nul, nul + b"\n").startswith("only the final newline differs")
    assert explain(nul[:2 << 20], nul, "the time limit") == (
        "the output stops partway through line 1 of 1 (the time limit)")
    assert explain(nul + b" ", nul).startswith("only spaces or tabs")


def test_100_000_lines_cost_a_few_passes():
    want = _table(100_000)
    assert explain(_with(b" 90000 |    27.00%", b" 90000 |    27.05%", want), want) == (
        "only numbers differ: line 90001 has 27.05 where 27.00 is expected")
    assert explain(_with(b" 90000 |", b" 90000 :", want), want) == (
        "line 90001: replace ` 90000 :    27.00%` with ` 90000 |    27.00%`")
    rows = want.splitlines(keepends=True)
    assert explain(b"".join(reversed(rows)), want).startswith("the lines are in another order")
    assert explain(b"".join(rows[:50_000]), want, "a crash") == (
        "the output stops after line 50000 of 100000 (a crash)")
    assert explain(want.replace(b"\n", b" \n"), want).startswith("only spaces or tabs")
    assert explain(want.replace(b"%\n", b"%\n\n"), want) == (
        "only blank lines differ: line 2 is a blank line too many")
    assert explain(want + want, want).startswith("100000 extra lines after the expected end")
    assert explain(want.replace(b"%", b"p"), want) == ""
