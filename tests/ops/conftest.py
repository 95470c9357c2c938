"""The package built once per test process: tests/ops/test_package.py reads the wheel and installs it,
tests/ops/test_production.py runs the production layout from it."""
from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


def _source(into: Path) -> Path:
    """The project's files as a checkout has them (tracked, and new ones not ignored), copied: the build
    reads a tree no other test writes into meanwhile (compiled catalogs, caches), and nothing a clone
    does not have."""
    listed = subprocess.run(["git", "ls-files", "-z", "--cached", "--others", "--exclude-standard"], cwd=ROOT,
                            capture_output=True, check=True).stdout.decode().split("\0")
    for name in filter(None, listed):
        src = ROOT / name
        if src.is_file() and not src.is_symlink():
            (into / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(src, into / name)
    return into


@pytest.fixture(scope="session")
def dist(tmp_path_factory) -> Path:
    """``python -m build``: the sdist, then the wheel built from the sdist (so the sdist must be whole)."""
    out = tmp_path_factory.mktemp("dist")
    src = _source(tmp_path_factory.mktemp("src"))
    built = subprocess.run([sys.executable, "-m", "build", "-q", "-o", str(out), str(src)],
                           capture_output=True, text=True, timeout=600)
    assert built.returncode == 0, f"the build failed:\n{built.stdout[-4000:]}\n{built.stderr[-4000:]}"
    return out
