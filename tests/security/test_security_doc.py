"""docs/security.md points each promise at its test: every pointer names a test that exists, so a renamed or
deleted test cannot leave a promise nobody checks."""

import ast
import re
from pathlib import Path

TESTS = Path(__file__).resolve().parents[1]
DOC = TESTS.parent / "docs" / "security.md"


def pointers() -> list[tuple[str, str]]:
    # `file.py::test_x` names a file; a following `::test_y` is in the same file.
    found, current = [], None
    for file, name in re.findall(r"`(?:([\w/]+\.py))?::(test_\w+)`", DOC.read_text()):
        current = file or current
        found.append((current, name))
    return found


def test_every_pointer_of_the_security_doc_names_a_test_that_exists():
    found = pointers()
    assert len(found) > 50
    missing = []
    for file, name in found:
        path = TESTS / file
        defined = (
            {n.name for n in ast.walk(ast.parse(path.read_text())) if isinstance(n, ast.FunctionDef)}
            if path.exists()
            else set()
        )
        if name not in defined:
            missing.append(f"{file}::{name}")
    assert missing == []


def test_every_role_has_its_section():
    headings = re.findall(r"^## (.+)$", DOC.read_text(), flags=re.M)
    for role in ("upload key", "voter", "vendor", "tester", "reviewer", "editor"):
        assert any(role in h.lower() for h in headings), role
