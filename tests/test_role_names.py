"""The role (group) names are spelled once, in leaderboard/groups.py: every other place in the code uses its
constants, so renaming a group cannot leave a check that silently never matches. Migrations keep their own
literals (they are history, frozen as they ran)."""

from __future__ import annotations

import ast
from pathlib import Path

from leaderboard.groups import EDITORS, REVIEWERS, ROLE_GROUPS, TESTERS, VENDORS

ROOT = Path(__file__).resolve().parents[1]
CODE = (
    "leaderboard",
    "runs",
    "voting",
    "scoring",
    "snapshots",
    "recompute",
    "bundles",
    "pages",
    "api",
    "config",
    "bench",
)
DEFINED_IN = ROOT / "leaderboard" / "groups.py"


def role_literals(paths) -> list[str]:
    """Every string constant equal to a role name in these files, as "path:line 'name'"."""
    found = []
    for path in paths:
        for node in ast.walk(ast.parse(path.read_text(), filename=str(path))):
            if isinstance(node, ast.Constant) and isinstance(node.value, str) and node.value in ROLE_GROUPS:
                where = path.relative_to(ROOT) if path.is_relative_to(ROOT) else path
                found.append(f"{where}:{node.lineno} {node.value!r}")
    return sorted(found)


def _code_files() -> list[Path]:
    return [
        path
        for package in CODE
        for path in (ROOT / package).rglob("*.py")
        if "migrations" not in path.parts and path != DEFINED_IN
    ]


def test_the_role_constants_are_the_four_groups():
    assert ROLE_GROUPS == (EDITORS, TESTERS, REVIEWERS, VENDORS) == ("Editors", "Testers", "Reviewers", "Vendors")


def test_no_role_name_is_spelled_as_a_literal_outside_the_groups_module():
    assert role_literals(_code_files()) == []


def test_the_check_finds_a_literal_role_name_with_its_line(tmp_path):
    bad = tmp_path / "views.py"
    bad.write_text('"""Editors may do this."""\n\ndef f(user):\n    return user.groups.filter(name="Editors")\n')
    assert role_literals([bad]) == [f"{bad}:4 'Editors'"]
