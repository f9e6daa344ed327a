"""The sentence a student reads beside the diff: one example per kind of near miss, from
a card game's transcript, and the normalisations an assignment may forgive."""

import pytest

from exactmark.marking.near_miss import NORMALISATIONS, NearMiss, explain, missed, normalise, regions

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
    assert sentence == ("only variation selectors (as U+FE0F after an emoji) differ: line 1 has "
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
    assert sentence == "the output stops after line 4 of 10 (a crash ended the run)"


def test_the_output_stops_partway_through_a_line():
    sentence = explain(TRANSCRIPT[:70], TRANSCRIPT)
    assert sentence == "the output stops partway through line 2 of 10"


def test_no_output_at_all():
    assert explain(b"", TRANSCRIPT, "the time limit") == (
        "the output is empty (the time limit ended the run); the expected output has 10 lines")


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


def test_a_debug_line_before_a_correct_table():
    assert missed(b"DEBUG: 5000 games simulated\n" + TABLE, TABLE) == NearMiss(
        "1 line too many at line 1, otherwise as expected: `DEBUG: 5000 games simulated`",
        "extra lines")
    assert explain(b"\n" + TABLE, TABLE) == ("only blank lines differ: "  # the narrower truth
                                             "line 1 is a blank line too many")


def test_debug_lines_in_the_middle_of_a_transcript():
    got = _with(b"stacks.\n", b"stacks.\nstacks = [13, 13, 13, 13]\n\x1b[31mok\x1b[0m\n")
    assert explain(got, TRANSCRIPT) == ("2 lines too many at line 6, otherwise as expected: "
                                        "`stacks = [13, 13, 13, 13]`")


def test_an_expected_line_missing_in_the_middle():
    assert missed(_with(b"Distributing the cards in the deck into 4 stacks.\n", b""),
                  TRANSCRIPT) == NearMiss("1 line missing at line 5, otherwise as expected: "
                                          "`Distributing the cards in the deck into 4 stacks.`",
                                          "missing lines")


def test_column_widths_differ():
    """The numbers and words are right; the spaces between them are not."""
    got = b"Cards left\tFrequency\n4 19.20%\n5 6.95%\n6 1.30%\n"
    assert missed(got, TABLE) == NearMiss(
        "only the spacing within lines differs, on 4 lines: line 1 has `Cards left→Frequency` "
        "where `Cards left   Frequency` is expected", "spacing within lines")


def test_spacing_is_not_said_when_a_word_differs_too():
    got = _with(b"     5        6.95%", b"5 6.96%", TABLE.replace(b"   Frequency", b" Frequency"))
    assert not explain(got, TABLE).startswith("only the spacing")


GAME_GOES_ON = b"".join(b"Stage %d: %d cards left, %d on the stacks.\n" % (n, 40 - n, n)
                       for n in range(2, 21)) + b"Game over: 19 stages played.\n"


def test_a_game_that_ends_too_soon_with_a_line_of_its_own():
    """Stage 1 as expected, then "You won!" where 20 more lines are expected."""
    assert missed(TRANSCRIPT + b"You won!\n", TRANSCRIPT + GAME_GOES_ON) == NearMiss(
        "the output parts from the expected after line 10 and stops: `You won!` (1 line) where "
        "the expected output goes on for 20 lines, from `Stage 2: 38 cards left, 2 on the "
        "stacks.`", "output ends early with lines of its own")


def test_a_game_that_skips_a_stage_does_not_end_with_lines_of_its_own():
    """Shorter and ending otherwise, but stages 6 to 20 are as expected: the regions say it."""
    want = TRANSCRIPT + GAME_GOES_ON
    got = _with(b"19 stages", b"18 stages", _with(b"Stage 5: 35 cards left, 5 on the stacks.\n",
                                                  b"", want))
    assert explain(got, want) == ""
    assert regions(got, want) == [
        "1 line missing at line 14: `Stage 5: 35 cards left, 5 on the stacks.`",
        "line 29: replace `Game over: 18 stages played.` with `Game over: 19 stages played.`"]


def test_a_game_that_ends_too_soon_says_why_and_escapes_what_it_printed():
    sentence = explain(TRANSCRIPT + b"\x1b[1mYou won!\n\xff", TRANSCRIPT + GAME_GOES_ON, "a crash")
    assert sentence == ("the output parts from the expected after line 10 and stops (a crash "
                        "ended the run): `⟨U+001B⟩[1mYou won!` (2 lines) where the expected output "
                        "goes on for 20 lines, from `Stage 2: 38 cards left, 2 on the stacks.`")


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
        "the output stops partway through line 10 of 10 (a crash ended the run)")
    assert explain(b"Cards left: 1", b"Cards left: 12") == (
        "only numbers differ: line 1 has 1 where 12 is expected")
    assert explain(b"Cards left: 1", b"Cards left: 12", "the time limit") == (
        "the output stops partway through line 1 of 1 (the time limit ended the run)")


@pytest.mark.parametrize("name, got, start", [
    pytest.param(name, got, start, id=name) for name, got, start in [
        ("trailing_spaces", _with(b"function: \n", b"function:\n"), "only spaces or tabs"),
        ("line_ends", TRANSCRIPT.replace(b"\n", b"\r\n"), "only line ends"),
        ("final_newline", TRANSCRIPT[:-1], "only the final newline"),
        ("blank_lines", _with(b"stacks.\n", b"stacks.\n\n"), "only blank lines"),
        ("letter_case", _with(b"Deck", b"DECK"), "only letter case"),
        ("variation_selectors", _with("🂧".encode(), "🂧\ufe0e".encode()),
         "only variation selectors")]])
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


def test_the_normalisations_are_the_six_named():
    assert set(NORMALISATIONS) == {"trailing_spaces", "line_ends", "final_newline",
                                   "blank_lines", "letter_case", "variation_selectors"}


def test_variation_selectors_are_exactly_the_code_points_removed():
    """U+FE00..U+FE0F and U+E0100..U+E01EF go; their neighbours, and bytes that are not
    UTF-8, stay."""
    selectors = "".join(map(chr, [*range(0xFE00, 0xFE10), *range(0xE0100, 0xE01F0)]))
    neighbours = "\ufdff\ufe10 \U000e00ff\U000e01f0 😊"
    data = (selectors[:8] + neighbours + selectors[8:]).encode() + b"\xff\xef\xb8"
    assert normalise(data, ["variation_selectors"]) == neighbours.encode() + b"\xff\xef\xb8"


def test_a_smile_without_its_variation_selector_is_forgiven_only_by_name():
    """solitaire_2's SMILE is U+1F60A U+FE0F; a student who printed 😊 alone."""
    want = "You won! 😊\ufe0f\n".encode()
    got = "You won! 😊\n".encode()
    assert normalise(got, ["variation_selectors"]) == normalise(want, ["variation_selectors"])
    for others in ([], [name for name in NORMALISATIONS if name != "variation_selectors"]):
        assert normalise(got, others) != normalise(want, others), others
    assert explain(got, want).startswith("only variation selectors (as U+FE0F after an emoji)")


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
        "the output stops partway through line 1 of 1 (the time limit ended the run)")
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
        "the output stops after line 50000 of 100000 (a crash ended the run)")
    assert explain(want.replace(b"\n", b" \n"), want).startswith("only spaces or tabs")
    assert explain(want.replace(b"%\n", b"%\n\n"), want) == (
        "only blank lines differ: line 2 is a blank line too many")
    assert explain(want + want, want).startswith("100000 extra lines after the expected end")
    assert explain(want.replace(b"%", b"p"), want) == ""


def test_regions_say_each_difference_with_its_own_line():
    got = _with(b"ready", b"READY", _with(b"stacks.\n", b"stacks.\nDEBUG: 4 stacks\n"))
    got = _with("🂧".encode(), b"?", got)
    assert explain(got, TRANSCRIPT) == ""
    assert regions(got, TRANSCRIPT) == [
        "line 2: replace `Deck shuffled, READY to start!` with `Deck shuffled, ready to start!`",
        "1 line too many at line 6: `DEBUG: 4 stacks`",
        "line 11: replace `[[[[[[[?` with `[[[[[[[🂧`"]


def test_regions_at_the_ends_and_in_the_middle():
    rows = _table(100).splitlines(keepends=True)
    got = rows[:20] + [b"DEBUG\n"] + rows[20:30] + [row.replace(b" ", b"") for row in rows[30:33]]
    got += rows[33:60] + rows[61:90] + [b"You won!\n"]
    said = regions(b"".join(got), b"".join(rows), most=4)
    assert said == [
        "1 line too many at line 21: `DEBUG`",
        "the spacing within 3 lines differs, from line 32: `30|3.00%` where "
        "`    30 |     3.00%` is expected",
        "1 line missing at line 62: `    60 |     6.00%`",  # where it would be in the output
        "the output parts from the expected after line 90 and stops: `You won!` (1 line) "
        "where the expected output goes on for 10 lines, from `    90 |     9.00%`"]
    assert regions(b"".join(rows[:90]), b"".join(rows)) == [
        "the output stops after line 90 of 100"]


def test_one_region_is_said_as_explain_says_it():
    got = _with(b"Deck shuffled", b"Deck Shuffled")
    assert regions(got, TRANSCRIPT) == [explain(got, TRANSCRIPT)]
    assert regions(TRANSCRIPT, TRANSCRIPT) == []


def test_regions_beyond_the_first_few_are_counted():
    rows = _table(100).splitlines(keepends=True)
    got = b"".join(row.replace(b"|", b":") if index % 10 == 5 else row
                   for index, row in enumerate(rows))
    assert regions(got, b"".join(rows)) == [
        "line 6: replace `     5 :     0.50%` with `     5 |     0.50%`",
        "line 16: replace `    15 :     1.50%` with `    15 |     1.50%`",
        "line 26: replace `    25 :     2.50%` with `    25 |     2.50%`",
        "and 7 more regions differ, from line 36"]
    assert len(regions(got, b"".join(rows), most=9)) == 10  # the tenth said, not counted


def test_regions_of_100_000_lines_compare_a_bounded_part_and_say_so():
    """No timing asserted: at most MOST_COMPARED lines of each are diffed, from the first
    that differs, and the last sentence says where that stopped."""
    want = _table(100_000)
    rows = want.splitlines(keepends=True)
    every_other = b"".join(row.replace(b"|", b":") if index % 2 else row
                           for index, row in enumerate(rows))
    said = regions(every_other, want)
    assert said[-2:] == ["and 997 more regions differ, from line 8",
                         "compared up to line 2001 of the output and line 2001 of the expected; "
                         "more may differ"]
    every_row = regions(want.replace(b"|", b":"), want)
    assert every_row == [
        "different lines from line 1 (2000 lines for 2000 expected): `     0 :     0.00%` "
        "where `     0 |     0.00%` is expected",
        "compared up to line 2000 of the output and line 2000 of the expected; more may differ"]
    far = _with(b" 99990 |", b" 99990 :", _with(b" 5 |", b" 5 :", want))
    assert regions(far, want) == [  # line 99991 lies beyond the lines compared
        "line 6: replace `     5 :     0.50%` with `     5 |     0.50%`",
        "compared up to line 2005 of the output and line 2005 of the expected; more may differ"]


def test_regions_of_4_mib_on_one_line_return():
    nul = b"\0" * (4 << 20)
    [sentence] = regions(nul, nul[:-1] + b"x")
    assert sentence.startswith("line 1: replace `…⟨U+0000⟩") and len(sentence) < 1_000
    said = regions(nul, _table(100_000))
    assert said[0].startswith(
        "different lines from line 1 (1 line for 2000 expected): `⟨U+0000⟩")
    assert said[1] == ("compared up to line 1 of the output and line 2000 of the expected; "
                       "more may differ")


def test_a_blank_line_is_said_to_be_one_not_quoted_as_nothing():
    assert explain(b"x\n\nb\n", b"x\ny\nb\n") == "line 2: replace a blank line with `y`"
    assert regions(b"x\n\nb\nc\nq\n", b"x\nb\nc\nd\nq\n")[0] == \
        "1 line too many at line 2: a blank line"
