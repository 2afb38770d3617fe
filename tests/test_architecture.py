"""The shape of the code (DESIGN.md, "Layers"): `scoring/` is pure, and no first-party module imports another
that imports it back."""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
FIRST_PARTY = ("leaderboard", "runs", "voting", "scoring", "snapshots", "bundles", "pages")
PURE_ALLOWED = {
    "__future__",
    "collections",
    "dataclasses",
    "typing",
    "math",
    "re",
    "json",
    "hashlib",
    "itertools",
    "functools",
    "statistics",
    "random",
    "numpy",
    "scipy",
    "choix",
    "warnings",
    "enum",
    "datetime",
    "decimal",
    "operator",
    "bisect",
    "heapq",
}


def _modules() -> dict[str, Path]:
    out = {}
    for package in FIRST_PARTY:
        for path in (ROOT / package).rglob("*.py"):
            if "migrations" in path.parts:
                continue
            parts = path.relative_to(ROOT).with_suffix("").parts
            name = ".".join(parts[:-1] if parts[-1] == "__init__" else parts)
            out[name] = path
    return out


def _imports(name: str, path: Path, *, top_level_only: bool) -> set[str]:
    tree = ast.parse(path.read_text())
    nodes = tree.body if top_level_only else list(ast.walk(tree))
    found = set()
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    for node in nodes:
        if isinstance(node, ast.Import):
            found.update(a.name for a in node.names)
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")
                base = base[: len(base) - node.level + 1]
                target = ".".join(base + ([node.module] if node.module else []))
            else:
                target = node.module or ""
            found.add(target)
            found.update(f"{target}.{a.name}" for a in node.names)
    return found


def test_scoring_imports_neither_django_nor_any_app():
    bad = {}
    for name, path in _modules().items():
        if not name.startswith("scoring"):
            continue
        for target in _imports(name, path, top_level_only=False):
            root = target.split(".")[0]
            if root != "scoring" and root not in PURE_ALLOWED:
                bad.setdefault(name, set()).add(target)
    assert not bad, bad


def test_no_first_party_import_cycle():
    modules = _modules()
    graph = {
        name: {t for t in _imports(name, path, top_level_only=True) if t in modules and t != name}
        for name, path in modules.items()
    }
    seen: dict[str, int] = {}
    stack: list[str] = []

    def visit(node: str) -> list[str] | None:
        seen[node] = 1
        stack.append(node)
        for nxt in sorted(graph[node]):
            if seen.get(nxt) == 1:
                return stack[stack.index(nxt) :] + [nxt]
            if nxt not in seen:
                cycle = visit(nxt)
                if cycle:
                    return cycle
        stack.pop()
        seen[node] = 2
        return None

    for start in sorted(graph):
        if start not in seen:
            cycle = visit(start)
            assert cycle is None, " -> ".join(cycle)


def test_no_module_over_about_500_lines_and_no_function_over_60():
    too_long = {}
    for name, path in _modules().items():
        source = path.read_text()
        lines = len(source.splitlines())
        if lines > 520:
            too_long[name] = f"{lines} lines"
        for node in ast.walk(ast.parse(source)):
            if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef) and node.end_lineno - node.lineno + 1 > 60:
                too_long[f"{name}.{node.name}"] = f"{node.end_lineno - node.lineno + 1} lines"
    assert not too_long, too_long
