"""Python mutants made with cosmic-ray's operators: every position each operator can change
in each file, and the text of a file with one of them changed.

cosmic-ray's own `mutate_code` parses the whole file again for each mutant (a tenth of a
second for a 300-line file, thousands of times); here each file is parsed once, and a
mutant is the operator applied to a copy of its node (its parent shared, never changed), spliced into the text at
the node's place: the same text `mutate_code` gives, at a thousandth of the cost."""

import copy
from functools import lru_cache

from exactmark.mutants.model import Mutant

# Operators left out, and why: they make no mistake a student makes, or not the same one twice.
SKIPPED = {
    "core/VariableReplacer": "random: it puts a random number or another variable in place",
    "core/VariableInserter": "random, and it needs a cause and an effect variable per run",
    "core/RemoveDecorator": "a program without @dataclass or @property fails to start: no "
                            "student's mistake, and every case kills it",
    "core/NoOp": "changes nothing: cosmic-ray's baseline run",
}


def operators() -> tuple:
    """The names of the operators used, cosmic-ray's order."""
    from cosmic_ray.plugins import operator_names

    return tuple(name for name in operator_names() if name not in SKIPPED)


@lru_cache(maxsize=None)
def _operator(name: str):
    from cosmic_ray.plugins import get_operator

    return get_operator(name)()


@lru_cache(maxsize=64)
def _positions(text: str, name: str) -> tuple:
    """(node, start line) of each position `name` can change in `text`, in cosmic-ray's
    order: its occurrence is the index."""
    operator = _operator(name)
    return tuple((node, start[0]) for node in _nodes(text)
                 for start, _ in operator.mutation_positions(node))


@lru_cache(maxsize=16)
def _nodes(text: str) -> tuple:
    """Every node of `text`'s tree, in cosmic-ray's order (parsed once)."""
    from cosmic_ray.ast import ast_nodes, get_ast

    return tuple(ast_nodes(get_ast(text)))


@lru_cache(maxsize=16)
def _offsets(text: str) -> list:
    """The offset in `text` of the start of each line (parso's lines: split at \\n)."""
    found = [0]
    for index, character in enumerate(text):
        if character == "\n":
            found.append(index + 1)
    return found


def _changed(text: str, name: str, occurrence: int) -> str:
    """`text` with the `occurrence`th position of operator `name` changed."""
    node, _ = _positions(text, name)[occurrence]
    clone = copy.deepcopy(node, {id(node.parent): node.parent})  # its parent shared, unchanged
    index = sum(1 for other, _ in _positions(text, name)[:occurrence] if other is node)
    new = _operator(name).mutate(clone, index)
    line, column = node.end_pos
    end = _offsets(text)[line - 1] + column
    start = end - len(node.get_code(include_prefix=True))
    return text[:start] + ("" if new is None else new.get_code(include_prefix=True)) + text[end:]


def _line(text: str, number: int) -> str:
    lines = text.split("\n")
    return lines[number - 1].strip() if number <= len(lines) else ""


def python_mutants(program: str, files: dict) -> list:
    """Every mutant of `files` (path relative to the reference's root -> text), by file,
    operator and occurrence."""
    found = []
    for path, text in sorted(files.items()):
        for name in operators():
            for occurrence, (_, line) in enumerate(_positions(text, name)):
                found.append(Mutant(program, path, line, name, occurrence, _line(text, line),
                                    _line(_changed(text, name, occurrence), line)))
    return found


def mutated(files: dict, mutant: Mutant) -> dict:
    """The texts of `files` with `mutant` applied."""
    return {**files, mutant.file: _changed(files[mutant.file], mutant.operator,
                                           mutant.occurrence)}
