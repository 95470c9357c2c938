"""The services' rooms keep their shape (pbem/services/__init__.py): no import circle, the core
imports nothing above it, and a room above imports only the core and its own modules -- the
rooms hear from one another through the core's events, subscribed in wiring.py alone. Every
import statement counts, a function's own too (read with ast, as the import-graph check)."""
import ast
from pathlib import Path

import pbem.services
from pbem.services.core import events

ROOT = Path(pbem.services.__file__).parent
TOP = ("wiring", "upkeep")  # above every room: they may import any of them


def _modules() -> dict[str, Path]:
    out = {}
    for f in ROOT.rglob("*.py"):
        parts = f.relative_to(ROOT).with_suffix("").parts
        out[".".join(parts[:-1] if parts[-1] == "__init__" else parts)] = f
    return out


def _imports(name: str, path: Path) -> set[str]:
    """The services modules ``name`` imports (relative to pbem.services), any import statement."""
    is_pkg = path.name == "__init__.py"
    here = ["pbem", "services", *([p for p in name.split(".") if p])]
    out = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        targets = []
        if isinstance(node, ast.Import):
            targets = [a.name for a in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                parts = here[: len(here) - node.level + (1 if is_pkg else 0)]
                base = ".".join(parts + ([base] if base else []))
            targets = [base] + [f"{base}.{a.name}" for a in node.names]
        for t in targets:
            if t.startswith("pbem.services."):
                out.add(t[len("pbem.services."):])
    modules = _modules()
    found = set()
    for t in out:
        while t and t not in modules:
            t = t.rpartition(".")[0]
        if t and t != name and not name.startswith(t + "."):
            found.add(t)
    return found


def _graph() -> dict[str, set[str]]:
    return {name: _imports(name, path) for name, path in _modules().items()}


def test_no_module_of_the_services_imports_one_that_imports_it_back():
    graph = _graph()
    seen: dict[str, int] = {}  # 1: on the path, 2: done

    def visit(m: str, path: list[str]) -> None:
        seen[m] = 1
        for n in sorted(graph[m]):
            assert seen.get(n) != 1, "an import circle: " + " -> ".join(path + [m, n])
            if n not in seen:
                visit(n, path + [m])
        seen[m] = 2

    for m in sorted(graph):
        if m not in seen:
            visit(m, [])


def test_the_core_imports_nothing_above_it():
    for m, targets in _graph().items():
        if m.startswith("core"):
            assert all(t.startswith("core") for t in targets), (m, sorted(targets))


def test_a_room_imports_only_the_core_and_its_own_modules():
    for m, targets in _graph().items():
        room = m.split(".")[0]
        if room in ("", "core") or room in TOP or m == "":
            continue
        strangers = {t for t in targets if t.split(".")[0] not in ("core", room)}
        assert not strangers, f"{m} imports {sorted(strangers)}: rooms hear from each other through events"


def test_every_event_is_documented_and_heard_and_only_wiring_subscribes():
    source = (ROOT / "core" / "events.py").read_text(encoding="utf-8")
    for event in events.ALL:
        assert event.listeners, f"{event.name} has no listener"
        assert f'= Event("{event.name}")\n"""' in source, f"{event.name} is not documented where it is declared"
        for fn in event.listeners:
            assert f"{fn.__module__.removeprefix('pbem.services.')}.{fn.__name__}" in source, \
                f"the documentation of {event.name} does not name its listener {fn.__module__}.{fn.__name__}"
    for m, path in _modules().items():
        if m != "wiring":
            assert ".listen(" not in path.read_text(encoding="utf-8"), f"{m} subscribes to an event"
