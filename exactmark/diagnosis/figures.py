"""python -m exactmark.diagnosis.figures [PROGRAM ...]

How well the matcher names the kit's own mistakes: each wrong program marked as a
student (its signature is that marking) is diagnosed on every marked case (after the
window) and on the visible cases alone (before the deadline). Prints, a line per program
and per moment: named first (its own mistake, or another wrong program of its rule, comes
first), named in the top three, named wrongly (the first named breaks another rule),
named nothing; exit status 0."""

import sys

from exactmark.diagnosis import matching
from exactmark.diagnosis.signatures_file import PROGRAMS, read

LINE = ("{program:<16} {moment:<16} {total:>3} wrong programs: named first {first} ({first_share:.0%}), "
        "in the top three {top} ({top_share:.0%}), wrongly named {wrong}, nothing named {none}")
MOMENTS = {"after the window": lambda stored: tuple(stored.cases),
           "before the deadline": lambda stored: tuple(case for case in stored.cases
                                                       if stored.visibility[case] == "visible")}


def standing(signature, signatures: list, seen: tuple) -> tuple:
    """(named first, in the top three, wrongly named) for one wrong program as a student."""
    found = matching.diagnosed(signature.failed, signatures, seen)
    ranked = matching.ranked_matches(signature.failed, signatures, seen)[:3]
    first = bool(found) and found[0].signature.rule == signature.rule
    top = any(match.signature.rule == signature.rule for match in ranked)
    return first, top, bool(found) and not first


def figures(stored, seen: tuple) -> dict:
    shown = [signature for signature in stored.signatures
             if any(case in signature.failed for case in seen)]
    counted = [standing(signature, stored.signatures, seen) for signature in shown]
    total = len(counted) or 1
    first = sum(one for one, _, _ in counted)
    top = sum(in_top for _, in_top, _ in counted)
    wrong = sum(bad for _, _, bad in counted)
    return dict(total=len(counted), first=first, first_share=first / total, top=top,
                top_share=top / total, wrong=wrong, none=len(counted) - first - wrong)


def main(argv=None) -> int:
    for program in (argv if argv is not None else sys.argv[1:]) or PROGRAMS:
        stored = read(program)
        for moment, seen in MOMENTS.items():
            print(LINE.format(program=program, moment=moment, **figures(stored, seen(stored))))
    return 0


if __name__ == "__main__":
    sys.exit(main())
