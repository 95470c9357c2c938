"""The package built once per test process: tests/ops/test_package.py reads the wheel and installs it,
tests/ops/test_production.py runs the production layout from it."""
from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="session")
def dist(tmp_path_factory) -> Path:
    """``python -m build``: the sdist, then the wheel built from the sdist (so the sdist must be whole)."""
    out = tmp_path_factory.mktemp("dist")
    subprocess.run([sys.executable, "-m", "build", "-q", "-o", str(out), str(ROOT)], check=True,
                   stdout=subprocess.DEVNULL, timeout=600)
    return out
