"""twinbench.report's modules import one another without a cycle, and none uses another's private
(underscore) names: each module's public names are its interface."""

from __future__ import annotations

import ast
import re
from pathlib import Path

PACKAGE = Path(__file__).resolve().parents[2] / "reports" / "src" / "twinbench" / "report"


def _imports() -> tuple[dict[str, set[str]], list[str]]:
    modules = {p.stem for p in PACKAGE.glob("*.py")}
    graph: dict[str, set[str]] = {}
    private: list[str] = []
    for name in sorted(modules):
        source = (PACKAGE / f"{name}.py").read_text(encoding="utf-8")
        deps: set[str] = set()
        aliases: set[str] = set()
        tree = ast.parse(source)
        # Imports for annotations alone (under `if TYPE_CHECKING:`) run never: no cycle.
        typing_only = {id(n) for block in ast.walk(tree) if isinstance(block, ast.If)
                       and getattr(block.test, "id", "") == "TYPE_CHECKING"
                       for stmt in block.body for n in ast.walk(stmt)}
        for node in ast.walk(tree):
            if id(node) in typing_only:
                continue
            if isinstance(node, ast.ImportFrom) and node.level == 1:
                if node.module:
                    deps.add(node.module.split(".")[0])
                    private += [f"{name} imports {node.module}.{a.name}" for a in node.names
                                if a.name.startswith("_") and not a.name.startswith("__")]
                else:
                    deps.update(a.name for a in node.names)
                    aliases.update(a.asname or a.name for a in node.names)
        for alias in aliases:
            private += [f"{name} reads {alias}.{hit}"
                        for hit in sorted(set(re.findall(rf"\b{alias}\.(_[a-z]\w*)", source)))]
        graph[name] = deps & modules
    return graph, private


def _cycle(graph: dict[str, set[str]]) -> list[str] | None:
    state: dict[str, int] = {}
    path: list[str] = []

    def visit(node: str) -> list[str] | None:
        state[node] = 1
        path.append(node)
        for dep in sorted(graph[node]):
            if state.get(dep) == 1:
                return path[path.index(dep):] + [dep]
            if dep not in state and (found := visit(dep)):
                return found
        state[node] = 2
        path.pop()
        return None

    for node in sorted(graph):
        if node not in state and (found := visit(node)):
            return found
    return None


def test_no_import_cycle():
    graph, _ = _imports()
    assert _cycle(graph) is None, " -> ".join(_cycle(graph) or [])


def test_no_private_name_across_modules():
    _, private = _imports()
    assert not private, private


def test_the_check_finds_a_cycle():
    assert _cycle({"a": {"b"}, "b": {"a"}}) == ["a", "b", "a"]
    assert _cycle({"a": {"b"}, "b": set()}) is None
