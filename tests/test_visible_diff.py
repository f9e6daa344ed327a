"""A failing comparison must show what differs, however small: these are the diffs a marker reads."""

from exactmark.base.visible import visible_diff


def test_equal_outputs_give_no_report():
    assert visible_diff(b"same\n", b"same\n") == ""


def test_a_trailing_space_is_drawn_and_located():
    report = visible_diff(b"a b \n", b"a b\n", "seed_0 stdout")
    assert report.splitlines()[0] == ("seed_0 stdout: first difference at line 1, column 4: "
                                      "got U+0020 SPACE, want U+000A LINE FEED")
    assert "-a␠b⏎" in report and "+a␠b␠⏎" in report


def test_tabs_and_carriage_returns_are_drawn():
    report = visible_diff(b"\tx\r\n", b"    x\n")
    assert "+→x␍⏎" in report and "-␠␠␠␠x⏎" in report


def test_a_missing_final_newline_is_said():
    report = visible_diff(b"end", b"end\n")
    assert "+end\n" in report + "\n" and "got: (no newline at end)" in report
    assert "got end of output, want U+000A LINE FEED" in report


def test_an_invisible_variation_selector_is_named():
    report = visible_diff("😊\n".encode(), "😊\ufe0f\n".encode())
    assert "-😊⟨U+FE0F⟩⏎" in report
    assert "want U+FE0F VARIATION SELECTOR-16" in report


def test_look_alike_cards_are_told_apart_by_code_point():
    report = visible_diff("🂡\n".encode(), "🂱\n".encode())
    assert "got U+1F0A1 PLAYING CARD ACE OF SPADES, want U+1F0B1 PLAYING CARD ACE OF HEARTS" in report


def test_bytes_that_are_not_utf8_are_shown_as_bytes():
    report = visible_diff(b"x\xff\n", b"x\n")
    assert "+x⟨\\xff⟩⏎" in report and "got byte 0xFF (not UTF-8)" in report


def test_only_newline_ends_a_line():
    report = visible_diff(b"a\x0cb\n", b"a\x0cc\n")
    assert "line 1, column 3" in report and "-a⟨U+000C⟩c⏎" in report


def test_a_long_diff_is_cut():
    many = b"".join(b"%d\n" % number for number in range(500))
    report = visible_diff(many.replace(b"\n", b" \n"), many)
    assert len(report.splitlines()) < 60 and "more diff lines" in report


def test_a_huge_output_costs_little_and_shows_little():
    """4 MiB of NUL bytes on one line: the diff draws the start of it, quickly."""
    report = visible_diff(b"\0" * (4 << 20), b"hello\n")
    assert len(report) < 5_000 and "⟨U+0000⟩" in report and "more⟩" in report


def test_a_difference_deep_in_a_long_output_is_shown_with_its_context():
    want = b"".join(b"line %d\n" % number for number in range(100_000))
    got = want.replace(b"line 90000\n", b"line 90000 \n")
    report = visible_diff(got, want)
    assert "line 90001" in report and "+line␠90000␠⏎" in report
    assert "(the 89998 lines before are the same)" in report


def test_one_line_before_the_window_is_said_as_one():
    want = b"".join(b"line %d\n" % number for number in range(10))
    report = visible_diff(want.replace(b"line 3\n", b"line 3 \n"), want)
    assert "(the line before is the same)" in report.splitlines(), report


def test_escape_sequences_a_run_wrote_are_drawn_not_played():
    from exactmark.base.visible import escaped

    shown = escaped(b"\x1b[2J\x1b[Hpass \xe2\x80\xae\x9b\xff ok")
    assert shown == "⟨U+001B⟩[2J⟨U+001B⟩[Hpass ⟨U+202E⟩⟨\\x9b⟩⟨\\xff⟩ ok"
    assert escaped("x" * 1000, most=10) == "x" * 10 + "…⟨990 more⟩"


LONG = b"".join(b"line %d\n" % number for number in range(100_000))  # line N holds N - 1


def test_hunk_headers_count_the_outputs_own_lines():
    """The window compared starts at line 89999: its hunk is numbered from there, not 1."""
    report = visible_diff(LONG.replace(b"line 90000\n", b"line 90000 \n"), LONG)
    assert report.splitlines()[1:] == [
        "(the 89998 lines before are the same)",
        "--- expected",
        "+++ got",
        "@@ -89999,5 +89999,5 @@",
        " line␠89998⏎",
        " line␠89999⏎",
        "-line␠90000⏎",
        "+line␠90000␠⏎",
        " line␠90001⏎",
        " line␠90002⏎",
        "... compared up to line 90078; more may differ"]


def test_an_extra_line_deep_in_a_long_output_shifts_the_got_side():
    report = visible_diff(LONG.replace(b"line 90000\n", b"debug: 7 cards\nline 90000\n"), LONG)
    assert ("@@ -89999,4 +89999,5 @@\n line␠89998⏎\n line␠89999⏎\n+debug:␠7␠cards⏎\n"
            in report)


TABLE = ("Cards left   Frequency\n"
         "     4       19.20%\n"
         "     5        6.95% 😊\ufe0f\n").encode()


def test_the_diff_as_data_leaves_spaces_to_the_page_and_flags_column_widths():
    from exactmark.base.visible import ADDED, REMOVED, SAME, DiffLine, diff_lines

    got = b"Cards left Frequency\n     4       19.20%\n" + "    5 6.95% 😊\n".encode()
    diff = diff_lines(got, TABLE)
    assert diff.first_difference == ("first difference at line 1, column 12: "
                                     "got U+0046 LATIN CAPITAL LETTER F, want U+0020 SPACE")
    assert diff.same_before == 0 and diff.notes == ()
    [hunk] = diff.hunks
    assert hunk.header == "@@ -1,3 +1,3 @@"
    assert hunk.lines == (
        DiffLine(REMOVED, "Cards left   Frequency", True, spacing_only=True),
        DiffLine(ADDED, "Cards left Frequency", True, spacing_only=True),
        DiffLine(SAME, "     4       19.20%", True),
        DiffLine(REMOVED, "     5        6.95% 😊⟨U+FE0F⟩", True),  # more than spacing
        DiffLine(ADDED, "    5 6.95% 😊", True))


def test_the_diff_as_data_draws_as_visible_diff_and_survives_json():
    import json

    from exactmark.base.visible import VisibleDiff, diff_lines

    got = LONG.replace(b"line 90000\nline 90001\n", b"line\t90000\nline 90001\xff\n")[:-1]
    diff = diff_lines(got, LONG)
    assert diff.drawn("seed_3 stdout") == visible_diff(got, LONG, "seed_3 stdout")
    stored = json.loads(json.dumps(diff.to_json()))
    assert VisibleDiff.from_json(stored) == diff
    [hunk] = stored["hunks"]
    assert hunk["header"] == "@@ -89999,6 +89999,6 @@"
    assert hunk["lines"][4:6] == [
        {"tag": "+", "text": "line\t90000", "newline": True, "cut": 0, "spacing_only": True},
        {"tag": "+", "text": "line 90001⟨\\xff⟩", "newline": True, "cut": 0,
         "spacing_only": False}]
    assert stored["notes"] == ["... compared up to line 90078; more may differ",
                               "got: (no newline at end)"]
    assert diff_lines(LONG, LONG) is None


def test_a_long_line_is_cut_in_the_data_as_on_the_terminal():
    from exactmark.base.visible import MOST_LINE_CHARS, diff_lines

    diff = diff_lines(b"x" * 1000, b"x\n")
    added = diff.hunks[0].lines[-1]
    assert (added.text, added.newline, added.cut) == ("x" * MOST_LINE_CHARS, False, 700)
    assert added.drawn() == "x" * MOST_LINE_CHARS + "…⟨700 more⟩"
    assert diff.notes == ("got: (no newline at end)",)


def test_no_newline_note_when_both_outputs_end_alike():
    report = visible_diff(b"a\nb", b"a\nc")
    assert "-c\n+b" in report, report  # each line shows it has no ⏎
    assert "(no newline at end)" not in report, report


def test_an_output_shifted_by_its_own_lines_is_cut_at_its_own_line_in_the_window():
    """Three debug lines first, then every expected line: the window of each output ends
    where the two agree, so no expected line it prints further on is drawn as missing."""
    want = b"".join(b"line %d\n" % number for number in range(1, 201))
    report = visible_diff(b"debug 1\ndebug 2\ndebug 3\n" + want, want)
    assert [line for line in report.splitlines() if line.startswith(("-", "+"))
            and not line.startswith(("---", "+++"))] == ["+debug␠1⏎", "+debug␠2⏎", "+debug␠3⏎"], \
        report
    assert report.endswith("... compared up to line 77 of the expected and line 80 of the "
                           "output; more may differ"), report
