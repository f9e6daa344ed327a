"""Sample solutions: each reference program as one file, standard library only; or, for
an assignment, exactly what its student hands in (exactmark standalone, exactmark/standalone.py).

A Python program whose reference is the kit is bundled; any other program's files are
those of its reference that a student hands in, copied as they are.

A program keeps its own text whole; what it imports from the kit's packages is
copied in above it, one top-level definition at a time and only what it uses
(followed through the kit's own imports), each module's part under a heading
naming its file. References through a module (`console.read_seed`) become the
plain name (`read_seed`); where two modules define one name, the second comes
in under its module's name before it (`solver_WON`). A top-level `if` that only
imports (a version's choice: tomllib or tomli) is carried, whole, where the bundle
uses a name it imports. A top-level statement the bundler does not know how to
carry is refused: it never writes a program that differs from the one it read.
"""

import ast
import textwrap
from dataclasses import dataclass, field
from pathlib import Path

from exactmark.kit.assignment import load, names
from exactmark.kit.cases import PACKAGE_HOME, ROOT
from exactmark.kit.programs import PYTHON

TOOL = __name__.split(".")[0]  # the tool's own modules lie below PACKAGE_HOME, not the kit
KIT_PACKAGES = ("common", "hoyle", "patience_games")

# Where the kit has a faster form that needs more than the standard library,
# the sample solution calls the plain form it falls back on: the same output.
PLAIN_FORMS = {("common.deal", "shuffled_decks"): "decks_one_by_one"}

HEADER = ("A standalone sample solution, written by `make standalone` from {path} "
          "and the parts of the kit it uses ({sources}): standard library only.")
SECTION = "--- {path}: {summary}"
PROGRAM_ITSELF = "the program itself, as the kit has it."
WIDTH = 88

NOT_CARRIED = "{path}:{line}: the bundler cannot carry this top-level statement: {text}"
NAME_CLASH = "{program}: {name!r} is defined by both {first} and {second}"
SHADOWED = ("{path}:{line}: {name!r} is both what the kit's {bundled!r} is called here and a "
            "local name of the same definition: the bundler cannot carry it")


class BundleError(Exception):
    pass


@dataclass
class Module:
    """One source file of the kit: what it defines at top level and what it imports."""

    name: str
    path: Path
    source: bytes
    tree: ast.Module
    definitions: dict = field(default_factory=dict)  # name -> top-level statement
    kit_names: dict = field(default_factory=dict)  # local name -> (module, name)
    kit_modules: dict = field(default_factory=dict)  # local name -> module
    standard_imports: list = field(default_factory=list)
    chosen_imports: list = field(default_factory=list)  # top-level `if`s that only import
    guards: list = field(default_factory=list)  # the program's top-level `if`s: run first


def is_kit(module: str, packages=KIT_PACKAGES) -> bool:
    return module.split(".")[0] in packages


def module_path(module: str) -> Path:
    home = PACKAGE_HOME if module.split(".")[0] == TOOL else ROOT
    return home / (module.replace(".", "/") + ".py")


def shown(path: Path) -> Path:
    """A source's path as the kit names it: below the kit, or below the package's folder."""
    return path.relative_to(ROOT if ROOT in path.parents else PACKAGE_HOME)


def read_module(name: str, path: Path, packages=KIT_PACKAGES, program: bool = False) -> Module:
    """The module's definitions and imports; a top-level `if` (other than the main block)
    only in the program itself, where it is a guard that runs before any kit definition
    (a platform the program cannot run on is told so before a definition fails there)."""
    source = path.read_bytes()
    module = Module(name, path, source, ast.parse(source, str(path)))
    for statement in module.tree.body:
        if isinstance(statement, ast.ImportFrom) and statement.module \
                and is_kit(statement.module, packages):
            for alias in statement.names:
                local = alias.asname or alias.name
                submodule = f"{statement.module}.{alias.name}"
                if module_path(submodule).exists():
                    module.kit_modules[local] = submodule
                else:
                    module.kit_names[local] = (statement.module, alias.name)
        elif isinstance(statement, ast.Import) and any(is_kit(a.name, packages)
                                                       for a in statement.names):
            raise BundleError(not_carried(module, statement))
        elif isinstance(statement, (ast.Import, ast.ImportFrom)):
            module.standard_imports.append(statement)
        elif only_imports(statement, packages):
            module.chosen_imports.append(statement)
        elif isinstance(statement, (ast.FunctionDef, ast.ClassDef)):
            module.definitions[statement.name] = statement
        elif isinstance(statement, (ast.Assign, ast.AnnAssign)):
            targets = statement.targets if isinstance(statement, ast.Assign) else [statement.target]
            for target in targets:
                for node in ast.walk(target):
                    if isinstance(node, ast.Name):
                        module.definitions[node.id] = statement
        elif program and isinstance(statement, ast.If) and not is_main_block(statement):
            module.guards.append(statement)
        elif not is_docstring(statement) and not is_main_block(statement):
            raise BundleError(not_carried(module, statement))
    return module


def only_imports(statement, packages=KIT_PACKAGES) -> bool:
    """A top-level `if` whose every branch only imports from outside the kit: a choice of
    module by version (`if sys.version_info >= (3, 11): import tomllib`, else tomli)."""
    if not isinstance(statement, ast.If) or is_main_block(statement):
        return False
    branches = [*statement.body, *statement.orelse]
    return all(only_imports(branch, packages) if isinstance(branch, ast.If) else
               isinstance(branch, (ast.Import, ast.ImportFrom)) and not any(
                   is_kit(name, packages) for name in
                   ([alias.name for alias in branch.names] if isinstance(branch, ast.Import)
                    else [branch.module or ""]))
               for branch in branches)


def imported_names(statement) -> set:
    """The names a statement's imports bind, in any of its branches."""
    return {alias.asname or alias.name.split(".")[0] for node in ast.walk(statement)
            if isinstance(node, (ast.Import, ast.ImportFrom)) for alias in node.names}


def is_docstring(statement) -> bool:
    return isinstance(statement, ast.Expr) and isinstance(statement.value, ast.Constant)


def is_main_block(statement) -> bool:
    return isinstance(statement, ast.If) and "__name__" in ast.unparse(statement.test)


def not_carried(module: Module, statement) -> str:
    return NOT_CARRIED.format(path=shown(module.path), line=statement.lineno,
                              text=ast.unparse(statement).splitlines()[0])


class Bundle:
    """The kit definitions one program needs, found by following its references."""

    def __init__(self, program: str, packages=KIT_PACKAGES):
        self.program, self.packages = program, packages
        self.modules = {}
        self.needed = {}  # (module, name) -> statement
        self.owner = {}  # name in the bundle -> module that defines it
        self.bundle_names = {}  # (module, name) -> its name in the bundle
        self.edits = {}  # module -> list of (start, end, replacement) in its bytes

    def module(self, name: str) -> Module:
        if name not in self.modules:
            path = ROOT / f"{name}.py" if name == self.program and "." not in name \
                else module_path(name)
            self.modules[name] = read_module(name, path, self.packages, name == self.program)
        return self.modules[name]

    def collect(self) -> None:
        main = self.module(self.program)
        for statement in main.tree.body:
            if not isinstance(statement, (ast.Import, ast.ImportFrom)):
                self.follow(main, statement)
        for guard in main.guards:
            for node in ast.walk(guard):
                if isinstance(node, ast.Name) and (node.id in main.kit_names
                                                   or node.id in main.kit_modules):
                    raise BundleError(not_carried(main, guard))

    def follow(self, module: Module, statement) -> None:
        """Note every kit name `statement` uses, and what the text must say instead. A
        name through a module (`feedback.named`) that a local name of the statement shadows
        plainly comes in under its module's name (`feedback_named`); a renamed name that is
        also a parameter's, or an inner definition's or import's, is refused (those are not
        renamed with it)."""
        local = bound_names(statement)
        unrenamed = bound_unrenamed(statement)
        for node in ast.walk(statement):
            if isinstance(node, ast.ImportFrom) and node.module and is_kit(node.module,
                                                                          self.packages) \
                    or isinstance(node, ast.Import) and any(is_kit(alias.name, self.packages)
                                                            for alias in node.names):
                raise BundleError(not_carried(module, node))
            if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) \
                    and node.value.id in module.kit_modules:
                name = self.need(module.kit_modules[node.value.id], node.attr, local)
                if name in local:
                    raise BundleError(SHADOWED.format(path=shown(module.path), line=node.lineno,
                                                      name=name, bundled=ast.unparse(node)))
                self.edit(module, node, name)
                continue
            if isinstance(node, ast.Name) and node.id in module.kit_names:
                name = self.need(*module.kit_names[node.id])
            elif isinstance(node, ast.Name) and node.id in module.definitions \
                    and module.name != self.program:
                name = self.need(module.name, node.id)
            else:
                continue
            if name != node.id:
                if node.id in unrenamed:
                    raise BundleError(SHADOWED.format(path=shown(module.path), line=node.lineno,
                                                      name=node.id, bundled=name))
                self.edit(module, node, name)

    def need(self, module_name: str, name: str, avoid: set = frozenset()) -> str:
        """Bring in `name` of `module_name`; the name it has in the bundle: its own, or,
        when another module's or the program's name is the same, or one of `avoid` (the
        local names where it is used), the module's name before it."""
        name = PLAIN_FORMS.get((module_name, name), name)
        module = self.module(module_name)
        if name in module.kit_names:  # a name the module itself imports
            return self.need(*module.kit_names[name], avoid)
        statement = module.definitions[name]
        if (module_name, name) in self.needed:
            return self.bundle_names[(module_name, name)]
        bundled = name
        if name in self.owner or name in self.main_names() or name in avoid:
            bundled = f"{module_name.split('.')[-1]}_{name}"
            if bundled in self.owner or bundled in self.main_names():
                raise BundleError(NAME_CLASH.format(program=self.program, name=name,
                                                    first=self.owner.get(name, self.program),
                                                    second=module_name))
        self.owner[bundled] = module_name
        self.bundle_names[(module_name, name)] = bundled
        self.needed[(module_name, name)] = statement
        if bundled != name and isinstance(statement, (ast.FunctionDef, ast.ClassDef)):
            self.rename_definition(module, statement, bundled)
        self.follow(module, statement)
        return bundled

    def rename_definition(self, module: Module, statement, bundled: str) -> None:
        lines = module.source.splitlines(keepends=True)
        line = lines[statement.lineno - 1]
        keyword = b"class " if isinstance(statement, ast.ClassDef) else b"def "
        column = line.index(keyword + statement.name.encode(), statement.col_offset) + len(keyword)
        start = sum(map(len, lines[:statement.lineno - 1])) + column
        self.edits.setdefault(module.name, set()).add((start, start + len(statement.name), bundled))

    def main_names(self) -> dict:
        return self.module(self.program).definitions

    def edit(self, module: Module, node, replacement: str) -> None:
        lines = module.source.splitlines(keepends=True)
        start = sum(map(len, lines[:node.lineno - 1])) + node.col_offset
        end = sum(map(len, lines[:node.end_lineno - 1])) + node.end_col_offset
        self.edits.setdefault(module.name, set()).add((start, end, replacement))

    def text(self, module: Module, statement) -> str:
        """The statement's own lines (comments inside it too), with the edits made."""
        lines = module.source.splitlines(keepends=True)
        start = sum(map(len, lines[:first_line(statement) - 1]))
        end = sum(map(len, lines[:statement.end_lineno]))
        chunk = module.source[start:end]
        for begin, finish, replacement in sorted(self.edits.get(module.name, ()), reverse=True):
            if start <= begin and finish <= end:
                chunk = chunk[:begin - start] + replacement.encode() + chunk[finish - start:]
        return chunk.decode("utf-8")

    def ordered_modules(self) -> list:
        """Kit modules before those that use them; the program last."""
        order = []

        def visit(name):
            if name in order or name == self.program:
                return
            module = self.module(name)
            for target, _ in module.kit_names.values():
                visit(target)
            for target in module.kit_modules.values():
                visit(target)
            order.append(name)

        for module_name, _ in self.needed:
            visit(module_name)
        return order


def bound_names(statement) -> set:
    """The names a top-level definition binds inside itself: its parameters, what it
    assigns, and the definitions and imports within it."""
    if not isinstance(statement, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef,
                                  ast.Lambda)):
        return set()
    inside = [node for child in ast.iter_child_nodes(statement) for node in ast.walk(child)]
    return ({node.arg for node in inside if isinstance(node, ast.arg)}
            | {node.id for node in inside if isinstance(node, ast.Name)
               and isinstance(node.ctx, ast.Store)}
            | {node.name for node in inside
               if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef))}
            | {alias.asname or alias.name.split(".")[0] for node in inside
               if isinstance(node, (ast.Import, ast.ImportFrom)) for alias in node.names}
            | {node.name for node in inside if isinstance(node, ast.ExceptHandler) and node.name})


def bound_unrenamed(statement) -> set:
    """The names bound inside a statement where renaming their uses would not rename them:
    parameters, inner definitions, imports and `except ... as` names."""
    return ({node.arg for node in ast.walk(statement) if isinstance(node, ast.arg)}
            | {node.name for node in ast.walk(statement) if node is not statement
               and isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef))}
            | {node.name for node in ast.walk(statement)
               if isinstance(node, ast.ExceptHandler) and node.name}
            | imported_names(statement))


def first_line(statement) -> int:
    decorators = getattr(statement, "decorator_list", [])
    return min([statement.lineno] + [d.lineno for d in decorators])


def used_names(text: str) -> set:
    return {node.id for node in ast.walk(ast.parse(text)) if isinstance(node, ast.Name)}


def import_lines(statements, used: set) -> list:
    """The standard-library imports the bundle uses, one line each, sorted."""
    plain, named = set(), {}
    for statement in statements:
        for alias in statement.names:
            local = alias.asname or alias.name.split(".")[0]
            if local not in used:
                continue
            spelled = alias.name + (f" as {alias.asname}" if alias.asname else "")
            if isinstance(statement, ast.Import):
                plain.add(spelled)
            else:
                named.setdefault(statement.module, set()).add(spelled)
    return sorted(f"import {name}" for name in plain) + \
        [f"from {module} import {', '.join(sorted(names))}" for module, names in sorted(named.items())]


def summary(module: Module) -> str:
    """The first sentence of the module's docstring, on one line."""
    paragraph = ast.get_docstring(module.tree).split("\n\n")[0].replace("\n", " ")
    return paragraph.split(". ")[0].rstrip(".") + "."


def joined(found: Bundle, module: Module, statements: list) -> str:
    """The statements' texts, as far apart as in their file (two blank lines at
    most), or two blank lines apart where the file had others in between."""
    order = [id(s) for s in module.tree.body]
    text = found.text(module, statements[0])
    for before, after in zip(statements, statements[1:]):
        if order.index(id(after)) == order.index(id(before)) + 1:
            blank = min(2, first_line(after) - before.end_lineno - 1)
        else:
            blank = 2
        text += "\n" * blank + found.text(module, after)
    return text


def comment(text: str) -> str:
    return "\n".join(textwrap.wrap(text, WIDTH, initial_indent="# ", subsequent_indent="# "))


def bundle(program: str, packages=KIT_PACKAGES, header: str = HEADER) -> str:
    """The text of the standalone `program` (a top-level program, or a module of the kit),
    with what it uses of the kit's `packages`; `header` says what it is."""
    found = Bundle(program, packages)
    found.collect()
    main = found.module(program)
    used = [name for name in found.ordered_modules() if any(m == name for m, _ in found.needed)]
    sections = []
    for name in used:
        module = found.modules[name]
        statements = [s for (m, _), s in found.needed.items() if m == name]
        unique = sorted({id(s): s for s in statements}.values(), key=lambda s: s.lineno)
        path = shown(module.path)
        sections.append(comment(SECTION.format(path=path, summary=summary(module))) + "\n\n"
                        + joined(found, module, unique))
    own = [s for s in main.tree.body if not isinstance(s, (ast.Import, ast.ImportFrom))
           and not any(s is other for other in main.guards + main.chosen_imports)]
    itself = shown(main.path)
    sections.append(comment(SECTION.format(path=itself, summary=PROGRAM_ITSELF)) + "\n\n"
                    + joined(found, main, own[1:]))
    code = "\n\n".join(sections)
    guards = "".join(found.text(main, guard) + "\n\n" for guard in main.guards)
    imports = [s for m in found.modules.values() for s in m.standard_imports]
    used_here = used_names(guards + code)
    chosen = "".join(dict.fromkeys(  # once, where two modules choose alike
        "\n" + found.text(module, statement) for module in found.modules.values()
        for statement in module.chosen_imports if imported_names(statement) & used_here))
    used_here |= used_names(chosen)  # what the chosen `if`s test: sys.version_info
    sources = ", ".join(str(shown(found.modules[n].path)) for n in used)
    return "".join([
        found.text(main, own[0]).rstrip("\n"), "\n\n",
        comment(header.format(path=itself, sources=sources)), "\n\n",
        "\n".join(import_lines(imports, used_here)), chosen, "\n\n\n", guards,
        code.rstrip("\n"), "\n",
    ])


def of_the_kit(program) -> bool:
    """A Python program whose reference is the kit's: bundled with the kit parts it uses."""
    return program.language.name == PYTHON and program.reference == ROOT


def kit_programs() -> list:
    """The Python programs the kit's own assignments declare with the kit as reference."""
    found = {}
    for name in names():
        for program in load(name).programs.values():
            if of_the_kit(program):
                found.setdefault(program.entry, program)
    return list(found.values())


def read_by(program) -> list:
    """The files `write_program` reads to write `program`'s sample solution: what an
    autograder that makes the sample solution must ship."""
    if of_the_kit(program):
        found = Bundle(Path(program.entry).stem)
        found.collect()
        found.ordered_modules()
        return sorted(module.path for module in found.modules.values())
    files, problems = program.files(program.reference)
    if problems:
        raise BundleError(f"{program.name}: its reference {program.reference}: "
                          + "; ".join(problems))
    return [program.reference / name for name in files]


def write_program(program, out: Path) -> list:
    """What a student of `program` hands in, written in `out`: (path, lines) per file."""
    out.mkdir(parents=True, exist_ok=True)
    if of_the_kit(program):
        texts = {program.entry: bundle(Path(program.entry).stem)}
    else:
        texts = {path.name: path.read_text(encoding="utf-8") for path in read_by(program)}
    written = []
    for name, text in texts.items():
        (out / name).write_text(text, encoding="utf-8")
        written.append((out / name, text.count("\n")))
    return written


def write_all(out: Path) -> list:
    return [found for program in kit_programs() for found in write_program(program, out)]


def write_assignment(assignment, out: Path) -> list:
    """Exactly what a student of `assignment` hands in, at the top of `out`."""
    return [found for program in assignment.programs.values()
            for found in write_program(program, out)]
