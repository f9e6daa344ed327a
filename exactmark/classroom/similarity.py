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

Compared: only the pairs whose fingerprints share a k-gram beyond the shared code, found from an
inverted index (each k-gram to the versions holding it) as MOSS and Dolos find theirs: a pair
sharing none would not be listed, so the list is the one comparing every pair gives, scores and
pages alike (the tests and bench/similarity_scale.py check it). At 2,000 students a program has
2 million pairs: on a class generated from the sample solutions and tests/wrong/'s mistakes, 2.3%
share a k-gram, and the scan took 74 s of CPU (the fingerprints alone 63 s) where comparing
every pair took 137 s. Nothing is left out of the index for being common (MOSS's -m, Dolos's
maxFingerprintPercentage): a pair sharing only such code is still listed.

Ranked by what the two share that the rest of the class does not: a family of programs grown from
one ancestor (a tutorial, last year's solution) shares that ancestor with each other, a copy
shares code with one. So each piece of code weighs by how many of the class's versions hold it,
h: in full when one or two do, 1/(h-1) beyond (three: half, four: a third), in the file's size
as in what the other holds. Code most of the class has thus counts little, where MOSS's -m and
Dolos's limit on the files a fragment may occur in make it count nothing past a threshold, one
that would also hide a ring of copies (three copies still score 100% here: each file's code is
all in the others'). The share in full is kept beside it. A pair high in several programs is
said on each, and comes first among the same score.
"""

import heapq
import io
import os
import unicodedata
from dataclasses import dataclass, replace
from itertools import combinations
from pathlib import Path, PurePosixPath

import jinja2
import numpy as np
from copydetect import CodeFingerprint, defaults
from copydetect.utils import get_copied_slices

from exactmark.base.visible import escaped, show_char
from exactmark.classroom import kept_programs
from exactmark.kit.submission import likeness

LANGUAGE = "python"  # the tokenizer of a program no language is given for
NOISE = defaults.NOISE_THRESHOLD  # k: a match shorter than this (filtered characters) is noise
WINDOW = defaults.GUARANTEE_THRESHOLD - NOISE + 1  # 1: every k-gram is a fingerprint
# Compared of a file: a course's programs stay under 40 KiB (the kit's largest, solitaire_1.py, is
# 11 KiB); a fingerprint takes 2 s a megabyte of code, 6 s of a table of numbers (all k-grams).
MOST_BYTES = 64 * 1024
FOLDER = "similarity"
PAGE = "pair-{rank:03d}.html"
OLD_PAGES = "pair-*.html"
HIGH = 0.5  # a score from which a pair is high in a program (for "also high in")
SAME_SCORE_DIGITS = 3  # scores the same to a tenth of a percent, as the summary shows them
HIDDEN = {"Cc", "Cf", "Co", "Cn"}  # controls, format (bidi overrides...), private, unassigned
KEPT = "\n\t\r"

# Why a student's program is not compared, or only in part (for the class's summary).
NOT_HANDED_IN = "not handed in"
SKIPPED_LINK = "a link, not a file"
SKIPPED_BINARY = "it holds a NUL byte, so it is not a program"
SKIPPED_UNREADABLE = "it cannot be read ({problem})"
CUT = "{size} KiB: only its first {kib} KiB were compared"
TAKEN = "{file}, taken for {name}: {why}"  # a look-alike compared in the program's place

TITLE = "{program}: {first} and {second}"
SCORE = ("{percent:.0f}% similar: the larger share of either file that the other holds, code "
         "other students' versions hold too counting less; {share:.0f}% counting it in full "
         "(the shares below)")
ALSO = "The same two are also similar in {programs}."
ALSO_ONE = "{program} ({percent:.0f}%)"
SHARE = "{name}: {percent:.0f}% of this file is also in the other's"
TAKEN_SIDE = "This file is {taken}."
NOTE = ("A flag for a person to read, not a verdict and never a mark. Marked: what the two files "
        "share beyond the code everyone may share (the reference programs and the handout's "
        "code); names, strings and comments are left out of the matching. Marked darker: code "
        "only these two hold; lighter: code other students' versions hold too, which counts "
        "less the more of them hold it (three: half, four: a third), as a family of programs "
        "grown from one ancestor shares it.")
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
mark { background: #f08c8c; }
mark.common { background: #f9dede; }
</style>
</head>
<body>
<h1>{{ title }}</h1>
<p><strong>{{ score }}</strong></p>
{%- if also %}<p><strong>{{ also }}</strong></p>{% endif %}
<p>{{ note }}</p>
<div class="sides">
{%- for side in sides %}
<section>
<h2>{{ side.heading }}</h2>
{%- if side.taken %}<p>{{ side.taken }}</p>{% endif %}
{%- if side.truncated %}<p>{{ side.truncated }}</p>{% endif %}
<pre>
{%- for text, copied in side.pieces -%}
{%- if copied == ALONE %}<mark>{{ text }}</mark>
{%- elif copied %}<mark class="common">{{ text }}</mark>
{%- else %}{{ text }}{% endif -%}
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
COMMON, ALONE = 1, 2  # a piece of a page: shared with other versions too, or with the other only


@dataclass(frozen=True)
class Pair:
    """Two students' versions of one program, and how much of them is the same."""
    first: str
    second: str
    program: str
    score: float  # 0..1: the larger share of either file the other holds, code weighed by rarity
    view: str  # the side-by-side page, relative to the output folder; "" beyond the pages
    share: float  # 0..1: the same share with every piece of code counted in full (copydetect's)
    also: tuple = ()  # ((program, score), ...): where else the two are high, when this one is


@dataclass(frozen=True)
class Scan:
    """What a scan found: every pair that shares code beyond the shared code (most
    similar first), and what was compared only in part or not at all, and why."""
    pairs: list
    cut: dict  # (student, program) -> why only part of it was compared
    left_out: dict  # (student, program) -> why it was not compared
    taken: dict  # (student, program) -> which look-alike was compared in its place, and why


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
    length: int  # of the filtered code
    offsets: np.ndarray  # characters filtered out before each point (CodeFingerprint.offsets)


@dataclass(frozen=True)
class _Weighed:
    """A fingerprint in its class: each k-gram's weight (1/(h-1) for h holders, at most 1), and
    the file's size in filtered characters, counted in full and weighed."""
    found: _Print
    weights: np.ndarray  # aligned with found.hashes
    holders: np.ndarray  # aligned with found.hashes: how many of the class's versions hold it
    size: float
    weighed_size: float


class _Unread(Exception):
    """A file that is not compared; the message says why."""


@dataclass(frozen=True)
class _Match:
    first: str
    second: str
    program: str
    score: float
    share: float
    shares: tuple
    slices: tuple  # of each side: (every piece it shares, the pieces only the two hold);
    # None for a match that cannot be among the `most` given a page (_Drawn)
    codes: tuple  # the two _Code, as read once
    taken: tuple  # of each side: the look-alike compared, or ""
    also: tuple = ()  # as Pair.also


def scan(submissions: dict, programs: list, shared, out: Path, most: int = 20,
         least: float = 0.0, languages: dict = None, blotted: dict = None,
         every_pair: bool = False) -> Scan:
    """Every pair scoring at least `least`, most similar first; the `most` first each get
    a page under out/similarity/. `submissions` are folders as exactmark.classroom.
    kept_programs keeps them, `programs` file names in each; `shared` the files everyone
    may share, for all programs or ({program: [files]}) for each; `languages` each program's
    tokenizer (a Pygments lexer name; Python by default); `blotted` (anonymous marking) a
    function per student that blots their name out of a text, applied to what a page or
    the summary shows of their files (it is compared as it is).

    Each program is compared only with the same program of the other students; a student without
    it (or whose copy is a link or binary) is left out of that program's pairs, and the scan says
    why. A student who handed it in under a look-alike name only is compared with that file, and
    the scan says which. Pairs that share nothing beyond the shared code are not listed. Pages
    of an earlier scan are removed first, so that none is left that this scan does not list.

    Only the pairs that share a k-gram are compared (_sharing); `every_pair` compares every
    pair, as the scan did before its index, to the same result: the tests and
    bench/similarity_scale.py check the index against it.
    """
    folder = Path(out) / FOLDER
    for old in folder.glob(OLD_PAGES):
        old.unlink()
    languages, blotted = languages or {}, blotted or {}
    lookalikes = {name: kept_programs.taken(Path(where)) for name, where in submissions.items()}
    matches, cut, left_out, taken, drawn = [], {}, {}, {}, _Drawn(most, least)
    for program in programs:
        language = languages.get(program, LANGUAGE)
        boilerplate = (_boilerplate(shared.get(program, []) if isinstance(shared, dict)
                                    else shared, language) if len(submissions) > 1 else None)
        codes, prints = {}, {}  # prints: text -> its fingerprint, for a verbatim copy
        for name in sorted(submissions):
            try:
                code, taken_for = _version(Path(submissions[name]), program,
                                           lookalikes[name].get(program, []))
            except _Unread as why:
                left_out[name, program] = str(why)
                continue
            if taken_for:
                taken_for = blotted.get(name, str)(taken_for)
                taken[name, program] = taken_for
            if code.truncated:
                cut[name, program] = CUT.format(size=code.kib, kib=MOST_BYTES // 1024)
            if boilerplate is not None:
                if code.text not in prints:
                    prints[code.text] = _fingerprint(program, code.text, boilerplate, language)
                codes[name] = (code, prints[code.text], taken_for)
        weighed = _weigh(prints, [found for _, found, _ in codes.values()])
        names = list(codes)
        for first, second in (combinations(range(len(names)), 2) if every_pair
                              else _sharing([found for _, found, _ in codes.values()])):
            matches.extend(_compare(program, (names[first], names[second]), *(
                (code, weighed[code.text], taken_for)
                for code, _, taken_for in (codes[names[first]], codes[names[second]])),
                drawn=drawn))
    matches = [match for match in _also_high(matches) if match.score >= least]
    matches.sort(key=lambda match: (-round(match.score, SAME_SCORE_DIGITS), -len(match.also),
                                    -match.score, match.program, match.first, match.second))
    pairs = []
    for rank, match in enumerate(matches, start=1):
        view = ""
        if rank <= most:
            view = str(PurePosixPath(FOLDER, PAGE.format(rank=rank)))
            folder.mkdir(parents=True, exist_ok=True)
            (Path(out) / view).write_text(_page(match, blotted), encoding="utf-8")
        pairs.append(Pair(match.first, match.second, match.program, match.score, view,
                          match.share, match.also))
    return Scan(pairs, cut, left_out, taken)


def _sharing(prints: list):
    """Each pair (i, j), i < j, of `prints` that hold a k-gram in common, in the order
    combinations(range(len(prints)), 2) gives them: exactly the pairs _compare lists, since the
    k-grams compared are these, the boilerplate already out. Found as MOSS and Dolos find theirs,
    from an inverted index: each k-gram to the versions holding it. Those of a k-gram many hold
    are not dropped (MOSS's -m, Dolos's maxFingerprintPercentage): a pair sharing only such
    code is still listed, and a ring of copies scores in full on it. A group of versions holding
    the same k-grams (a copy's, a variant's) is met once however many k-grams it holds."""
    held = [np.unique(found.hashes) for found in prints]
    hashes = np.concatenate(held or [np.zeros(0, np.int64)])
    versions = np.repeat(np.arange(len(prints)), [len(each) for each in held])
    order = np.lexsort((versions, hashes))
    hashes, versions = hashes[order], versions[order]
    bounds = np.flatnonzero(np.diff(hashes)) + 1
    groups = {group.tobytes(): group for group in np.split(versions, bounds) if len(group) > 1}
    among = [[] for _ in prints]  # each version's groups
    for group in groups.values():
        for version in group.tolist():
            among[version].append(group)
    for first, its in enumerate(among):
        if its:
            others = np.unique(np.concatenate(its))
            yield from ((first, second) for second in others[others > first].tolist())


def _version(folder: Path, program: str, lookalikes: list) -> tuple:
    """(a student's version of `program`, what says which look-alike it is, or ""): the file
    named after the program, else the look-alike kept for it, else _Unread."""
    if lookalikes and not os.path.lexists(folder / program):
        code = _read(folder / kept_programs.LOOKALIKE.format(program=program))
        return code, "; ".join(TAKEN.format(file=escaped(path), name=name,
                                            why=escaped(likeness(path, name)))
                               for path, name in lookalikes)
    return _read(folder / program), ""


def _also_high(matches: list) -> list:
    """The matches, each high in its program naming the other programs where the same two
    students are high."""
    high = {}
    for match in matches:
        if match.score >= HIGH:
            high.setdefault((match.first, match.second), []).append(match)
    return [replace(match, also=tuple((other.program, other.score)
                                      for other in high.get((match.first, match.second), [])
                                      if other is not match))
            if match.score >= HIGH else match for match in matches]


def _page(match, blotted: dict) -> str:
    """A pair's page; with `blotted`, both names blotted out of both sides (a copy may
    carry the other's name)."""
    first, second = (blotted.get(name, str) for name in (match.first, match.second))
    sides = [_side(*side, lambda text: second(first(text)))
             for side in zip((match.first, match.second), match.shares, match.codes,
                             match.slices, match.taken)]
    return _TEMPLATE.render(
        title=TITLE.format(program=match.program, first=match.first, second=match.second),
        score=SCORE.format(percent=100 * match.score, share=100 * match.share),
        also=ALSO.format(programs=", ".join(ALSO_ONE.format(program=program, percent=100 * score)
                                            for program, score in match.also))
        if match.also else "",
        note=NOTE, sides=sides, ALONE=ALONE)


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
    return _Print(hashes[order], starts[order], len(found.filtered_code), found.offsets)


def _weigh(prints: dict, versions: list) -> dict:
    """{text: _Weighed}: each fingerprint weighed by how many of `versions` (one per student,
    a verbatim copy as often as it was handed in) hold each of its k-grams."""
    if not versions:
        return {}
    held, counts = np.unique(np.concatenate([np.unique(found.hashes) for found in versions]),
                             return_counts=True)
    weighed = {}
    for text, found in prints.items():
        holders = counts[np.searchsorted(held, found.hashes)] if len(held) else np.ones(0, int)
        weights = 1 / np.maximum(1, holders - 1)
        each = _covered(found, np.ones(len(found.starts), bool), weights)
        weighed[text] = _Weighed(found, weights, holders, float(np.count_nonzero(each)),
                                 float(each.sum()))
    return weighed


def _covered(found: _Print, chosen: np.ndarray, weights: np.ndarray) -> np.ndarray:
    """Each filtered character's weight among the `chosen` k-grams covering it: the largest
    (the rarest code it is part of), 0 where none does."""
    each = np.zeros(found.length)
    starts = found.starts[chosen]
    np.maximum.at(each, (starts[:, None] + np.arange(NOISE)).ravel(),
                  np.repeat(weights[chosen], NOISE))
    return each


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


class _Drawn:
    """Which matches keep where their code is shared, for a page: only the `most` first get one,
    ranked first by score to SAME_SCORE_DIGITS, so a match scoring (so rounded) below the `most`
    best of those found so far that will be listed (at least `least`) never gets one: its
    pieces are not kept, and 92,000 pairs of 2,000 students hold 220 MiB less."""

    def __init__(self, most: int, least: float):
        self.most, self.least, self.best = most, least, []  # best: a heap of rounded scores

    def wanted(self, score: float) -> bool:
        """Whether a match scoring `score` may be among the `most` first; counted if so."""
        rounded = round(score, SAME_SCORE_DIGITS)
        if self.most <= 0 or (len(self.best) == self.most and rounded < self.best[0]):
            return False
        if score >= self.least:
            (heapq.heappush if len(self.best) < self.most else heapq.heappushpop)(
                self.best, rounded)
        return True


def _compare(program, names, one, other, drawn: _Drawn):
    """The pair, when the two share anything beyond the boilerplate: for each side, the share of
    it the other holds (in full, as compare_files, and weighed) and, when `drawn` wants it, where
    it is, from the k-grams of each side that the other holds, found in its sorted hashes."""
    sides = one[1], other[1]
    held = [mine.found.hashes for mine in sides]
    shared = [np.searchsorted(theirs, mine.found.hashes, "right")
              > np.searchsorted(theirs, mine.found.hashes) for mine, theirs in (
                  (sides[0], held[1]), (sides[1], held[0]))]
    if not shared[0].any():
        return []
    shares, weighed = zip(*(_copied(mine, chosen) for mine, chosen in zip(sides, shared)))
    slices = (tuple(_pieces(mine, chosen) for mine, chosen in zip(sides, shared))
              if drawn.wanted(max(weighed)) else None)
    return [_Match(*names, program, max(weighed), max(shares), shares, slices,
                   (one[0], other[0]), (one[2], other[2]))]


def _copied(mine: _Weighed, shared: np.ndarray):
    """(the share of my file the other holds, in full and weighed, each at most 1): the shares
    as compare_files computes them, from where the k-grams we share start."""
    each = _covered(mine.found, shared, mine.weights)
    share = np.count_nonzero(each) / mine.size if mine.size else 0.0
    weighed = each.sum() / mine.weighed_size if mine.weighed_size else 0.0
    return min(1.0, float(share)), min(1.0, float(weighed))


def _pieces(mine: _Weighed, shared: np.ndarray) -> tuple:
    """Where in my text is code the other holds, and where code only the two of us hold."""
    alone = shared & (mine.holders <= 2)
    return tuple(_in_text(mine.found, mine.found.starts[chosen]) for chosen in (shared, alone))


def _in_text(found: _Print, starts: np.ndarray) -> np.ndarray:
    """The pieces of code covered by k-grams starting at `starts`, as (starts, ends) in the text
    as handed in: copydetect's slices of the filtered code, moved past what was filtered out."""
    slices = get_copied_slices(starts, NOISE)
    if len(found.offsets) and slices.size:
        slices = slices + found.offsets[:, 1][np.clip(np.searchsorted(found.offsets[:, 0], slices),
                                                      0, found.offsets.shape[0] - 1)]
    return slices.astype(np.int64)


def _side(name, share, code, slices, taken, blot) -> dict:
    """One column of a page: the file as pieces of (text, COMMON, ALONE or 0: shared with
    other versions too, with the other only, or not), for the template to escape; `blot`
    keeps each character where it was (a name in the code blotted, the pieces unmoved)."""
    text = blot(code.text)
    kinds = np.zeros(len(text), np.int8)
    for kind, pieces in zip((COMMON, ALONE), slices):
        for start, end in zip(pieces[0].tolist(), pieces[1].tolist()):
            kinds[max(0, start):max(0, end)] = kind
    ends = np.flatnonzero(np.diff(kinds)) + 1
    pieces = [(_drawn(text[start:end]), int(kinds[start]))
              for start, end in zip([0, *ends.tolist()], [*ends.tolist(), len(text)])
              if end > start]
    return {"heading": SHARE.format(name=name, percent=100 * share),
            "taken": TAKEN_SIDE.format(taken=taken) if taken else "",
            "truncated": (TRUNCATED.format(kib=MOST_BYTES // 1024, size=code.kib)
                          if code.truncated else ""),
            "pieces": pieces or [("", 0)]}


def _drawn(text: str) -> str:
    """Code as it is: a control, a bidi override or a zero-width character (which could make the
    page show other code than the file holds) drawn as ⟨U+202E⟩; tabs and line ends kept."""
    return "".join(show_char(char) if char not in KEPT and unicodedata.category(char) in HIDDEN
                   else char for char in text)


