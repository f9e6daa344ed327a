"""The bundler (exactmark/kit/bundle.py) on a tiny kit of its own: each test writes a
package `minikit` and a program in a folder the bundler takes for the kit's (its ROOT),
bundles the program with `minikit` as the kit's one package, then runs the bundle, alone
in another folder and isolated from any path where the kit could be imported, and reads
what it prints. Where the bundler cannot carry the program, the test reads its refusal."""

import subprocess
import sys
import textwrap

import pytest

from exactmark.kit import bundle as bundler
from exactmark.kit.bundle import BundleError, bundle

PACKAGES = ("minikit",)

FEEDBACK = '''
    """Feedback words."""


    def named(who):
        return f"hello {who}"
'''


@pytest.fixture
def kit(tmp_path, monkeypatch):
    """A folder the bundler reads as the kit's; returns how to write a file in it."""
    root = tmp_path / "kit"
    (root / "minikit").mkdir(parents=True)
    (root / "minikit" / "__init__.py").write_text("", encoding="utf-8")
    monkeypatch.setattr(bundler, "ROOT", root)

    def write(path, text):
        (root / path).write_text(textwrap.dedent(text).lstrip("\n"), encoding="utf-8")

    return write


def run_bundle(tmp_path, program):
    """The bundle of `program`, and what it prints run alone with the standard library."""
    text = bundle(program, PACKAGES)
    folder = tmp_path / "bundled"
    folder.mkdir()
    (folder / f"{program}.py").write_text(text, encoding="utf-8")
    done = subprocess.run([sys.executable, "-I", f"{program}.py"], cwd=folder,
                          capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, f"the bundle failed:\n{done.stderr}\n--- the bundle:\n{text}"
    return text, done.stdout


def refusal(program):
    with pytest.raises(BundleError) as refused:
        bundle(program, PACKAGES)
    return str(refused.value)


# A top-level `if` that only chooses a module by version ---------------------------------

SETTINGS = '''
    """Settings written in TOML."""

    import sys

    if sys.version_info >= (3, 11):
        import tomllib
    else:
        import tomli as tomllib


    def width(text):
        return tomllib.loads(text)["width"]


    def margin():
        return 2
'''


def test_a_kit_modules_choice_of_tomllib_by_version_is_carried_whole_and_the_bundle_runs(
        kit, tmp_path):
    """kit/rules.py chooses tomllib or tomli so; the checker that bundles it must run. The
    `if` needs `sys`, which nothing else here uses: the bundle imports it all the same."""
    kit("minikit/settings.py", SETTINGS)
    kit("prog.py", '''
        """Prints a width read from TOML."""

        from minikit import settings

        if __name__ == "__main__":
            print(settings.width("width = 7"))
    ''')
    text, printed = run_bundle(tmp_path, "prog")
    assert printed == "7\n"
    assert text.count("if sys.version_info >= (3, 11):") == 1
    assert "else:\n    import tomli as tomllib\n" in text, "both branches come in"


def test_a_choice_of_module_the_bundle_does_not_use_stays_out(kit, tmp_path):
    """The `if` comes in where the bundle uses a name it imports, not because its module
    has something else the program needs."""
    kit("minikit/settings.py", SETTINGS)
    kit("prog.py", '''
        """Prints the margin."""

        from minikit import settings

        if __name__ == "__main__":
            print(settings.margin())
    ''')
    text, printed = run_bundle(tmp_path, "prog")
    assert printed == "2\n"
    assert "tomllib" not in text
    assert "import sys" not in text


def test_the_programs_own_choice_of_tomllib_comes_in_once(kit, tmp_path):
    """The program's own version choice, like its other imports, is said once, at the top."""
    kit("minikit/feedback.py", FEEDBACK)
    kit("prog.py", '''
        """Greets the name in TOML."""

        import sys

        from minikit import feedback

        if sys.version_info >= (3, 11):
            import tomllib
        else:
            import tomli as tomllib

        if __name__ == "__main__":
            print(feedback.named(tomllib.loads("who = 'Ada'")["who"]))
    ''')
    text, printed = run_bundle(tmp_path, "prog")
    assert printed == "hello Ada\n"
    assert text.count("if sys.version_info >= (3, 11):") == 1


def test_two_kit_modules_that_choose_tomllib_alike_bring_the_choice_in_once(kit, tmp_path):
    """kit/rules.py, kit/assignment.py and others each choose tomllib so: the bundle
    says it once."""
    kit("minikit/settings.py", SETTINGS)
    kit("minikit/layout.py", '''
        """Layouts written in TOML."""

        import sys

        if sys.version_info >= (3, 11):
            import tomllib
        else:
            import tomli as tomllib


        def columns(text):
            return tomllib.loads(text)["columns"]
    ''')
    kit("prog.py", '''
        """Prints a width and a number of columns read from TOML."""

        from minikit import layout, settings

        if __name__ == "__main__":
            print(settings.width("width = 7"), layout.columns("columns = 3"))
    ''')
    text, printed = run_bundle(tmp_path, "prog")
    assert printed == "7 3\n"
    assert text.count("if sys.version_info >= (3, 11):") == 1


@pytest.mark.parametrize("branch", [
    "from minikit import feedback",
    "import minikit.feedback as feedback",
    "WIDTH = 80",
], ids=["a kit module from", "a kit module", "an assignment"])
def test_a_version_choice_that_imports_the_kit_or_does_anything_else_is_refused(
        kit, branch):
    """Only imports from outside the kit are carried whole: a kit module must come in
    definition by definition, and an `if` that does more is a program the bundler does
    not know how to carry."""
    kit("minikit/feedback.py", FEEDBACK)
    kit("minikit/settings.py", f'''
        """Settings."""

        import sys

        if sys.version_info >= (3, 11):
            import tomllib
        else:
            {branch}


        def width():
            return 80
    ''')
    kit("prog.py", '''
        """Prints the width."""

        from minikit import settings

        if __name__ == "__main__":
            print(settings.width())
    ''')
    assert refusal("prog") == ("minikit/settings.py:5: the bundler cannot carry this "
                               "top-level statement: if sys.version_info >= (3, 11):")


# A local name that would shadow a kit name ----------------------------------------------

def test_a_local_name_does_not_shadow_a_kit_name_reached_through_its_module(kit, tmp_path):
    """`feedback.named(named)` would become `named(named)`, calling the local string: the
    kit's `named` comes in as `feedback_named` instead, and the bundle greets Ada."""
    kit("minikit/feedback.py", FEEDBACK)
    kit("minikit/report.py", '''
        """Report lines."""

        from minikit import feedback


        def line(first, last):
            named = f"{first} {last}"
            return feedback.named(named)
    ''')
    kit("prog.py", '''
        """Prints a report line."""

        from minikit import report

        if __name__ == "__main__":
            print(report.line("Ada", "Lovelace"))
    ''')
    text, printed = run_bundle(tmp_path, "prog")
    assert printed == "hello Ada Lovelace\n"
    assert "def feedback_named(who):" in text
    assert "return feedback_named(named)" in text


def test_a_parameter_does_not_shadow_a_kit_name_reached_through_its_module(kit, tmp_path):
    """A parameter is a local name too: the program's `feedback.named(named)` works so."""
    kit("minikit/feedback.py", FEEDBACK)
    kit("prog.py", '''
        """Greets whom it is given."""

        from minikit import feedback


        def greet(named):
            return feedback.named(named)


        if __name__ == "__main__":
            print(greet("Grace"))
    ''')
    text, printed = run_bundle(tmp_path, "prog")
    assert printed == "hello Grace\n"
    assert "def feedback_named(who):" in text


def test_an_except_name_does_not_shadow_a_kit_name_reached_through_its_module(
        kit, tmp_path):
    """`except KeyError as named` binds a local name as an assignment does."""
    kit("minikit/feedback.py", FEEDBACK)
    kit("prog.py", '''
        """Greets the missing key."""

        from minikit import feedback


        def greet_missing(table):
            try:
                return table["Ada"]
            except KeyError as named:
                return feedback.named(named)


        if __name__ == "__main__":
            print(greet_missing({}))
    ''')
    text, printed = run_bundle(tmp_path, "prog")
    assert printed == "hello 'Ada'\n"


def test_a_renamed_kit_name_that_is_also_a_parameter_is_refused(kit):
    """The program has its own `named`, so the kit's comes in as `feedback_named`; where
    report.py's `line` has a parameter `named`, renaming its uses would call the kit's
    function in place of the argument, and the parameter is not renamed with them."""
    kit("minikit/feedback.py", FEEDBACK)
    kit("minikit/report.py", '''
        """Report lines."""

        from minikit.feedback import named


        def line(named):
            return named.upper()


        def greeting(who):
            return named(who)
    ''')
    kit("prog.py", '''
        """Prints a report line."""

        from minikit import report


        def named():
            return "the program's own"


        if __name__ == "__main__":
            print(report.line(named()), report.greeting("Ada"))
    ''')
    assert refusal("prog") == (
        "minikit/report.py:7: 'named' is both what the kit's 'feedback_named' is called here "
        "and a local name of the same definition: the bundler cannot carry it")


def test_a_renamed_kit_name_that_a_nested_definition_binds_is_refused(kit):
    """A definition inside `line` named `named` is not renamed with its uses either: the
    bundle would call the kit's function where the program calls the inner one."""
    kit("minikit/feedback.py", FEEDBACK)
    kit("minikit/report.py", '''
        """Report lines."""

        from minikit.feedback import named


        def line(who):
            def named(someone):
                return f"dear {someone}"
            return named(who)


        def greeting(who):
            return named(who)
    ''')
    kit("prog.py", '''
        """Prints a report line."""

        from minikit import report


        def named():
            return "the program's own"


        if __name__ == "__main__":
            print(report.line("Ada"), report.greeting("Ada"), named())
    ''')
    assert refusal("prog") == (
        "minikit/report.py:9: 'named' is both what the kit's 'feedback_named' is called here "
        "and a local name of the same definition: the bundler cannot carry it")


def test_a_kit_module_imported_inside_a_definition_is_refused(kit):
    """`import minikit.feedback` inside a function would reach for the kit when the bundle
    runs alone; like `from minikit import feedback` there, it is refused."""
    kit("minikit/feedback.py", FEEDBACK)
    kit("prog.py", '''
        """Greets Ada."""


        def main():
            import minikit.feedback
            print(minikit.feedback.named("Ada"))


        if __name__ == "__main__":
            main()
    ''')
    assert refusal("prog") == ("prog.py:5: the bundler cannot carry this top-level "
                               "statement: import minikit.feedback")
