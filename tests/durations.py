"""How long the slow tests take, so that a parallel run starts the files with
the most work first (tests/conftest.py orders the test files by it): the run
then ends with quick files that keep every worker busy, not with one long file
while the others wait.

The figures are a measured run's (tests/durations.json: each test of a
second or more, in seconds, and each file's quicker tests together as
``<module>::*``: a file of two hundred quick tests is as long as one slow
test, and counted as nothing it was started last and ran on alone at the
end); they only order the tests, so figures from an older run or another
machine do no harm. To measure them again:

    ./scripts/test --junitxml=/tmp/run.xml
    .venv/bin/python -m tests.durations /tmp/run.xml
"""
from __future__ import annotations

import json
import sys
import xml.etree.ElementTree as ET
from pathlib import Path

DATA = Path(__file__).with_name("durations.json")
SLOW = 1.0  # seconds: the tests kept in the file; the others count as quick


def key(nodeid: str) -> str:
    """A test's name as a JUnit report gives it (``tests.web.test_site::test_x[p]``), from its node id."""
    parts = [p for p in nodeid.split("::") if p != "()"]
    path = parts[0][:-3] if parts[0].endswith(".py") else parts[0]
    return ".".join([path.replace("/", ".")] + parts[1:-1]) + "::" + parts[-1]


def module_key(nodeid: str) -> str:
    """The key of a test file's quick tests together (``tests.web.test_site::*``), from a test's node id."""
    return key(nodeid.split("::")[0] + "::*")


def _module(classname: str) -> str:
    """A JUnit classname's module (``tests.web.test_site.TestX`` -> ``tests.web.test_site``)."""
    parts = classname.split(".")
    for i, part in enumerate(parts):
        if part.startswith("test_"):
            return ".".join(parts[: i + 1])
    return classname


def load() -> dict[str, float]:
    try:
        return json.loads(DATA.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}


def main(reports: list[str]) -> None:
    times: dict[str, float] = {}
    for report in reports:
        for case in ET.parse(report).iter("testcase"):
            name = f"{case.get('classname')}::{case.get('name')}"
            times[name] = max(times.get(name, 0.0), float(case.get("time") or 0))
    slow = {name: round(t, 1) for name, t in sorted(times.items()) if t >= SLOW}
    quick: dict[str, float] = {}
    for name, t in times.items():
        if t < SLOW:
            module = _module(name.split("::")[0]) + "::*"
            quick[module] = quick.get(module, 0.0) + t
    slow.update({m: round(t, 1) for m, t in sorted(quick.items()) if t >= SLOW})
    DATA.write_text(json.dumps(slow, indent=0, ensure_ascii=False, sort_keys=True) + "\n", encoding="utf-8")
    print(f"{DATA}: {len(slow)} tests of {SLOW:.0f} s or more and files' quick tests together, of {len(times)}")


if __name__ == "__main__":
    main(sys.argv[1:])
