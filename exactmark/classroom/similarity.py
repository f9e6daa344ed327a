"""The most similar pairs of a class's submissions, flagged for a person to read, never penalised.

Tool: copydetect 0.5 (MOSS's winnowing; names, strings and comments filtered out before matching),
for its public Python API (CodeFingerprint, get_copied_slices), its boilerplate fingerprints (the
reference programs and the handout's code, which everyone may share, never count), and as pure
Python on numpy and pygments it runs on CPython 3.10-3.13 offline (it imports matplotlib for its
report's plots, which we do not draw, so that comes along). Not compare50: its newest
release needs attrs<21 where jsonschema (requirements-mark.txt) needs attrs>=22.2, its API is
private (compare50._api), and lib50 brings requests and cryptography to fetch from GitHub.

copydetect's own report is one page that loads Bootstrap from a CDN and writes file paths
unescaped, so each listed pair gets a page of ours, rendered by jinja2 with autoescape and a
Content-Security-Policy that runs no script: nothing a student wrote reaches it unescaped.

Bounded (14 copies of a 256 KiB file once took 71 s and 862 MiB): only a file's first MOST_BYTES
are compared, and the scan says so; a verbatim copy is fingerprinted once; a fingerprint is kept
as arrays, and a pair compared as copydetect's compare_files does but on those arrays, since
compare_files builds an array for each shared k-gram: beyond 5 students its pairs cost more than
the fingerprints (a second for a pair of 256 KiB tables of numbers).
"""

import io
import os
import unicodedata
from dataclasses import dataclass
from itertools import combinations
from pathlib import Path, PurePosixPath

import jinja2
import numpy as np
from copydetect import CodeFingerprint, defaults
from copydetect.utils import get_copied_slices

from exactmark.base.visible import show_char

LANGUAGE = "python"  # the tokenizer of a program no language is given for
NOISE = defaults.NOISE_THRESHOLD  # k: a match shorter than this (filtered characters) is noise
WINDOW = defaults.GUARANTEE_THRESHOLD - NOISE + 1  # 1: every k-gram is a fingerprint
# Compared of a file: a course's programs stay under 40 KiB (the kit's largest, solitaire_1.py, is
# 11 KiB); a fingerprint takes 2 s a megabyte of code, 6 s of a table of numbers (all k-grams).
MOST_BYTES = 64 * 1024
FOLDER = "similarity"
PAGE = "pair-{rank:03d}.html"
OLD_PAGES = "pair-*.html"
HIDDEN = {"Cc", "Cf", "Co", "Cn"}  # controls, format (bidi overrides...), private, unassigned
KEPT = "\n\t\r"

# Why a student's program is not compared, or only in part (for the class's summary).
NOT_HANDED_IN = "not handed in"
SKIPPED_LINK = "a link, not a file"
SKIPPED_BINARY = "it holds a NUL byte, so it is not a program"
SKIPPED_UNREADABLE = "it cannot be read ({problem})"
CUT = "{size} KiB: only its first {kib} KiB were compared"

TITLE = "{program}: {first} and {second}"
SCORE = "{percent:.0f}% similar (the larger of the two shares below)"
SHARE = "{name}: {percent:.0f}% of this file is also in the other's"
NOTE = ("A flag for a person to read, not a verdict and never a mark. Marked: what the two files "
        "share beyond the code everyone may share (the reference programs and the handout's "
        "code); names, strings and comments are left out of the matching.")
TRUNCATED = "Only the first {kib} KiB of this file ({size} KiB) were compared and are shown."

PAGE_TEMPLATE = """<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta http-equiv="Content-Security-Policy"
      content="default-src 'none'; style-src 'unsafe-inline'">
<meta name="referrer" content="no-referrer">
<title>{{ title }}</title>
<style>
body { font-family: sans-serif; margin: 1em; }
.sides { display: grid; grid-template-columns: minmax(0, 1fr) minmax(0, 1fr); gap: 1em; }
pre { white-space: pre-wrap; overflow-wrap: anywhere; border: 1px solid #ccc; padding: .5em;
      font-size: 12px; }
mark { background: #f6c6c6; }
</style>
</head>
<body>
<h1>{{ title }}</h1>
<p><strong>{{ score }}</strong></p>
<p>{{ note }}</p>
<div class="sides">
{%- for side in sides %}
<section>
<h2>{{ side.heading }}</h2>
{%- if side.truncated %}<p>{{ side.truncated }}</p>{% endif %}
<pre>
{%- for text, copied in side.pieces -%}
{%- if copied %}<mark>{{ text }}</mark>{% else %}{{ text }}{% endif -%}
{%- endfor -%}
</pre>
</section>
{%- endfor %}
</div>
</body>
</html>
"""

_TEMPLATE = jinja2.Environment(autoescape=True, undefined=jinja2.StrictUndefined) \
    .from_string(PAGE_TEMPLATE)


@dataclass(frozen=True)
class Pair:
    """Two students' versions of one program, and how much of them is the same."""
    first: str
    second: str
    program: str
    score: float  # 0..1: the larger share of either file that the other holds (copydetect)
    view: str  # the side-by-side page, relative to the output folder; "" beyond the pages


@dataclass(frozen=True)
class Scan:
    """What a scan found: every pair that shares code beyond the shared code (most
    similar first), and what was compared only in part or not at all, and why."""
    pairs: list
    cut: dict  # (student, program) -> why only part of it was compared
    left_out: dict  # (student, program) -> why it was not compared


@dataclass(frozen=True)
class _Code:
    text: str
    truncated: bool
    kib: int  # the whole file's size, rounded up


@dataclass(frozen=True)
class _Print:
    """copydetect's fingerprint of a file as arrays: its dict of lists of numpy scalars holds
    11 MiB for 64 KiB of numbers, these 1 MiB, and a pair is compared without a loop in Python."""
    hashes: np.ndarray  # of each k-gram outside the boilerplate, sorted
    starts: np.ndarray  # where each of those k-grams starts in the filtered code
    coverage: float  # how many filtered characters they cover (CodeFingerprint.token_coverage)
    offsets: np.ndarray  # characters filtered out before each point (CodeFingerprint.offsets)


class _Unread(Exception):
    """A file that is not compared; the message says why."""


@dataclass(frozen=True)
class _Match:
    first: str
    second: str
    program: str
    score: float
    shares: tuple
    slices: tuple
    codes: tuple  # the two _Code, as read once


def scan(submissions: dict, programs: list, shared, out: Path, most: int = 20,
         least: float = 0.0, languages: dict = None) -> Scan:
    """Every pair scoring at least `least`, most similar first; the `most` first each get
    a page under out/similarity/. `programs` are file names in each submission's folder;
    `shared` the files everyone may share, for all programs or ({program: [files]}) for
    each; `languages` each program's tokenizer (a Pygments lexer name; Python by default).

    Each program is compared only with the same program of the other students; a student without
    it (or whose copy is a link or binary) is left out of that program's pairs, and the scan says
    why. Pairs that share nothing beyond the shared code are not listed. Pages of an earlier scan
    are removed first, so that none is left that this scan does not list.
    """
    folder = Path(out) / FOLDER
    for old in folder.glob(OLD_PAGES):
        old.unlink()
    languages = languages or {}
    matches, cut, left_out = [], {}, {}
    for program in programs:
        language = languages.get(program, LANGUAGE)
        boilerplate = (_boilerplate(shared.get(program, []) if isinstance(shared, dict)
                                    else shared, language) if len(submissions) > 1 else None)
        codes, prints = {}, {}  # prints: text -> its fingerprint, for a verbatim copy
        for name in sorted(submissions):
            try:
                code = _read(Path(submissions[name]) / program)
            except _Unread as why:
                left_out[name, program] = str(why)
                continue
            if code.truncated:
                cut[name, program] = CUT.format(size=code.kib, kib=MOST_BYTES // 1024)
            if boilerplate is not None:
                if code.text not in prints:
                    prints[code.text] = _fingerprint(program, code.text, boilerplate, language)
                codes[name] = (code, prints[code.text])
        for first, second in combinations(codes, 2):
            matches.extend(_compare(program, (first, second), codes[first], codes[second]))
    matches = [match for match in matches if match.score >= least]
    matches.sort(key=lambda match: (-match.score, match.program, match.first, match.second))
    pairs = []
    for rank, match in enumerate(matches, start=1):
        view = ""
        if rank <= most:
            view = str(PurePosixPath(FOLDER, PAGE.format(rank=rank)))
            folder.mkdir(parents=True, exist_ok=True)
            (Path(out) / view).write_text(_page(match), encoding="utf-8")
        pairs.append(Pair(match.first, match.second, match.program, match.score, view))
    return Scan(pairs, cut, left_out)


def _page(match) -> str:
    sides = [_side(*side) for side in zip((match.first, match.second), match.shares,
                                          match.codes, match.slices)]
    return _TEMPLATE.render(
        title=TITLE.format(program=match.program, first=match.first, second=match.second),
        score=SCORE.format(percent=100 * match.score), note=NOTE, sides=sides)


def _read(path: Path) -> _Code:
    """The first MOST_BYTES of a regular file as text: a 5 MB file costs no more than a
    64 KiB one, and bytes that are not UTF-8 become U+FFFD. A link (which could show a
    file from outside the submission), a file with a NUL byte, or none, raises _Unread."""
    if path.is_symlink():
        raise _Unread(SKIPPED_LINK)
    if not path.is_file():
        raise _Unread(NOT_HANDED_IN)
    try:
        with path.open("rb") as stream:
            data = stream.read(MOST_BYTES + 1)
            size = max(os.fstat(stream.fileno()).st_size, len(data))
    except OSError as error:
        raise _Unread(SKIPPED_UNREADABLE.format(problem=error.strerror or error)) from None
    if b"\0" in data:
        raise _Unread(SKIPPED_BINARY)
    return _Code(data[:MOST_BYTES].decode("utf-8", errors="replace"), len(data) > MOST_BYTES,
                 -(-size // 1024))


def _fingerprint(name: str, text: str, boilerplate, language: str) -> _Print:
    """copydetect's fingerprint of text we read ourselves (fp=): it never opens the file."""
    found = CodeFingerprint(name, NOISE, WINDOW, boilerplate, language=language,
                            fp=io.StringIO(text))
    groups = found.hash_idx  # hash -> where each k-gram of that hash starts
    hashes = np.repeat(np.fromiter(groups, np.int64, len(groups)),
                       [len(starts) for starts in groups.values()])
    starts = np.fromiter((start for starts in groups.values() for start in starts), np.int64,
                         len(hashes))
    order = np.argsort(hashes)
    return _Print(hashes[order], starts[order], found.token_coverage, found.offsets)


def _boilerplate(shared: list, language: str):
    """Every k-gram of the shared files (window 1, as copydetect's boilerplate_dirs does): a
    match inside them is never counted."""
    hashes = set()
    for path in shared:
        try:
            code = _read(Path(path))
        except _Unread:
            continue
        hashes.update(CodeFingerprint(str(path), NOISE, 1, language=language,
                                      fp=io.StringIO(code.text)).hashes)
    return np.unique(np.array(sorted(hashes), dtype=np.int64))


def _compare(program, names, one, other):
    """The pair, when the two share anything beyond the boilerplate: compare_files's shares and
    slices, the k-grams of each side that the other holds found in its sorted hashes."""
    prints = one[1], other[1]
    shared = [mine.starts[np.searchsorted(theirs.hashes, mine.hashes, "right")
                          > np.searchsorted(theirs.hashes, mine.hashes)]
              for mine, theirs in (prints, prints[::-1])]
    if not len(shared[0]):
        return []
    sides = [_copied(*side) for side in zip(prints, shared)]
    shares = tuple(share for share, _ in sides)
    return [_Match(*names, program, max(shares), shares, tuple(slices for _, slices in sides),
                   (one[0], other[0]))]


def _copied(mine: _Print, shared: np.ndarray):
    """The share of my file that the other holds (at most 1), and where it is in my text, from
    where the k-grams we share start: as compare_files computes them."""
    slices = get_copied_slices(shared, NOISE)
    share = np.sum(slices[1] - slices[0]) / mine.coverage
    if len(mine.offsets):
        slices += mine.offsets[:, 1][np.clip(np.searchsorted(mine.offsets[:, 0], slices),
                                             0, mine.offsets.shape[0] - 1)]
    return min(1.0, float(share)), slices


def _side(name, share, code, slices) -> dict:
    """One column of a page: the file as pieces of (text, shared with the other file?), for the
    template to escape."""
    text = code.text
    pieces, at = [], 0
    for start, end in sorted(zip(slices[0].tolist(), slices[1].tolist())):
        start, end = max(at, min(start, len(text))), min(end, len(text))
        if start > at:
            pieces.append((_drawn(text[at:start]), False))
        if end > start:
            pieces.append((_drawn(text[start:end]), True))
            at = end
    pieces.append((_drawn(text[at:]), False))
    return {"heading": SHARE.format(name=name, percent=100 * share),
            "truncated": (TRUNCATED.format(kib=MOST_BYTES // 1024, size=code.kib)
                          if code.truncated else ""),
            "pieces": pieces}


def _drawn(text: str) -> str:
    """Code as it is: a control, a bidi override or a zero-width character (which could make the
    page show other code than the file holds) drawn as ⟨U+202E⟩; tabs and line ends kept."""
    return "".join(show_char(char) if char not in KEPT and unicodedata.category(char) in HIDDEN
                   else char for char in text)


