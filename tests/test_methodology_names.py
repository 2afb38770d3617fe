"""Names stay in the registry (STYLE.md 11, "Dispatch on data, not on names"): outside `scoring/`, no code or
template compares a methodology's key (`scoring.methodologies.REGISTRY`); a caller asks the benchmark's registry
entry (`bench.rules`) what it needs, so adding a methodology is one entry, not a hunt for `if ... == "checks"`."""

from __future__ import annotations

import ast
import re
from pathlib import Path

from scoring.methodologies import REGISTRY

ROOT = Path(__file__).resolve().parents[1]
# The app code: every first-party package but the scoring core (where the registry lives) and the tests.
APP_PACKAGES = ("leaderboard", "runs", "voting", "snapshots", "bundles", "pages", "api", "config")
NAMES = frozenset(REGISTRY)


def _names_in(node: ast.expr) -> list[str]:
    """The methodology keys `node` spells out: a string, or a tuple, list or set of strings."""
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return [node.value] if node.value in NAMES else []
    if isinstance(node, ast.Tuple | ast.List | ast.Set):
        return [name for item in node.elts for name in _names_in(item)]
    return []


def python_comparisons(source: str) -> list[tuple[int, str]]:
    """(line, key) of every comparison with a methodology key: `==`, `!=`, `in`, `not in`, or a `case`."""
    found = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Compare):
            for operand in (node.left, *node.comparators):
                found += [(node.lineno, name) for name in _names_in(operand)]
        elif isinstance(node, ast.MatchValue):
            found += [(node.lineno, name) for name in _names_in(node.value)]
    return sorted(found)


TEMPLATE_COMPARISON = re.compile(
    r"""(?:(?:==|!=|\bin)\s*["'](?P<after>[\w-]+)["'])|(?:["'](?P<before>[\w-]+)["']\s*(?:==|!=|\bin\b))"""
)


def template_comparisons(source: str) -> list[tuple[int, str]]:
    """(line, key) of every `{% if %}` comparison with a methodology key in a template."""
    found = []
    for number, line in enumerate(source.splitlines(), 1):
        for tag in re.findall(r"{%.*?%}", line):
            for match in TEMPLATE_COMPARISON.finditer(tag):
                name = match["after"] or match["before"]
                if name in NAMES:
                    found.append((number, name))
    return found


def comparisons_in_app_code() -> list[str]:
    out = []
    for package in APP_PACKAGES:
        for path in sorted((ROOT / package).rglob("*.py")):
            out += [f"{path.relative_to(ROOT)}:{n}: {name!r}" for n, name in python_comparisons(path.read_text())]
    for path in sorted(ROOT.glob("templates/**/*.html")) + sorted(ROOT.glob("*/templates/**/*.html")):
        out += [f"{path.relative_to(ROOT)}:{n}: {name!r}" for n, name in template_comparisons(path.read_text())]
    return out


def test_it_finds_no_methodology_name_compared_outside_scoring():
    found = comparisons_in_app_code()
    assert not found, "methodology names compared outside scoring/ (ask the registry entry instead):\n" + "\n".join(
        found
    )


def test_it_names_the_line_of_each_kind_of_comparison_it_looks_for():
    source = """\
rules = bench.rules
if bench.methodology != "scored":
    pass
elif m in ("checks", "weekly"):
    pass
match m:
    case "outcomes":
        pass
TABLES = {"scored": 1}  # a registry keyed by name is dispatch on data, not a comparison
label = fmt(value, "checks")
"""
    assert python_comparisons(source) == [(2, "scored"), (4, "checks"), (4, "weekly"), (7, "outcomes")]
    template = """\
<p>{{ bench.rules.name }}</p>
{% if bench.methodology == "checks" %}<p>votes</p>{% endif %}
{% if 'weekly' != bench.methodology %}x{% endif %}
<p>Checks passed: "checks" == words in prose are not a tag</p>
"""
    assert template_comparisons(template) == [(2, "checks"), (3, "weekly")]
