"""The build step a wheel needs beyond pyproject.toml: what a clone keeps beside the package (the
templates, the notation pages the rules pages show) goes into the package as ``pbem/share``, and
every translation catalog is compiled (``.po`` -> ``.mo``, mode 0644, readable by whichever user
runs pbem). An installed pbem never writes into its own folder."""
from __future__ import annotations

import os
import shutil
from pathlib import Path

from setuptools import setup
from setuptools.command.build_py import build_py

HERE = Path(__file__).resolve().parent
# what the installed package finds under pbem/share (pbem.config.shipped); a clone reads them in place
SHARED = {"templates": "templates", "docs/notation": "docs/notation"}


def _compile(po: Path, mo: Path) -> None:
    from babel.messages.mofile import write_mo
    from babel.messages.pofile import read_po

    with po.open("rb") as f:
        catalog = read_po(f, locale=po.parent.parent.name)
    mo.parent.mkdir(parents=True, exist_ok=True)
    with mo.open("wb") as out:
        write_mo(out, catalog, use_fuzzy=False)
    os.chmod(mo, 0o644)


class BuildWithResources(build_py):
    def run(self) -> None:
        super().run()
        if getattr(self, "editable_mode", False):  # an editable install reads the clone itself
            return
        package = Path(self.build_lib) / "pbem"
        for source, target in SHARED.items():
            dest = package / "share" / target
            shutil.rmtree(dest, ignore_errors=True)
            shutil.copytree(HERE / source, dest, ignore=shutil.ignore_patterns("__pycache__", "*.pyc"))
            for path in dest.rglob("*"):
                os.chmod(path, 0o755 if path.is_dir() else 0o644)
        for po in sorted((HERE / "pbem").rglob("locale/*/LC_MESSAGES/*.po")):
            _compile(po, package / po.relative_to(HERE / "pbem").with_suffix(".mo"))


setup(cmdclass={"build_py": BuildWithResources})
