"""The house's structure, read from the source with ``ast``: layers point down
(engine <- store <- services <- mail / web <- tasks <- cli), no module imports
one that imports it back (imports inside functions count: they run too), and
comments give reasons rather than tracker numbers (a reader of the code has no
tracker)."""
from __future__ import annotations

import ast
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PACKAGE = ROOT / "pbem"

# The layers, lowest first: a room imports only rooms of lower layers (or modules of its own). The
# bottom row (settings, logs, metrics, and the Celery app that work is handed to by name) is below
# every layer; the players' languages (i18n.py) build on the engine's catalogs; outbound HTTP to users'
# addresses (net/) needs only the settings and the languages of its refusals.
BOTTOM = {"config", "logs", "metrics", "celery_app", "broker"}
LAYERS = [
    {"engine"},
    {"i18n"},
    {"net"},
    {"store"},
    {"services"},
    {"push"},
    {"mail", "web"},
    {"tasks"},
    {"cli", "demo", "bench", "selfplay", "worker"},
]


def _modules() -> dict[str, Path]:
    mods = {}
    for path in PACKAGE.rglob("*.py"):
        if "migrations" in path.parts:
            continue
        name = ".".join(path.relative_to(ROOT).with_suffix("").parts)
        mods[name.removesuffix(".__init__")] = path
    return mods


def _imports(name: str, path: Path, mods: dict[str, Path]) -> set[str]:
    """The modules of pbem that ``name`` imports anywhere in its file."""
    found = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            targets = [a.name for a in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                parts = name.split(".")
                keep = len(parts) - node.level + (1 if path.name == "__init__.py" else 0)
                base = ".".join(parts[:keep] + ([base] if base else []))
            targets = [base] + [f"{base}.{a.name}" for a in node.names]
        else:
            continue
        for target in targets:
            while target and target not in mods:
                target = target.rpartition(".")[0]
            # a module's own package (its __init__) runs first whatever it imports: not an edge
            if target and target != name and not name.startswith(target + "."):
                found.add(target)
    return found


def _graph() -> dict[str, set[str]]:
    mods = _modules()
    return {name: _imports(name, path, mods) for name, path in mods.items()}


def _circles(graph: dict[str, set[str]]) -> list[list[str]]:
    """Strongly connected components of more than one module (Tarjan, without recursion)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    on_stack: set[str] = set()
    stack: list[str] = []
    out: list[list[str]] = []
    counter = 0
    for root in sorted(graph):
        if root in index:
            continue
        work = [(root, iter(sorted(graph[root])))]
        index[root] = low[root] = counter
        counter += 1
        stack.append(root)
        on_stack.add(root)
        while work:
            v, children = work[-1]
            for w in children:
                if w not in index:
                    index[w] = low[w] = counter
                    counter += 1
                    stack.append(w)
                    on_stack.add(w)
                    work.append((w, iter(sorted(graph[w]))))
                    break
                if w in on_stack:
                    low[v] = min(low[v], index[w])
            else:
                work.pop()
                if work:
                    low[work[-1][0]] = min(low[work[-1][0]], low[v])
                if low[v] == index[v]:
                    comp = []
                    while True:
                        w = stack.pop()
                        on_stack.discard(w)
                        comp.append(w)
                        if w == v:
                            break
                    if len(comp) > 1:
                        out.append(sorted(comp))
    return out


def test_no_module_imports_one_that_imports_it_back():
    circles = _circles(_graph())
    assert not circles, "import circles:\n" + "\n".join(" <-> ".join(c) for c in circles)


def _room(module: str) -> str:
    parts = module.split(".")
    return parts[1] if len(parts) > 1 else "pbem"


def _rank(room: str) -> int | None:
    if room in BOTTOM or room == "pbem":
        return -1
    for i, layer in enumerate(LAYERS):
        if room in layer:
            return i
    return None


# Rooms of one layer do not use each other, but for these, in this direction only: an admin
# re-drives a failed mail through the mail pipeline, and the outbox page shows a mail's picture as
# the mail draws it. (The bottom row and the commands at the top may use their neighbours.)
SIDEWAYS = {("web", "mail")}


def test_every_room_has_a_layer():
    rooms = {_room(m) for m in _modules()}
    assert not [r for r in rooms if _rank(r) is None], "add the room to LAYERS"


def test_layers_point_down():
    upward = []
    for module, targets in _graph().items():
        here = _room(module)
        for target in targets:
            there = _room(target)
            if there == here or there == "pbem":
                continue
            if _rank(there) > _rank(here) or (_rank(there) == _rank(here) and (here, there) not in SIDEWAYS
                                               and _rank(here) not in (-1, len(LAYERS) - 1)):
                upward.append(f"{module} -> {target}")
    assert not upward, "imports that point up:\n" + "\n".join(sorted(upward))


TRACKER = re.compile(r"\b(?:issues?|tasks?)\s*(?:#?\d+\b|§)|(?-i:\(D\d+\))", re.I)
SCANNED = ("pbem", "templates", "README.md", "docs", "scripts", "deploy", "worker.py", "pyproject.toml", "tests")
TEXT = {".py", ".html", ".txt", ".js", ".css", ".md", ".toml", ".cfg", ".yaml", ".conf", ".service", ".timer",
        ".po", ".pot", ".sh", ".env", ".eml", ".json", ""}
# files that must spell a reference out: this one shows that the pattern catches them, and the
# lobby's test checks that the page shows no design-note number such as "(D12)" to a player
SPELL_THE_PATTERN = {Path(__file__).resolve(), ROOT / "tests" / "web" / "test_option_words.py"}


def test_the_tracker_pattern_catches_the_forms_references_take():
    caught = ["(issue 22)", "issue 18 §3", "as issue 9 asked", "Issue 17: the hand", "issues 16 and 26",
              "issue #5", "issue16", "(issue §8, §18)", "task 3", "(D12)"]
    missed = ["an issued token", "the tissue 5", "issues a warning", "the task's queue", "str(d0)", "a dozen items"]
    assert [s for s in caught if not TRACKER.search(s)] == []
    assert [s for s in missed if TRACKER.search(s)] == []


def test_comments_give_reasons_not_tracker_numbers():
    found = []
    for top in SCANNED:
        base = ROOT / top
        paths = [base] if base.is_file() else [p for p in base.rglob("*") if p.is_file()]
        for path in paths:
            if (path.suffix not in TEXT or "perf" in path.relative_to(ROOT).parts[:2]
                    or "__pycache__" in path.parts or path.resolve() in SPELL_THE_PATTERN):
                continue
            try:
                text = path.read_text(encoding="utf-8")
            except UnicodeDecodeError:
                continue
            for n, line in enumerate(text.splitlines(), 1):
                if TRACKER.search(line):
                    found.append(f"{path.relative_to(ROOT)}:{n}: {line.strip()[:100]}")
    assert not found, "say the reason instead of the tracker number:\n" + "\n".join(found[:50])
