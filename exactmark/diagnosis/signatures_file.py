"""A program's stored signatures (PROGRAM.signatures.json, written by `make signatures`)
as the matcher reads them: Signatures of Failures."""

from dataclasses import dataclass

from exactmark.diagnosis.evidence import as_set
from exactmark.diagnosis.matching import Failure, Signature


@dataclass(frozen=True)
class Stored:
    program: str
    cases: tuple  # every marked case, in the assignment's order
    visibility: dict  # case -> its visibility
    signatures: list


def failure_of(stored: dict) -> Failure:
    """A failure as a signature, or results.json, stores it."""
    return Failure(stored["kind"], stored.get("near_miss", ""), stored.get("digest", ""),
                   as_set(stored.get("lines", ())))


def parsed(data: dict) -> Stored:
    """The signatures file's data, read."""
    signatures = [Signature(variant, wrong["rule"], wrong["mistake"],
                            {case: failure_of(failure) for case, failure in wrong["failed"].items()})
                  for variant, wrong in sorted(data["wrong"].items())]
    return Stored(data["program"], tuple(data["cases"]), data["visibility"], signatures)
