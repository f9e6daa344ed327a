"""The package's floors (exactmark.FLOORS), read from every module's own imports: lazy ones
inside functions count, so that where an import line sits decides nothing."""

import ast
import shutil
from pathlib import Path

import exactmark

PACKAGE = Path(exactmark.__file__).resolve().parent
PROGRAM_LIBRARIES = ("common", "hoyle", "patience_games", "solitaire_1", "solitaire_2",
                     "hoyle_cli", "patience")


def module_name(path: Path, package: Path) -> str:
    parts = path.relative_to(package.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def imports(path: Path, package: Path) -> set:
    """Every module `path` imports, wherever the import line sits; `from a import b` counts
    as a.b when a/b.py exists, else as a."""
    here = module_name(path, package)
    found = set()
    for node in ast.walk(ast.parse(path.read_bytes(), str(path))):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                parent = here.split(".")[:len(here.split(".")) - node.level + (path.name == "__init__.py")]
                base = ".".join(parent + ([base] if base else []))
            for alias in node.names:
                submodule = f"{base}.{alias.name}"
                relative = Path(*submodule.split(".")[1:])
                is_module = (package / relative).with_suffix(".py").exists() \
                    or (package / relative / "__init__.py").exists()
                found.add(submodule if submodule.startswith(package.name + ".") and is_module
                          else base)
    return found


def floor_of(module: str, floors) -> int:
    for number, floor in enumerate(floors):
        if any(module == top or module.startswith(top + ".") for top in floor):
            return number
    return None


def graph(package: Path) -> dict:
    """module -> the package's modules it imports."""
    return {module_name(path, package): {m for m in imports(path, package)
                                         if m == package.name or m.startswith(package.name + ".")}
            for path in sorted(package.rglob("*.py"))}


def problems(package: Path, floors) -> list:
    """Each import that climbs, each module on no floor, each circle, each program library
    imported, as one line."""
    found = []
    modules = graph(package)
    for module, imported in sorted(modules.items()):
        if module != package.name and floor_of(module, floors) is None:
            found.append(f"{module} is on no floor")
            continue
        for target in sorted(imported):
            if target == package.name:
                continue
            if floor_of(target, floors) is not None and module != package.name \
                    and floor_of(target, floors) > floor_of(module, floors):
                found.append(f"{module} imports {target}, a floor above it")
    for path in sorted(package.rglob("*.py")):
        libraries = {m for m in imports(path, package) if m.split(".")[0] in PROGRAM_LIBRARIES}
        if libraries:
            found.append(f"{module_name(path, package)} imports the programs' {sorted(libraries)}")
    found += [f"a circle: {' -> '.join(circle)}" for circle in circles(modules)]
    return found


def circles(modules: dict) -> list:
    """One cycle through each strongly connected set of modules (Tarjan's algorithm)."""
    index, low, stack, on_stack, found = {}, {}, [], set(), []

    def visit(module):
        index[module] = low[module] = len(index)
        stack.append(module)
        on_stack.add(module)
        for target in modules.get(module, ()):
            if target not in modules:
                continue
            if target not in index:
                visit(target)
                low[module] = min(low[module], low[target])
            elif target in on_stack:
                low[module] = min(low[module], index[target])
        if low[module] == index[module]:
            members = []
            while True:
                member = stack.pop()
                on_stack.discard(member)
                members.append(member)
                if member == module:
                    break
            if len(members) > 1 or module in modules.get(module, ()):
                found.append(sorted(members) + [sorted(members)[0]])

    for module in sorted(modules):
        if module not in index:
            visit(module)
    return found


def test_no_module_imports_from_a_floor_above_its_own_nor_in_a_circle():
    assert problems(PACKAGE, exactmark.FLOORS) == []


def test_every_floor_names_modules_that_exist():
    for floor in exactmark.FLOORS:
        for top in floor:
            relative = Path(*top.split(".")[1:])
            assert (PACKAGE / relative).with_suffix(".py").exists() \
                or (PACKAGE / relative / "__init__.py").exists(), top


def planted(tmp_path, lines: dict) -> list:
    """The problems a copy of the package has beyond the package's own, once each module of
    `lines` ends with a function holding its import line."""
    copy = shutil.copytree(PACKAGE, tmp_path / PACKAGE.name,
                           ignore=shutil.ignore_patterns("__pycache__"))
    for module, line in lines.items():
        path = copy / (module.replace(".", "/") + ".py")
        path.write_text(path.read_text(encoding="utf-8") + f"\n\ndef planted():\n    {line}\n",
                        encoding="utf-8")
    before = problems(PACKAGE, exactmark.FLOORS)
    return [line for line in problems(copy, exactmark.FLOORS) if line not in before]


def test_a_lazy_import_from_a_floor_above_is_found(tmp_path):
    assert planted(tmp_path, {"base/from_make": "from exactmark.classroom.sheet import Row"}) == [
        "exactmark.base.from_make imports exactmark.classroom.sheet, a floor above it"]


def test_a_circle_within_one_floor_is_found(tmp_path):
    assert planted(tmp_path, {"base/visible": "from exactmark.base import tree",
                              "base/tree": "from exactmark.base.visible import escaped"}) == [
        "a circle: exactmark.base.tree -> exactmark.base.visible -> exactmark.base.tree"]


def test_a_program_library_imported_by_the_tool_is_found(tmp_path):
    assert planted(tmp_path, {"kit/cases": "from common import console"}) == [
        "exactmark.kit.cases imports the programs' ['common']"]
