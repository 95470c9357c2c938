"""The engine is pure: standard library only, nothing from the rest of pbem."""
import ast
import sys
from pathlib import Path

ENGINE = Path(__file__).resolve().parents[2] / "pbem" / "engine"
FORBIDDEN_CALLS = {("time", "time"), ("time", "monotonic"), ("datetime", "now"), ("random", "random"),
                   ("random", "shuffle"), ("random", "randint"), ("random", "choice"), ("random", "seed")}


def _modules(tree):
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                yield alias.name, 0
        elif isinstance(node, ast.ImportFrom):
            yield node.module or "", node.level


def test_engine_imports_only_stdlib_and_itself():
    bad = []
    for path in ENGINE.rglob("*.py"):
        tree = ast.parse(path.read_text(), str(path))
        for mod, level in _modules(tree):
            top = mod.split(".")[0]
            if level > 0:
                continue  # relative import inside pbem.engine
            if mod == "pbem.engine" or mod.startswith("pbem.engine."):
                continue
            if top not in sys.stdlib_module_names:
                bad.append(f"{path.relative_to(ENGINE)} imports {mod}")
    assert not bad, bad


def test_engine_uses_no_clock_and_no_global_random():
    bad = []
    for path in ENGINE.rglob("*.py"):
        tree = ast.parse(path.read_text(), str(path))
        for node in ast.walk(tree):
            if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name):
                if (node.value.id, node.attr) in FORBIDDEN_CALLS:
                    bad.append(f"{path.relative_to(ENGINE)}:{node.lineno} {node.value.id}.{node.attr}")
    assert not bad, bad
