"""The shape of the code (DESIGN.md, "Layers"): `scoring/` is pure, the packages import one way only, bottom to
top, and no first-party module imports another that imports it back (imports inside functions included)."""

from __future__ import annotations

import ast
from pathlib import Path

from django.apps import apps as django_apps

ROOT = Path(__file__).resolve().parents[1]
FIRST_PARTY = (
    "leaderboard",
    "runs",
    "voting",
    "scoring",
    "snapshots",
    "bundles",
    "submissions",
    "recompute",
    "pages",
    "api",
    "config",
)
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
    "unicodedata",
    # JSON parsers (bytes in, plain values out): the recount's reading of a votes file (scoring/vote_lines.py)
    "orjson",
    "msgspec",
}


def _modules(root: Path = ROOT) -> dict[str, Path]:
    out = {}
    for package in FIRST_PARTY:
        for path in (root / package).rglob("*.py"):
            if "migrations" in path.parts:
                continue
            parts = path.relative_to(root).with_suffix("").parts
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
            # `from package import module` imports the module; `from module import name`, the module.
            subs = [f"{target}.{a.name}" for a in node.names if f"{target}.{a.name}" in _MODULES]
            found.update(subs)
            if len(subs) < len(node.names):
                found.add(target)
    return found


_MODULES = _modules()


def _resolve(target: str) -> str | None:
    """The first-party module an import names (`leaderboard.models.Agent` -> `leaderboard.models`), or None."""
    while target and target not in _MODULES:
        target = target.rpartition(".")[0]
    return target or None


# The packages bottom to top (README, "Architecture"): a module may import only from its own layer or below.
LAYERS = (
    "scoring",  # pure rules: no Django, no app
    "catalogue",  # leaderboard (benchmarks, tasks, agents, rounds; marking boards stale); snapshots (the stored boards)
    "runs",  # runs, verdicts, evidence, review
    "voting",  # votes, the vote pool, the draw
    "bundles",  # results bundles in and out, Inspect logs
    "submissions",  # results from outside teams: the track, the checks, the tiers
    "recomputing",  # recompute: a board recomputed from a bundle export
    "site",  # pages and the API: what the public reads
    "edges",  # each app's Django edge modules (EDGE_MODULES)
    "config",  # settings, urls, the Celery app
)
PACKAGE_LAYER = {
    "scoring": "scoring",
    "leaderboard": "catalogue",
    "snapshots": "catalogue",
    "runs": "runs",
    "voting": "voting",
    "bundles": "bundles",
    "submissions": "submissions",
    "recompute": "recomputing",
    "pages": "site",
    "api": "site",
    "config": "config",
}
# Django's conventional modules of an installed app (`<app>/admin.py` or `<app>/admin/`, `<app>/views.py`,
# `<app>/management/commands/`, ...): the framework calls them from outside, so they may reach any layer below
# config. Nothing else is set apart (`scoring.checks` is a methodology, `api.tasks` an API router).
EDGE_MODULES = {"admin", "views", "urls", "forms", "apps", "checks", "tasks", "templatetags", "management"}
APPS = {config.name for config in django_apps.get_app_configs()}


def layer_of(module: str) -> str:
    top, *rest = module.split(".")
    if top in APPS and rest and rest[0] in EDGE_MODULES:
        return "edges"
    return PACKAGE_LAYER[top]


def upward_imports(modules: dict[str, Path]) -> list[str]:
    """Every import (inside functions too) of a module from a higher layer, as "path:line module -> target"."""
    out = []
    for name, path in modules.items():
        tree = ast.parse(path.read_text())
        for node in ast.walk(tree):
            if not isinstance(node, ast.Import | ast.ImportFrom):
                continue
            targets = _imports_of(name, path, node)
            for target in targets:
                if target != name and LAYERS.index(layer_of(target)) > LAYERS.index(layer_of(name)):
                    out.append(
                        f"{path.relative_to(ROOT) if path.is_relative_to(ROOT) else path}:{node.lineno} {name} "
                        f"({layer_of(name)}) -> {target} ({layer_of(target)})"
                    )
    return sorted(out)


def _imports_of(name: str, path: Path, node: ast.Import | ast.ImportFrom) -> set[str]:
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    if isinstance(node, ast.Import):
        raw = {a.name for a in node.names}
    else:
        if node.level:
            base = package.split(".")
            base = base[: len(base) - node.level + 1]
            target = ".".join(base + ([node.module] if node.module else []))
        else:
            target = node.module or ""
        subs = {f"{target}.{a.name}" for a in node.names if f"{target}.{a.name}" in _MODULES}
        raw = subs | ({target} if len(subs) < len(node.names) else set())
    return {r for r in (_resolve(t) for t in raw) if r}


def test_every_module_is_in_a_layer():
    assert all(layer_of(m) in LAYERS for m in _MODULES), [m for m in _MODULES if layer_of(m) not in LAYERS]


def test_the_packages_import_one_way_bottom_to_top():
    assert upward_imports(_MODULES) == []


def test_the_order_check_names_an_upward_import_with_its_line(tmp_path, monkeypatch):
    # A deliberately added upward import: the catalogue reaching up into the run services, inside a function.
    bad = tmp_path / "models.py"
    bad.write_text("def f():\n    from runs.services.review import lowest_outcome\n")
    found = upward_imports({"leaderboard.models": bad, "runs.services.review": ROOT / "runs/services/review.py"})
    assert found == [f"{bad}:2 leaderboard.models (catalogue) -> runs.services.review (runs)"]


def test_an_upward_import_written_into_a_module_tree_is_named(tmp_path):
    # A tree laid out like the project's: the module that marks boards stale reaching up into the recompute, and
    # a module of voting's own (not a Django edge module by its name) reaching into its forms, are named; a
    # Django views module reaching the pages, and the catalogue's services calling the marker, are not.
    tree = {
        "leaderboard/stale.py": "from recompute.boards import snapshot_recompute\n",
        "voting/accounts.py": "def sign_in():\n    from voting.forms import SignInForm\n",
        "voting/views.py": "from pages.selectors import home_page\n",
        "leaderboard/services/catalogue.py": "from leaderboard.stale import snapshots_mark_stale\n",
    }
    for relative, source in tree.items():
        (tmp_path / relative).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / relative).write_text(source)
    found = upward_imports(_modules(tmp_path))
    assert found == [
        f"{tmp_path}/leaderboard/stale.py:1 leaderboard.stale (catalogue) -> recompute.boards (recomputing)",
        f"{tmp_path}/voting/accounts.py:2 voting.accounts (voting) -> voting.forms (edges)",
    ]


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
        name: {r for t in _imports(name, path, top_level_only=False) if (r := _resolve(t)) and r != name}
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


def package_cycles(modules: dict[str, Path]) -> list[str]:
    """Pairs of first-party packages whose modules import each other (Django's edge modules, which the framework
    calls from outside, left out), each with the imports that make it."""
    found: dict[tuple[str, str], list[str]] = {}
    for name, path in modules.items():
        if layer_of(name) == "edges":
            continue
        for target in _imports(name, path, top_level_only=False):
            resolved = _resolve(target)
            if resolved and resolved.split(".")[0] != name.split(".")[0] and layer_of(resolved) != "edges":
                found.setdefault((name.split(".")[0], resolved.split(".")[0]), []).append(f"{name} -> {resolved}")
    return sorted(
        f"{a} <-> {b}: {', '.join(found[(a, b)] + found[(b, a)])}" for a, b in found if a < b and (b, a) in found
    )


def test_no_two_packages_import_each_other():
    # The catalogue's services mark boards stale (leaderboard.stale) with the snapshots' models; the snapshots'
    # own modules import nothing of the catalogue's, so the two packages depend one way.
    assert package_cycles(_MODULES) == []


def test_the_package_check_names_two_packages_importing_each_other(tmp_path):
    tree = {
        "leaderboard/services/versions.py": "from snapshots.stale import snapshots_mark_stale\n",
        "snapshots/stale.py": "from leaderboard.models import Round\n",
        "leaderboard/models.py": "",
        "snapshots/models.py": "",
    }
    for relative, source in tree.items():
        (tmp_path / relative).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / relative).write_text(source)
    modules = _modules(tmp_path)
    global _MODULES
    kept, _MODULES = _MODULES, modules
    try:
        found = package_cycles(modules)
    finally:
        _MODULES = kept
    assert found == [
        "leaderboard <-> snapshots: leaderboard.services.versions -> snapshots.stale, snapshots.stale -> "
        "leaderboard.models"
    ]


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
