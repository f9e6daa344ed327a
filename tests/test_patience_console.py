"""patience.py at the console: arguments, a random seed shown and replayable,
end of input, a closed pipe, and the won golden cases still ending in a win
(locale, import and Ctrl-C: tests/test_every_program.py)."""

import os
import re
import signal
import subprocess
import sys

import pytest

from exactmark.kit.cases import EXPECTED_OUTPUTS, ROOT, load_cases
from patience_games import messages as text
from patience_games.commands import LONGEST_NUMBER, shown, whole_number
from tests.bytes_check import expect_same

PROGRAM = str(ROOT / "patience.py")
PROMPT = text.PROMPT.encode()


def run(args, stdin: bytes = b"", **env) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, PROGRAM, *args], input=stdin, capture_output=True,
                          timeout=30, env={**os.environ, **env})


@pytest.mark.parametrize("args", [["golf"], ["spider", "--suits", "2"], ["freecell"]])
def test_without_seed_a_random_seed_is_shown_and_replays_the_same_deal(args):
    done = run(args, b"quit\n")
    title = done.stdout.split(b"\n", 1)[0].decode()
    seed = re.fullmatch(r".*, seed (-?\d+) \(chosen at random\)", title)
    assert seed, title
    replay = run([*args, "--seed", seed[1]], b"quit\n")
    expect_same(done.stdout.split(b"\n", 1)[1], replay.stdout.split(b"\n", 1)[1], "after the title")


@pytest.mark.parametrize("name, canonical", [("little_spider", "little-spider"), ("Curds", "curds-and-whey"),
                                             ("FREECELL", "freecell"), ("free-cell", "freecell")])
def test_a_few_obvious_aliases_name_the_games(name, canonical):
    expect_same(run([name, "--seed", "3"], b"q\n").stdout, run([canonical, "--seed", "3"], b"q\n").stdout,
                name)


@pytest.mark.parametrize("args", [[], ["chess"], ["golf", "--seed", "x"], ["golf", "--ms", "3"],
                                  ["freecell", "--ms", "0"], ["freecell", "--ms", "-4"],
                                  ["spider", "--suits", "3"], ["golf", "--suits", "1"],
                                  ["freecell", "--seed", "1", "--ms", "1"], ["golf", "extra"]])
def test_bad_arguments_give_the_usage_on_stderr_and_status_2(args):
    done = run(args)
    assert done.returncode == 2 and done.stdout == b""
    assert done.stderr.startswith(b"usage: patience.py") and b"Traceback" not in done.stderr


LONG_COUNTS = ["7" * 5000, "0" * 4301 + "1"]  # over Python's int-str limit, leading zeros counted


@pytest.mark.parametrize("count", LONG_COUNTS, ids=["5000 digits", "4301 zeros then 1"])
def test_a_count_too_long_to_convert_is_refused_like_a_count_out_of_range(count):
    done = run(["curds-and-whey", "--seed", "3"], f"1 2 {count}\n1 2 0\nquit\n".encode())
    assert done.returncode == 0 and done.stderr == b""
    refusals = [line.removeprefix(text.PROMPT) for line in done.stdout.decode().splitlines()
                if line.startswith(text.PROMPT + "The number")]
    assert refusals == [text.BAD_COUNT.format(text=shown(count)), text.BAD_COUNT.format(text="0")]
    assert len(refusals[0]) < 200


@pytest.mark.parametrize("count", ["9" * LONGEST_NUMBER, "0" * (LONGEST_NUMBER - 1) + "1"])
def test_a_count_of_the_most_digits_converts_whatever_the_interpreters_limit(count):
    done = run(["curds-and-whey", "--seed", "3"], f"1 2 {count}\nquit\n".encode(),
               PYTHONINTMAXSTRDIGITS="640")
    assert done.returncode == 0 and done.stderr == b"" and b"The number" not in done.stdout


def test_parsed_numbers_are_ascii_digits_and_never_too_long_to_convert():
    assert [whole_number(word) for word in ["1", "01", "12", "0", "", "-1", "+1", " 1", "1_0",
                                            "\uff11", "\u0661", "7" * 5000]] == \
        [1, 1, 12, None, None, None, None, None, None, None, None, None]
    assert whole_number("0" * LONGEST_NUMBER + "1") is None
    assert whole_number("5", 1, 4) is None and whole_number("0", 0) == 0


def refused(args, message: str) -> None:
    done = run(args)
    assert done.returncode == 2 and done.stdout == b"", done
    assert done.stderr.startswith(b"usage: patience.py") and b"Traceback" not in done.stderr
    assert done.stderr.decode().splitlines()[-1].endswith(message), done.stderr[-300:]
    assert len(done.stderr) < 400


@pytest.mark.parametrize("seed", ["7" * 5000, "-" + "7" * 5000, "0" * 4301 + "1", "x", "1.5", "+3"])
def test_a_bad_seed_gives_the_usage_and_a_short_message(seed):
    refused(["golf", "--seed", seed], text.BAD_SEED.format(digits=LONGEST_NUMBER, value=shown(seed)))


@pytest.mark.parametrize("suits", ["7" * 5000, "x"])
def test_a_bad_number_of_suits_gives_the_usage_and_a_short_message(suits):
    refused(["spider", "--suits", suits], text.BAD_SUITS.format(value=shown(suits)))


@pytest.mark.parametrize("number", ["2147483648", "2147483649", "0", "-1", "7" * 5000, "x"])
def test_a_microsoft_deal_outside_1_to_2_31_minus_1_is_refused(number):
    refused(["freecell", "--ms", number],
            text.BAD_DEAL_NUMBER.format(most=2 ** 31 - 1, value=shown(number)))


def test_the_last_microsoft_deal_2_31_minus_1_is_dealt():
    done = run(["freecell", "--ms", "2147483647"], b"quit\n")
    assert done.returncode == 0 and done.stderr == b""
    assert done.stdout.startswith(text.TITLE_MS.format(game=text.FREECELL, number=2147483647).encode())


@pytest.mark.parametrize("seed", ["0", "-5", "0007"])
def test_seeds_in_ascii_digits_are_dealt(seed):
    done = run(["golf", "--seed", seed], b"quit\n")
    assert done.returncode == 0 and done.stderr == b""
    assert done.stdout.startswith(text.TITLE_SEED.format(game=text.GOLF, seed=int(seed)).encode())


@pytest.mark.parametrize("stdin", [b"", b"1 h\n", b"1 h"])
def test_end_of_input_ends_the_game_with_a_line_end_and_status_0(stdin):
    done = run(["golf", "--seed", "5"], stdin)
    assert done.returncode == 0 and done.stderr == b""
    assert done.stdout.endswith(PROMPT + b"\n")


def test_quit_ends_the_game_at_once_with_status_0():
    done = run(["golf", "--seed", "5"], b"quit\n1 h\n")
    assert done.returncode == 0 and done.stdout.endswith(PROMPT) and done.stdout.count(PROMPT) == 1


def test_a_closed_pipe_ends_the_program_quietly():
    reader = subprocess.Popen([sys.executable, PROGRAM, "spider", "--seed", "1"], stdin=subprocess.PIPE,
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    reader.stdout.close()
    reader.stdin.write(b"help\n" * 200)
    reader.stdin.close()
    assert reader.wait(timeout=30) == -signal.SIGPIPE
    assert reader.stderr.read() == b""


WON_CASES = [case for case in load_cases("patience") if "_won_" in case.name]


def test_each_game_with_a_win_case_has_one():
    names = {case.name.split("_won_")[0] for case in WON_CASES}
    assert {"golf", "freecell", "little_spider", "spider", "curds_and_whey"} <= names


@pytest.mark.parametrize("case", WON_CASES, ids=lambda case: case.name)
def test_a_won_case_ends_with_the_win_after_its_last_command(case):
    commands = case.stdin.decode().splitlines()
    assert case.stdout.endswith(("\n" + text.WON + "\n").encode())
    assert case.stdout.count(PROMPT) == len(commands)


def test_the_case_notes_name_every_case():
    notes = (EXPECTED_OUTPUTS / "patience" / "README.md").read_text()
    missing = [case.name for case in load_cases("patience") if f"`{case.name}`" not in notes]
    assert not missing
