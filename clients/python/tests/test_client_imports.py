"""The package's modules import each other in one direction."""

from __future__ import annotations

import ast
from pathlib import Path

import iceflight

PACKAGE = Path(iceflight.__file__).parent


def _imports(path: Path) -> set[str]:
    """The package modules a module imports, type-checking imports included."""
    out: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.ImportFrom):
            if node.level == 1 and node.module:
                out.add(node.module.split(".")[0])
            elif node.level == 1:
                out.update(a.name for a in node.names)
            elif node.module and node.module.split(".")[0] == "iceflight" and "." in node.module:
                out.add(node.module.split(".")[1])
        elif isinstance(node, ast.Import):
            out.update(a.name.split(".")[1] for a in node.names if a.name.startswith("iceflight."))
    return out


def _graph() -> dict[str, set[str]]:
    modules = {p.stem: p for p in PACKAGE.glob("*.py") if p.stem != "__init__"}
    return {name: _imports(p) & modules.keys() for name, p in modules.items()}


def _cycle(graph: dict[str, set[str]]) -> list[str]:
    """One import cycle of graph, or [] when there is none."""
    state: dict[str, int] = {}  # 1 on the path, 2 done
    path: list[str] = []

    def visit(m: str) -> list[str]:
        state[m] = 1
        path.append(m)
        for dep in sorted(graph[m]):
            if state.get(dep) == 1:
                return path[path.index(dep) :] + [dep]
            if dep not in state and (found := visit(dep)):
                return found
        path.pop()
        state[m] = 2
        return []

    for m in sorted(graph):
        if m not in state and (found := visit(m)):
            return found
    return []


def test_the_cycle_finder_finds_one() -> None:
    assert _cycle({"a": {"b"}, "b": {"c"}, "c": {"a"}}) == ["a", "b", "c", "a"]
    assert _cycle({"a": {"b"}, "b": set()}) == []


def test_modules_import_in_one_direction() -> None:
    graph = _graph()
    assert "plan" in graph["client"], "the graph is read wrong: client.py imports plan.py"
    assert _cycle(graph) == [], f"import cycle: {' -> '.join(_cycle(graph))}"

