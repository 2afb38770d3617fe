"""Long commands draw a progress bar (counts, ETA) on a terminal and nothing at all otherwise."""

from __future__ import annotations

import io
import json

import pytest
from django.core.management import call_command

from leaderboard.progress import progress
from tests.builders.site import scored_bundle


class Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


def test_a_terminal_gets_counts_and_an_eta():
    out = Terminal()
    with progress("recomputing boards", 4, stream=out) as advance:
        for _ in range(4):
            advance()
    text = out.getvalue()
    assert "recomputing boards" in text and "4/4" in text and "ETA" in text


def test_a_pipe_gets_nothing():
    out = io.StringIO()
    with progress("recomputing boards", 4, stream=out) as advance:
        advance(2)
    assert out.getvalue() == ""


@pytest.mark.django_db
def test_import_bundle_output_stays_plain_when_not_a_terminal(tmp_path, capsys):
    path = tmp_path / "s.json"
    path.write_text(json.dumps(scored_bundle()))
    stdout = io.StringIO()
    call_command("import_bundle", str(path), stdout=stdout)
    assert stdout.getvalue().startswith(f"{path}: sbench: created")
    assert "ETA" not in capsys.readouterr().err
