"""A program's stored signatures (docs/rules/PROGRAM.signatures.json, `make signatures`),
read as the matcher's Signatures."""

import json
from dataclasses import dataclass
from pathlib import Path

from exactmark.diagnosis.evidence import as_set
from exactmark.diagnosis.matching import Failure, Signature
from exactmark.kit.cases import ROOT

PROGRAMS = ("solitaire_1", "solitaire_2", "hoyle_cli", "patience", "calculation_cpp")


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


def path_of(program: str) -> Path:
    return ROOT / "docs" / "rules" / f"{program}.signatures.json"


def read(program: str, path: Path = None) -> Stored:
    data = json.loads((path or path_of(program)).read_text(encoding="utf-8"))
    signatures = [Signature(variant, wrong["rule"], wrong["mistake"],
                            {case: failure_of(failure)
                             for case, failure in wrong["failed"].items()})
                  for variant, wrong in sorted(data["wrong"].items())]
    return Stored(data["program"], tuple(data["cases"]), data["visibility"], signatures)
