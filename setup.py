"""The wheel carries the kit (the programs and their libraries, the assignments, golden
cases, handouts, references, variants) as data inside the package, in exactmark/kit_copy/,
where exactmark.kit.cases.ROOT finds it once installed. The programs' packages (common,
hoyle, patience_games) travel there as files, never as top-level packages: names so
generic must not land on every sys.path. The rest of the build is pyproject.toml's."""

import shutil
from pathlib import Path

from setuptools import setup
from setuptools.command.build_py import build_py
from setuptools.errors import FileError

HERE = Path(__file__).resolve().parent
# What the tool reads of the checkout (tests/test_install.py: every tracked file is here,
# in the package, or among what the tool never reads).
KIT = ("assignments", "expected_outputs", "docs", "references", "tests/wrong", "tests/honest",
       "common", "hoyle", "patience_games", "solitaire_1.py", "solitaire_2.py", "hoyle_cli.py",
       "patience.py", "requirements-mark.txt")
COPY = Path("exactmark", "kit_copy")  # exactmark.kit.cases.INSTALLED_KIT
LEFT_OUT = shutil.ignore_patterns("__pycache__", "*.pyc")
MISSING = "{name} is not in {here}: build the wheel from a checkout of the kit"


class BuildWithKit(build_py):
    """build_py, then the kit copied into the built package; not for an editable install,
    whose package lies in the checkout, beside the kit itself."""

    def run(self):
        super().run()
        if self.editable_mode:
            return
        target = Path(self.build_lib, COPY)
        shutil.rmtree(target, ignore_errors=True)
        for name in KIT:
            source = HERE / name
            if source.is_dir():
                shutil.copytree(source, target / name, ignore=LEFT_OUT)
            elif source.is_file():
                (target / name).parent.mkdir(parents=True, exist_ok=True)
                shutil.copy2(source, target / name)
            else:
                raise FileError(MISSING.format(name=name, here=HERE))


setup(cmdclass={"build_py": BuildWithKit})
